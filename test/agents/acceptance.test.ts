/**
 * .github/workflows/acceptance.yml, whole, on the runner emulation (`npm run test:agents`), so the workflow a fork
 * runs first on GitHub cannot rot: the stand-in's repository is this repository (its tracked files, with the
 * action's bundles as `npm run bundle` makes them in place of dist/), the event is a workflow_dispatch on main,
 * and nothing is added to the workflow. Then the same with `isolation: none`, which must fail the claims it is
 * there for: the agent finds the job's token, pushes around the gateway, and the receipts name that push.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionDir, git, REPO_ROOT, removeRunnerUser } from '@perimeter/test-rigs';
import { modelTls } from './model-tls.js';
import { madeRunnerUser, parseWorkflow, runWorkflow, type WorkflowRun } from './workflow-runner.js';

const WORKFLOW = join(REPO_ROOT, '.github', 'workflows', 'acceptance.yml');
/** the emulation's github.run_id and run_attempt */
const RUN_TAG = 'run-4242-1';
const BRANCH = `acceptance/${RUN_TAG}`;

let dir = '';
beforeAll(async () => {
  await modelTls(); // in the sandbox, or a clear error saying how to run it
  dir = await actionDir();
}, 900_000);
afterAll(() => {
  if (madeRunnerUser()) removeRunnerUser();
});

/** This repository as GitHub holds it at this commit: the tracked files, dist/ as the bundles were built. */
function repositoryFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: REPO_ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((path) => path !== '' && !path.startsWith('dist/'));
  for (const path of tracked) files[path] = readFileSync(join(REPO_ROOT, path), 'utf8');
  // a file this branch adds before committing it is in the repository too
  for (const path of walk(join(REPO_ROOT, 'test', 'acceptance')))
    files[relative(REPO_ROOT, path)] = readFileSync(path, 'utf8');
  files['.github/workflows/acceptance.yml'] = readFileSync(WORKFLOW, 'utf8');
  for (const path of walk(join(dir, 'dist'))) files[relative(dir, path)] = readFileSync(path, 'utf8');
  return files;
}

function walk(root: string): string[] {
  return readdirSync(root).flatMap((entry) => {
    const path = join(root, entry);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

async function runAcceptance(edit: (text: string) => string = (t) => t): Promise<WorkflowRun> {
  return runWorkflow(parseWorkflow(edit(readFileSync(WORKFLOW, 'utf8'))), {
    actionDir: dir,
    files: repositoryFiles(),
    inputs: {},
    secrets: {},
    branch: { name: BRANCH, madeByWorkflow: true },
    event: async () => ({ name: 'workflow_dispatch', payload: { inputs: {} }, ref: 'refs/heads/main' }),
    stepTimeoutMs: 240_000,
  });
}

const report = (run: WorkflowRun): string =>
  run.steps.map((s) => `${s.job}/${s.name}: ${s.outcome}\n${s.log.slice(-2500)}`).join('\n');

/** The receipts on the bound branch's head, by context, read after the job tokens expired. */
async function receipts(run: WorkflowRun): Promise<Record<string, { state: string; description: string }>> {
  const head = (await git(run.standIn.bare, ['rev-parse', BRANCH])).trim();
  const out: Record<string, { state: string; description: string }> = {};
  for (const s of await run.standIn.statuses(head, run.observer))
    out[s.context] ??= { state: s.state, description: s.description ?? '' };
  return out;
}

describe('the acceptance workflow, whole on the runner emulation', () => {
  it('with isolation: user every claim step passes and both receipts say success', async () => {
    const run = await runAcceptance();
    try {
      const text = report(run);
      expect(run.results, text).toEqual({ agent: 'success', verify: 'success', receipts: 'success' });
      const claims = run.steps.filter((s) => s.name.startsWith('claim: '));
      expect(claims.map((s) => s.outcome)).toEqual(claims.map(() => 'success'));
      expect(claims.length).toBe(8);
      // the emulation's own search agrees: nothing of the token in the agent step's reach
      const agentStep = run.reach.find((r) => r.step.startsWith('The agent reads'));
      expect(agentStep?.found, text).toEqual([]);
      expect(await receipts(run)).toMatchObject({
        perimeter: { state: 'success' },
        'perimeter/verify': { state: 'success' },
      });
      const pushed = await git(run.standIn.bare, ['ls-tree', '-r', '--name-only', BRANCH]);
      expect(pushed).toContain(`test/acceptance/pushed/${RUN_TAG}.md`);
      expect(pushed).not.toContain('docs/acceptance-rogue.md');
      expect(pushed).not.toContain('docs/acceptance-outside.md');
      const log = run.steps.find((s) => s.name.startsWith('The agent reads'))?.log ?? '';
      for (const route of [
        'sudo: denied',
        'REST push with no token: failed',
        "memory of other users' processes: refused",
      ])
        expect(log, text).toContain(`route ${route}`);
    } finally {
      await run.standIn.close();
    }
  });

  it('with isolation: none the token claim fails and the receipts name the push around the gateway', async () => {
    const run = await runAcceptance((t) => {
      const edited = t.replace(/^(\s+)isolation: user$/m, '$1isolation: none');
      expect(edited).not.toBe(t);
      return edited;
    });
    try {
      const text = report(run);
      const step = (prefix: string) => run.steps.find((s) => s.name.startsWith(prefix));
      expect(step('The agent reads')?.log, text).toMatch(/route REST push with a found token \S+: LANDED/);
      // each claim the agent's own user makes true fails without it (as root it plants no git: see agent.mjs)
      const claims = Object.fromEntries(
        run.steps
          .filter((s) => s.job === 'agent' && s.name.startsWith('claim: '))
          .map((s) => [s.name, s.outcome]),
      );
      expect(Object.values(claims), text).toEqual([
        'failure', // sudo is still there
        'failure', // the token
        'failure', // the gateway could be signalled
        'failure', // the leftover process lives on
        'failure', // the action's files were written
        'success', // the planted git: root plants none here
      ]);
      expect(step('claim: the agent reached no token')?.outcome, text).toBe('failure');
      expect(run.results, text).toEqual({ agent: 'failure', verify: 'failure', receipts: 'success' });
      const states = await receipts(run);
      expect(states.perimeter?.state, JSON.stringify(states)).toBe('failure');
      expect(states['perimeter/verify']?.state, JSON.stringify(states)).toBe('failure');
    } finally {
      await run.standIn.close();
    }
  });
});
