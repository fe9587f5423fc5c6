/**
 * History over git (src/github/git-history.ts): list_commits, get_commit and get_tree answered from the
 * gateway's partial copy of the branch's history answer exactly as over the API, and make no REST or GraphQL
 * request once the copy exists (the stand-in's own counts).
 */
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitToBare, gitText } from '@perimeter/fake-github';
import { call, startHarness, type Harness } from '@perimeter/test-rigs';

const CONFIG = `
version: 1
perimeters:
  impl:
    read: ["src/**", "docs/**"]
    write: ["src/**"]
`;

function start(history: boolean): Promise<Harness> {
  return startHarness({
    files: { 'src/a.ts': 'a\n', 'secret/k.txt': 'k\n', 'docs/r.md': 'r\n' },
    config: CONFIG,
    ...(history ? { upstream: { history: { branch: 'main', dir: tmpdir() } } } : {}),
  });
}

/** the same history in both stand-ins: written in one, fetched whole into the other */
async function same(from: Harness, to: Harness): Promise<void> {
  await gitText(to.repoDir, ['fetch', '--quiet', '--force', from.repoDir, '+refs/heads/*:refs/heads/*']);
}

async function grow(h: Harness): Promise<void> {
  for (let i = 1; i <= 12; i++)
    await commitToBare(
      h.repoDir,
      'main',
      i % 3 === 0
        ? { [`secret/n${i}.txt`]: `${i}\n` }
        : { [`src/m${i % 4}.ts`]: `${i}\n`, 'docs/r.md': `r${i}\n` },
      `commit ${i}`,
    );
}

describe('history over git', () => {
  let git: Harness;
  let api: Harness;
  beforeAll(async () => {
    [git, api] = await Promise.all([start(true), start(false)]);
    await grow(git);
    await same(git, api);
  });
  afterAll(async () => Promise.all([git.close(), api.close()]));

  it('answers as the API does, with no REST or GraphQL request once the copy exists', async () => {
    const calls: Array<[string, Record<string, unknown>]> = [
      ['get_tree', { recursive: true }],
      ['list_commits', {}],
      ['list_commits', { path: 'src', per_page: 3, page: 2 }],
      ['list_commits', { path: 'secret' }],
    ];
    const gitClient = await git.connect('impl');
    const apiClient = await api.connect('impl');
    // the first call makes the copy (and lists the head's tree once, for its sizes)
    await call(gitClient, 'get_tree', {});
    await call(apiClient, 'get_tree', {});
    git.fake.resetStats();
    for (const [tool, args] of calls) {
      const over = await call(gitClient, tool, args);
      const by = await call(apiClient, tool, args);
      expect(JSON.stringify(over), `${tool} ${JSON.stringify(args)}`).toEqual(JSON.stringify(by));
    }
    const shas = (await gitText(git.repoDir, ['rev-list', 'main'])).split('\n').filter(Boolean);
    for (const sha of [...shas, '0'.repeat(40)]) {
      const over = await call(gitClient, 'get_commit', { sha });
      expect(JSON.stringify(over), sha).toEqual(JSON.stringify(await call(apiClient, 'get_commit', { sha })));
    }
    const { total, graphqlPoints } = git.fake.stats();
    expect({ total, graphqlPoints }).toEqual({ total: 0, graphqlPoints: 0 });
  });
});
