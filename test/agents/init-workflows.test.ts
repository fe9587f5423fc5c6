/**
 * The workflows `perimeter init --workflow` writes, run whole with the real clients: init runs from a clone of
 * a fork (test/cli/fork-clone.ts) on the sample repository, and the file it wrote, `uses:` pinned to the
 * fork's commit, runs on the runner emulation against the perimeters.yml it proposed, which serves that
 * `uses:` (and no other) from the action's bundles. Only the model route is added, as for README's workflows.
 * Run with `npm run test:agents`.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionDir, FILES, git, removeRunnerUser } from '@perimeter/test-rigs';
import { TEMPLATES, WORKFLOW_KINDS, type WorkflowKind } from '../../src/cli/init/workflow-templates.js';
import { makeForkClone, type ForkClone } from '../cli/fork-clone.js';
import { makeCheckout } from '../cli/run-cli.js';
import { ensureClients } from './clients.js';
import { modelTls } from './model-tls.js';
import { gateVariation } from './readme-variations.js';
import { Script } from './script.js';
import { CLIENTS, postLog, receipt, runReadmeJob, type Session, type Variation } from './sessions.js';
import { madeRunnerUser } from './workflow-runner.js';

/** The client each kind runs (the setups with a later job and the gate run Claude Code's workflow). */
const CLIENT_OF: Record<WorkflowKind, string> = {
  'claude-code': 'claude-code',
  codex: 'codex',
  copilot: 'copilot',
  'agent-sdk': 'agent-sdk',
  'two-job': 'claude-code',
  staged: 'claude-code',
  gate: 'claude-code',
};

/** The jobs each kind's run must finish with. */
const RESULTS: Record<WorkflowKind, Record<string, string>> = {
  'claude-code': { implement: 'success' },
  codex: { implement: 'success' },
  copilot: { implement: 'success' },
  'agent-sdk': { implement: 'success' },
  'two-job': { implement: 'success', verify: 'success' },
  staged: { implement: 'success', apply: 'success' },
  gate: { perimeter: 'success' },
};

/**
 * The sample repository init proposes for: the stand-in's (its own perimeters.yml left out) and a `.env`, a
 * credential file every perimeter's reads answer as absent: init's implementer reads `**`, so that is the
 * file the model's script must find hidden.
 */
const SAMPLE: Record<string, string> = {
  ...Object.fromEntries(Object.entries(FILES).filter(([path]) => path !== 'perimeters.yml')),
  '.env': 'WIDGETS_API_URL=https://widgets.example\n',
};

let dir = '';
let clone: ForkClone;
const made: string[] = [];
const outcomes: boolean[] = [];

beforeAll(async () => {
  await modelTls();
  await ensureClients((line) => console.log(line));
  dir = await actionDir();
  clone = await makeForkClone();
  made.push(clone.dir);
}, 900_000);

afterAll(() => {
  made.forEach((path) => rmSync(path, { recursive: true, force: true }));
  if (madeRunnerUser()) removeRunnerUser();
  console.log(
    `init workflows: ${outcomes.filter(Boolean).length} passed, ${outcomes.filter((o) => !o).length} failed`,
  );
});

/** `perimeter init --workflow kind` as a user runs it from the fork's clone: the files it wrote. */
function initFiles(kind: WorkflowKind): { config: string; workflow: string } {
  const sample = makeCheckout(SAMPLE);
  made.push(sample);
  const ran = spawnSync(process.execPath, [clone.cli, 'init', '--workflow', kind], {
    cwd: sample,
    encoding: 'utf8',
  });
  if (ran.status !== 0)
    throw new Error(`perimeter init --workflow ${kind}: exit ${ran.status}\n${ran.stderr}`);
  return {
    config: readFileSync(join(sample, 'perimeters.yml'), 'utf8'),
    workflow: readFileSync(join(sample, TEMPLATES[kind].file), 'utf8'),
  };
}

describe('the workflows perimeter init writes, run whole', () => {
  for (const kind of WORKFLOW_KINDS) {
    it(kind, { timeout: 600_000 }, async () => {
      let ok = false;
      let session: Session | undefined;
      try {
        const written = initFiles(kind);
        const client = CLIENTS.find((c) => c.name === CLIENT_OF[kind])!;
        const files = {
          ...SAMPLE,
          'perimeters.yml': written.config,
          [TEMPLATES[kind].file]: written.workflow,
        };
        const base: Variation =
          kind === 'gate'
            ? { ...gateVariation(), files }
            : {
                files,
                script: () =>
                  new Script(
                    {
                      readable: { path: 'src/count.ts', expect: 'export const count' },
                      hidden: '.env',
                      missing: 'docs/nothing-here.md',
                      outside: { path: 'docs/agent-notes.md', content: `notes from ${client.name}\n` },
                      inside: {
                        path: `src/from-${client.name}.ts`,
                        content: `export const from = ${JSON.stringify(client.name)};\n`,
                      },
                    },
                    client.toolName,
                  ),
              };
        session = await runReadmeJob(dir, client, {
          ...base,
          workflow: written.workflow,
          action: `octo-fork/perimeter@${clone.head}`,
        });
        const { checks, run, job } = session;
        const report = [
          ...checks.map((c) => `${c.ok ? 'ok  ' : 'FAIL'} ${c.name}${c.ok ? '' : `: ${c.detail}`}`),
          ...run.steps.map((s) => `${s.job}/${s.name}: ${s.outcome}\n${s.log.slice(-3000)}`),
        ].join('\n');
        expect(run.results, report).toEqual(RESULTS[kind]);
        expect(await receipt(session), postLog(session) || report).toBe('success');
        if (kind !== 'gate') {
          expect(checks.length, report).toBeGreaterThan(0);
          expect(
            checks.filter((c) => !c.ok),
            report,
          ).toEqual([]);
          const pushed = await git(job.bare, ['ls-tree', '-r', '--name-only', job.branch]);
          expect(pushed).toContain(`src/from-${client.name}.ts`);
          expect(pushed).not.toContain('docs/agent-notes.md');
          // README's claim for these setups holds for init's workflows too: no token in the agent's reach
          expect(run.reach.flatMap((r) => r.found)).toEqual([]);
        }
        ok = true;
      } finally {
        outcomes.push(ok);
        await session?.model.stop();
        await session?.job.close();
      }
    });
  }
});
