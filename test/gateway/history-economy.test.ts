import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitToBare, gitText } from '@perimeter/fake-github';
import { ok, startHarness, type Harness } from '@perimeter/test-rigs';

const CONFIG = `
version: 1
perimeters:
  implementer:
    read: ["src/**", "docs/**"]
    write: ["src/**"]
`;

const TREES = 'GET /repos/{owner}/{repo}/git/trees/{sha}';
const GRAPHQL = 'POST /graphql';
const COMMIT_FILES = 'GET /repos/{owner}/{repo}/commits/{ref}';
type Listing = { commits: Array<{ sha: string; message: string }> };

/**
 * 30 commits, each changing files in several nested directories: a tree diff per commit by REST would
 * list about two trees per changed directory, a file list per commit is one request each; the trees of
 * every commit of the page, compared together in batched GraphQL reads, are a few calls in all.
 */
describe('list_commits on a cold gateway', () => {
  let h: Harness;
  let client: Client;
  const visible: string[] = [];
  const hidden: string[] = [];

  beforeAll(async () => {
    h = await startHarness({
      files: { 'src/a/b/start.ts': '0\n', 'secret/c/d/start.txt': '0\n' },
      config: CONFIG,
    });
    visible.push(await h.head());
    for (let i = 1; i <= 29; i++) {
      const readable = i % 3 !== 0;
      const files: Record<string, string | null> = {
        [`secret/c/d/n${i}.txt`]: `${i}\n`,
        [`secret/e/f/n${i}.txt`]: `${i}\n`,
        ...(readable ? { [`src/a/b/n${i}.ts`]: `${i}\n`, [`docs/g/h/n${i}.md`]: `${i}\n` } : {}),
      };
      const sha = await commitToBare(h.repoDir, 'main', files, `commit ${i}`);
      (readable ? visible : hidden).push(sha);
    }
    client = await h.connect('implementer');
  });
  afterAll(async () => h.close());

  it('finds the commits that touch readable paths from batched tree reads, no file list per commit', async () => {
    h.fake.resetStats();
    const { commits } = await ok<Listing>(client, 'list_commits', { per_page: 100 });
    const stats = h.fake.stats();
    expect(commits.map((c) => c.sha)).toEqual([...visible].reverse());
    expect(stats.byRoute[TREES] ?? 0).toBe(0);
    expect(stats.byRoute[COMMIT_FILES] ?? 0).toBe(0);
    // the ref check (over git), one listing page, the trees of all 30 commits in a round or two of batched
    // reads
    expect(stats.git).toBeLessThanOrEqual(2);
    expect(stats.total).toBeLessThanOrEqual(3);
    expect(stats.total - (stats.byRoute[GRAPHQL] ?? 0)).toBe(1);
  });

  it('sees both sides of a rename', async () => {
    const inward = await commitToBare(
      h.repoDir,
      'main',
      { 'secret/c/d/n1.txt': null, 'src/moved/n1.txt': '1\n' },
      'move in',
    );
    const outward = await commitToBare(
      h.repoDir,
      'main',
      { 'src/moved/n1.txt': null, 'secret/moved/n1.txt': '1\n' },
      'move out',
    );
    const hiddenMove = await commitToBare(
      h.repoDir,
      'main',
      { 'secret/moved/n1.txt': null, 'secret/x/n1.txt': '1\n' },
      'move within the hidden part',
    );
    const { commits } = await ok<Listing>(client, 'list_commits', { per_page: 3 });
    expect(commits.map((c) => c.sha)).toEqual([outward, inward, visible.at(-1)]);
    expect(commits.map((c) => c.sha)).not.toContain(hiddenMove);
  });
});

describe('list_commits over a commit with more files than one page of its file list', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ files: { 'src/start.ts': '0\n' }, config: CONFIG });
  });
  afterAll(async () => h.close());

  it('decides it from batched tree reads and still finds the readable change', async () => {
    const files: Record<string, string> = { 'src/zz-last.ts': 'x\n' };
    for (let i = 0; i < 400; i++) files[`secret/${String(i).padStart(3, '0')}.txt`] = `${i}\n`;
    const big = await commitToBare(h.repoDir, 'main', files, 'big');
    const client = await h.connect('implementer');
    h.fake.resetStats();
    const { commits } = await ok<Listing>(client, 'list_commits');
    expect(commits[0]?.sha).toBe(big);
    expect(h.fake.stats().byRoute[GRAPHQL]).toBeGreaterThan(0);
    expect(h.fake.stats().byRoute[COMMIT_FILES] ?? 0).toBe(0);
  });
});

