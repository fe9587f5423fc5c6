import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitToBare } from '@perimeter/fake-github';
import { ok, startHarness, type Harness } from '@perimeter/test-rigs';

const CONFIG = `
version: 1
perimeters:
  implementer:
    read: ["src/**", "docs/**"]
    write: ["src/**"]
    deny: ["src/**/*.private.ts"]
`;

const GRAPHQL = 'POST /graphql';
const GIT_ADVERTISEMENT = 'GIT GET /{owner}/{repo}.git/info/refs';
const LS_REFS = 'GIT POST /{owner}/{repo}.git/git-upload-pack';
const COMMIT_FILES = 'GET /repos/{owner}/{repo}/commits/{ref}';
type Listing = { commits: Array<{ sha: string }> };

/**
 * A readable folder that holds files the perimeter does not see (a credential file, a denied name): a
 * commit that changed only those below the folder must stay absent from list_commits on it, however the
 * gateway decides. 40 commits, changes up to five levels below the folder.
 */
describe('list_commits on a readable folder holding hidden files', () => {
  let h: Harness;
  const visible: string[] = [];
  const hiddenOnly: string[] = [];

  beforeAll(async () => {
    h = await startHarness({
      files: { 'src/a/b/c/d/start.ts': '0\n', 'docs/x.md': 'x\n', 'secret/s.txt': 's\n' },
      config: CONFIG,
    });
    for (let i = 1; i <= 40; i++) {
      const kind = i % 4;
      const files: Record<string, string | null> =
        kind === 0
          ? { [`src/a/.env`]: `TOKEN=${i}\n`, [`src/a/b/c/d/e${i}.private.ts`]: `${i}\n` }
          : kind === 1
            ? { [`src/a/b/c/d/n${i}.ts`]: `${i}\n`, 'secret/s.txt': `${i}\n` }
            : kind === 2
              ? { [`docs/n${i}.md`]: `${i}\n`, [`src/a/b/c/d/e${i}.private.ts`]: `${i}\n` }
              : { [`src/m${i}.ts`]: `${i}\n` };
      const sha = await commitToBare(h.repoDir, 'main', files, `commit ${i}`);
      if (kind === 1 || kind === 3) visible.push(sha);
      else hiddenOnly.push(sha);
    }
  });
  afterAll(async () => h.close());

  const listSrc = async (client: Client, page: number) =>
    (await ok<Listing>(client, 'list_commits', { path: 'src', per_page: 10, page })).commits.map(
      (c) => c.sha,
    );

  it('answers from batched reads: no commit file lists, a few GraphQL calls a page', async () => {
    const client = await h.connect('implementer');
    h.fake.resetStats();
    const first = await listSrc(client, 1);
    const cost = h.fake.stats();
    expect(first).toEqual([...visible].reverse().slice(0, 10));
    expect(first.filter((sha) => hiddenOnly.includes(sha))).toEqual([]);
    expect(cost.byRoute[COMMIT_FILES] ?? 0).toBe(0);
    // First the head (over git: the advertisement and ls-refs), its commit and its tree (a cold gateway's
    // index) by REST: whether src holds anything
    // readable is decided before its history is asked. Then GraphQL: the first 12 commits changing src,
    // each with its tree at src ten levels deep (one call); half of them change only hidden files, so a
    // second call brings more.
    expect(cost.byRoute).toEqual({
      [GRAPHQL]: 2,
      [GIT_ADVERTISEMENT]: 1,
      [LS_REFS]: 1,
      'GET /repos/{owner}/{repo}/git/commits/{sha}': 1,
      'GET /repos/{owner}/{repo}/git/trees/{sha}': 1,
    });
    expect(cost.graphqlPoints).toBe(2);
    h.fake.resetStats();
    const second = await listSrc(client, 2);
    expect(second).toEqual([...visible].reverse().slice(10, 20));
    // the head checked (over git), and the scan goes on from where page 1 stopped: one call
    expect(h.fake.stats().byRoute).toEqual({ [GRAPHQL]: 1, [LS_REFS]: 1 });
  });

  it('gives the same answer by REST file lists when GraphQL is refused', async () => {
    const refused = await startHarness({
      files: { 'src/a/b/c/d/start.ts': '0\n', 'docs/x.md': 'x\n', 'secret/s.txt': 's\n' },
      config: CONFIG,
      graphqlRateLimit: 0,
    });
    try {
      // the same history on a second stand-in whose GraphQL budget is spent
      const { execFileSync } = await import('node:child_process');
      execFileSync('git', ['--git-dir', refused.repoDir, 'fetch', '-q', h.repoDir, '+main:main']);
      const client = await refused.connect('implementer');
      refused.fake.resetStats();
      expect(await listSrc(client, 1)).toEqual([...visible].reverse().slice(0, 10));
      expect(refused.fake.stats().byRoute[COMMIT_FILES]).toBeGreaterThan(10);
    } finally {
      await refused.close();
    }
  });
});
