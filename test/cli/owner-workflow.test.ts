import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { makeCheckout } from './run-cli.js';

/**
 * docs/cli.md's "Check perimeters.yml on pull requests" job, step by step on a real repository: the two checkouts
 * are done here (the pull request's merge as the workspace, with the base branch as origin; the action's
 * own checkout as .perimeter, whose dist/cli runs this checkout's CLI sources); every `run:` step runs in bash
 * as a runner runs it, with its `env:` and GITHUB_STEP_SUMMARY.
 */
const PAGE = readFileSync(fileURLToPath(new URL('../../docs/cli.md', import.meta.url)), 'utf8');
const HEADING = '## Check perimeters.yml on pull requests (tested)';
const block = PAGE.slice(PAGE.indexOf(HEADING)).match(/```yaml\n([\s\S]*?)```\n/)![1]!;
const workflow = parse(block) as {
  jobs: { perimeters: { steps: Array<{ uses?: string; run?: string; env?: Record<string, string> }> } };
};
const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const TSX = pathToFileURL(
  fileURLToPath(new URL('../../node_modules/tsx/dist/loader.mjs', import.meta.url)),
).href;

const CONFIG = `version: 1
perimeters:
  source:
    read: ["**"]
    write: ["src/**"]
  tests:
    read: ["**"]
    write: ["test/**"]
`;

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
    cwd,
    encoding: 'utf8',
  });

/** A repository with history on main, and the workspace a pull request changing perimeters.yml gets. */
function pullRequest(proposed: string): string {
  const origin = makeCheckout({ 'perimeters.yml': CONFIG, 'src/a.ts': 'a', 'test/a.test.ts': 't' });
  dirs.push(origin);
  for (const [path, message] of [
    ['src/b.ts', 'b'],
    ['src/lib/c.ts', 'c'],
    ['test/b.test.ts', 'tests for b'],
  ] as const) {
    mkdirSync(join(origin, path, '..'), { recursive: true });
    writeFileSync(join(origin, path), message);
    git(origin, 'add', '-A');
    git(origin, 'commit', '-qm', message);
  }
  const work = mkdtempSync(join(tmpdir(), 'perimeter-pr-'));
  dirs.push(work);
  git(work, 'clone', '-q', origin, '.');
  git(work, 'checkout', '-q', '-b', 'pr');
  writeFileSync(join(work, 'perimeters.yml'), proposed);
  git(work, 'commit', '-qam', 'tighten perimeters');
  // the action's own checkout: its bundled CLI, here the sources of this checkout
  mkdirSync(join(work, '.perimeter', 'dist', 'cli'), { recursive: true });
  writeFileSync(
    join(work, '.perimeter', 'dist', 'cli', 'index.js'),
    `const { spawnSync } = require('node:child_process');\n` +
      `const r = spawnSync(process.execPath, ['--import', ${JSON.stringify(TSX)}, ${JSON.stringify(MAIN)}, ...process.argv.slice(2)], { stdio: 'inherit' });\n` +
      `process.exit(r.status ?? 1);\n`,
  );
  writeFileSync(join(work, '.perimeter', 'package.json'), '{"type":"commonjs"}');
  return work;
}

function runJob(work: string): { codes: number[]; summary: string } {
  const summary = join(work, '..', `${work.split('/').pop()}-summary.md`);
  writeFileSync(summary, '');
  const codes: number[] = [];
  for (const step of workflow.jobs.perimeters.steps) {
    if (step.uses !== undefined) {
      expect(step.uses).toMatch(/^actions\/checkout@/); // done by pullRequest()
      continue;
    }
    const expand = (text: string) => text.replaceAll('${{ github.base_ref }}', 'main');
    const env = Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, expand(v)]));
    expect(JSON.stringify([step.run, env])).not.toContain('${{');
    const result = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', step.run!], {
      cwd: work,
      env: { ...process.env, ...env, GITHUB_STEP_SUMMARY: summary },
      encoding: 'utf8',
    });
    codes.push(result.status ?? -1);
    if (result.status !== 0) break; // later steps do not run after a failed one
  }
  return { codes, summary: readFileSync(summary, 'utf8') };
}

describe("docs/cli.md's pull-request job for perimeters.yml", () => {
  describe('when the pull request tightens a perimeter', () => {
    it('fails the replay step and puts the changed verdicts in the job summary', () => {
      const work = pullRequest(CONFIG.replace('write: ["src/**"]', 'write: ["src/*.ts"]'));
      const { codes, summary } = runJob(work);
      expect(codes).toEqual([0, 3]);
      expect(summary).toContain(
        '## perimeter check\n```text\nperimeters.yml: valid (version 1, 2 perimeters)',
      );
      expect(summary).toContain(
        '## perimeter replay\n```text\nReplaying perimeters.yml against origin/main (newest 100): 4 commits;',
      );
      expect(summary).toMatch(
        /Changes from origin\/main:perimeters\.yml \(1\):\n {2}[0-9a-f]{7} source: allowed -> refused\n {4}now refused: src\/lib\/c\.ts: added outside every perimeter \(source: no write glob matches\)\n/,
      );
    });
  });

  describe('when the pull request changes no verdict', () => {
    it('passes with the replay in the summary', () => {
      const work = pullRequest(CONFIG.replace('  source:\n', '  source:\n    description: Implements.\n'));
      const { codes, summary } = runJob(work);
      expect(codes).toEqual([0, 0]);
      expect(summary).toContain('No changes from origin/main:perimeters.yml.');
    });
  });

  describe('when the proposed file is invalid', () => {
    it('fails at the check step', () => {
      const work = pullRequest(CONFIG.replace('write: ["src/**"]', 'write: "src/**"'));
      expect(runJob(work).codes).toEqual([1]);
    });
  });
});