describe('get_commit on a cold gateway', () => {
  let h: Harness;
  let wide: string;
  let merge: string;
  beforeAll(async () => {
    h = await startHarness({
      files: { 'src/a/b/start.ts': '0\n', 'src/x/gone.ts': 'x\n', 'secret/c/start.txt': '0\n' },
      config: CONFIG,
    });
    const files: Record<string, string | null> = { 'src/x/gone.ts': null, 'src/a/b/start.ts': '1\n' };
    for (let i = 0; i < 60; i++) files[`${i % 2 ? 'src' : 'secret'}/d${i % 7}/e${i % 3}/f${i}.ts`] = `${i}\n`;
    wide = await commitToBare(h.repoDir, 'main', files, 'a wide commit');
  });
  afterAll(async () => h.close());

  // A tree diff, never GitHub's file list: the same answer whichever route the trees come by (the history
  // copy, batched GraphQL, REST) and whatever the commit's size (test/gateway/history-over-git.test.ts).
  // The file list is asked once, beside the reachability check, of every SHA alike (visible-commit.ts): the
  // answer of a commit that changed hidden files only, and its cost, are then an unknown SHA's.
  it('answers a 62-file commit from its trees: the ref, the reachability check, the file list and two batched reads', async () => {
    const client = await h.connect('implementer');
    h.fake.resetStats();
    const answer = await ok<{
      files: Array<{ path: string; status: string; sha?: string; previous_sha?: string }>;
      omitted_count: number;
    }>(client, 'get_commit', { sha: wide });
    expect(h.fake.stats().total).toBeLessThanOrEqual(5);
    expect(h.fake.stats().byRoute[TREES] ?? 0).toBe(0);
    expect(h.fake.stats().byRoute[COMMIT_FILES] ?? 0).toBe(1);
    expect(h.fake.stats().byRoute[GRAPHQL] ?? 0).toBeLessThanOrEqual(2);
    const readable = answer.files.map((f) => `${f.status} ${f.path}`).sort();
    const expected = [
      'deleted src/x/gone.ts',
      'modified src/a/b/start.ts',
      ...Array.from({ length: 30 }, (_, j) => 2 * j + 1).map((i) => `added src/d${i % 7}/e${i % 3}/f${i}.ts`),
    ].sort();
    expect(readable).toEqual(expected);
    expect(answer.omitted_count).toBe(30);
    const blob = async (path: string) => (await gitText(h.repoDir, ['rev-parse', `${wide}:${path}`])).trim();
    expect(answer.files.find((f) => f.path === 'src/a/b/start.ts')?.sha).toBe(await blob('src/a/b/start.ts'));
    expect(answer.files.find((f) => f.path === 'src/a/b/start.ts')?.previous_sha).toBe(
      (await gitText(h.repoDir, ['rev-parse', `${wide}~1:src/a/b/start.ts`])).trim(),
    );
    expect(answer.files.find((f) => f.path === 'src/x/gone.ts')?.previous_sha).toBe(
      (await gitText(h.repoDir, ['rev-parse', `${wide}~1:src/x/gone.ts`])).trim(),
    );
  });

  it('diffs the trees of a merge (GitHub may not list its files against the first parent)', async () => {
    await gitText(h.repoDir, ['branch', 'side', `${wide}~1`]);
    const side = await commitToBare(h.repoDir, 'side', { 'src/side.ts': 's\n' }, 'side work');
    const tree = (await gitText(h.repoDir, ['rev-parse', `${side}^{tree}`])).trim();
    merge = (
      await gitText(h.repoDir, ['commit-tree', tree, '-p', wide, '-p', side, '-m', 'merge side'])
    ).trim();
    await gitText(h.repoDir, ['update-ref', 'refs/heads/main', merge]);
    const client = await h.connect('implementer');
    h.fake.resetStats();
    const answer = await ok<{ files: Array<{ path: string; status: string }> }>(client, 'get_commit', {
      sha: merge,
    });
    expect(h.fake.stats().total).toBeLessThanOrEqual(4);
    expect(h.fake.stats().byRoute[TREES] ?? 0).toBe(0);
    // against the first parent: the side's tree drops the wide commit's readable changes
    expect(answer.files.map((f) => f.path)).toContain('src/side.ts');
    expect(answer.files.map((f) => f.path)).toContain('src/x/gone.ts');
  });
});
