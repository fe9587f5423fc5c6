/**
 * The jobs bench's real-history workload (bench/jobs.ts) on a small real repository made with git: the rig
 * clones it, commits perimeters.yml on top, and runs the history session's calls (whole-branch pages, the wide
 * commit, the merges) and a push through the built action in one job and two, then the reference servers'
 * replay. Counts only; the SDK's own history is the bench's (PERIMETER_HISTORY_REPO).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { actionDir, git as gitIn, Job } from '@perimeter/test-rigs';
import { realHistories, runHistoryJobs } from '../../bench/jobs.js';

const root = mkdtempSync(join(tmpdir(), 'perimeter-jobs-history-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function git(...args: string[]): string {
  return execFileSync('git', args, {
    cwd: root,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'a',
      GIT_AUTHOR_EMAIL: 'a@x',
      GIT_COMMITTER_NAME: 'a',
      GIT_COMMITTER_EMAIL: 'a@x',
    },
  });
}
function commit(files: Record<string, string>, message: string): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  git('add', '-A');
  git('commit', '-q', '-m', message);
}

it('measures the history workload on a real repository, with a wide commit and merges', async () => {
  git('init', '-q', '-b', 'main');
  commit(
    { 'README.md': '# x\n', 'packages/a/index.ts': 'export {};\n', '.github/secret.yml': 'hidden\n' },
    'seed',
  );
  commit(
    Object.fromEntries(
      Array.from({ length: 120 }, (_, i) => [`packages/wide/f${i}.ts`, `export const f${i} = ${i};\n`]),
    ),
    'wide',
  );
  for (const topic of ['one', 'two']) {
    git('checkout', '-q', '-b', topic);
    commit({ [`packages/${topic}.ts`]: `export const ${topic} = 1;\n` }, topic);
    git('checkout', '-q', 'main');
    commit({ [`docs/${topic}.md`]: `${topic}\n` }, `docs ${topic}`);
    git('merge', '-q', '--no-ff', '-m', `Merge ${topic}`, topic);
  }

  // the rig's repository is the source's first-parent history with perimeters.yml committed on top
  const job = await Job.create({
    source: root,
    files: { 'perimeters.yml': 'version: 1\nperimeters: {}\n' },
    actionDir: await actionDir(),
    branch: 'main',
  });
  try {
    const firstParent = git('rev-list', '--first-parent', '--reverse', 'main').trim().split('\n');
    expect(job.commits.slice(0, -1)).toEqual(firstParent);
    expect((await gitIn(job.bare, ['rev-parse', 'main^'])).trim()).toBe(firstParent.at(-1));
    const tree = await gitIn(job.bare, ['ls-tree', '-r', '--name-only', 'main']);
    expect(tree.split('\n').filter((p) => p.startsWith('packages/wide/'))).toHaveLength(120);
    expect(tree).toContain('perimeters.yml');
  } finally {
    await job.close();
  }

  const rows = (await runHistoryJobs({ ...realHistories()[0]!, source: root }))!;
  expect(rows.map((r) => [r.workload, r.setup])).toEqual([
    ["the SDK's history", 'one job (post verifies)'],
    ["the SDK's history", 'two jobs (the verify job verifies)'],
    ["the SDK's history", 'server-github (no verification)'],
    ["the SDK's history", 'github-mcp-server (no verification)'],
  ]);
  const [one, two, serverGithub] = rows;
  // the push is within the perimeter: both setups verify it and post success
  expect(one!.receipt).toBe('passed, success');
  expect(two!.receipt).toBe('passed, success');
  expect(Object.keys(two!.phases)).toEqual(['main', 'session', 'post', 'verify job']);
  // 40 calls and a push: the reference server's replay sends one request a call and four for the push
  expect(serverGithub!.rest).toBe(44);
  for (const row of [one!, two!]) {
    expect(row.rest).toBeGreaterThan(0);
    expect(row.jobs_per_hour).toBe(Math.round((1000 / Math.max(row.rest, row.graphql_points)) * 10) / 10);
  }
}, 180_000);
