import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitToBare } from '../fake-github/index.js';
import { ok, startHarness, type Harness } from './support/harness.js';

const CONFIG = `
version: 1
perimeters:
  implementer:
    read: ["src/**", "docs/**"]
    write: ["src/**"]
`;

const TREES = 'GET /repos/{owner}/{repo}/git/trees/{sha}';
type Listing = { commits: Array<{ sha: string; message: string }> };

/**
 * 30 commits, each changing files in several nested directories: a tree diff per commit would list
 * about two trees per changed directory, the commit's file list is one request.
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

  it('finds the commits that touch readable paths from one file list per commit, no tree diff', async () => {
    h.fake.resetStats();
    const { commits } = await ok<Listing>(client, 'list_commits', { per_page: 100 });
    const stats = h.fake.stats();
    expect(commits.map((c) => c.sha)).toEqual([...visible].reverse());
    console.log('BEFORE', stats.total, JSON.stringify(stats.byRoute));
    expect(stats.byRoute[TREES] ?? 0).toBe(0);
    // the ref check, one listing page, one file list per commit examined
    expect(stats.total).toBeLessThanOrEqual(2 + visible.length + hidden.length);
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

  it('falls back to the tree diff and still finds the readable change', async () => {
    const files: Record<string, string> = { 'src/zz-last.ts': 'x\n' };
    for (let i = 0; i < 400; i++) files[`secret/${String(i).padStart(3, '0')}.txt`] = `${i}\n`;
    const big = await commitToBare(h.repoDir, 'main', files, 'big');
    const client = await h.connect('implementer');
    h.fake.resetStats();
    const { commits } = await ok<Listing>(client, 'list_commits');
    expect(commits[0]?.sha).toBe(big);
    expect(h.fake.stats().byRoute[TREES]).toBeGreaterThan(0);
  });
});
