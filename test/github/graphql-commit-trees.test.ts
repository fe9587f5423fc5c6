import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  commitTreesOf,
  commitTreesQuery,
  type CommitTreesAnswer,
} from '../../src/github/octokit/graphql-commit-trees.js';
import { createOctokitUpstream } from '../../src/github/octokit/octokit-upstream.js';
import type { TreeEntry } from '../../src/github/upstream.js';
import { commitToBare, gitText, seedRepo, startFakeGithub, type FakeGithub } from '@perimeter/fake-github';

const TOKEN = 'ghs_GraphqlCommitTrees0123456789abcdefghi';

describe('batched commit reads with their trees (GraphQL)', () => {
  let root: string;
  let dir: string;
  let fake: FakeGithub;
  const commits: string[] = [];

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'perimeter-gql-commits-'));
    dir = join(root, 'r.git');
    commits.push(await seedRepo(dir, { 'a.txt': 'a\n', 'd/e/f/g/deep.txt': 'x\n' }));
    for (let i = 0; i < 59; i++)
      commits.push(await commitToBare(dir, 'main', { [`d/e/n${i % 7}.txt`]: `${i}\n` }, `commit ${i}`));
    fake = await startFakeGithub({ repos: { 'octo/r': dir }, token: TOKEN });
  });
  afterAll(async () => {
    await fake.stop();
    await rm(root, { recursive: true, force: true });
  });

  const upstream = () => createOctokitUpstream({ token: TOKEN, owner: 'octo', repo: 'r', baseUrl: fake.url });

  it('reads 50 commits in one call of 1 point, each as REST gives it, with its parents’ trees', async () => {
    const batched = upstream();
    const rest = upstream();
    const asked = commits.slice(0, 50);
    fake.resetStats();
    const got = await batched.getCommitTrees!(asked, { levels: 3, parentLevels: 1 });
    expect(fake.stats().byRoute['POST /graphql']).toBe(1);
    expect(fake.stats().graphqlPoints).toBe(1);
    expect(got.size).toBe(50);
    for (const sha of asked) {
      const commit = await rest.getCommit(sha);
      expect(got.get(sha)!.commit).toEqual(commit);
      const parentTrees = await Promise.all(commit.parents.map(async (p) => (await rest.getCommit(p)).tree));
      expect(got.get(sha)!.parentTrees).toEqual(parentTrees);
    }
    // the commits and the listings three levels down are then served from the upstream's caches
    fake.resetStats();
    const head = got.get(asked[10]!)!.commit;
    await batched.getCommit(head.sha);
    expect(await batched.getTree(head.tree)).toEqual(await rest.getTree(head.tree));
    const d = (await gitText(dir, ['rev-parse', `${head.sha}:d/e`])).trim();
    await batched.getTree(d);
    expect(fake.stats().byRoute['GET /repos/{owner}/{repo}/git/commits/{sha}'] ?? 0).toBe(0);
    expect(fake.stats().byRoute['GET /repos/{owner}/{repo}/git/trees/{sha}']).toBe(1);
  });

  it('lists more trees in the same call, each as REST lists it', async () => {
    const batched = upstream();
    const rest = upstream();
    const trees = await Promise.all(commits.slice(20, 30).map(async (c) => (await rest.getCommit(c)).tree));
    fake.resetStats();
    await batched.getCommitTrees!([commits[40]!], { levels: 2, parentLevels: 0, trees });
    for (const tree of trees) expect(await batched.getTree(tree)).toEqual(await rest.getTree(tree));
    expect(fake.stats().byRoute['POST /graphql']).toBe(1);
    expect(fake.stats().graphqlPoints).toBe(1);
    // only the REST listings of the comparison
    expect(fake.stats().byRoute['GET /repos/{owner}/{repo}/git/trees/{sha}']).toBe(trees.length);
  });

  it('makes as many calls as 50 commits a call need', async () => {
    fake.resetStats();
    expect((await upstream().getCommitTrees!(commits, { levels: 0 })).size).toBe(60);
    expect(fake.stats().byRoute['POST /graphql']).toBe(2);
  });

  it('leaves a commit out when the answer is not as asked', async () => {
    const query = commitTreesQuery([commits[5]!], 1, 0);
    const response = await fetch(`${fake.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables: { owner: 'octo', name: 'r' } }),
    });
    const answer = ((await response.json()) as { data: CommitTreesAnswer }).data;
    const listings = new Map<string, TreeEntry[]>();
    expect(commitTreesOf([commits[5]!], answer, listings).size).toBe(1);
    expect(listings.size).toBe(1);
    const wrong = structuredClone(answer);
    wrong.repository!.c0!.parents!.totalCount = 2;
    expect(commitTreesOf([commits[5]!], wrong, new Map()).size).toBe(0);
    const other = structuredClone(answer);
    other.repository!.c0!.oid = commits[6]!;
    expect(commitTreesOf([commits[5]!], other, new Map()).size).toBe(0);
    const tampered = structuredClone(answer);
    tampered.repository!.c0!.tree!.entries!.pop();
    const kept = new Map<string, TreeEntry[]>();
    expect(commitTreesOf([commits[5]!], tampered, kept).size).toBe(1);
    expect(kept.size).toBe(0);
  });

  it('gives way to REST once GraphQL is refused', async () => {
    const up = upstream();
    fake.injectFault({ kind: 'status', status: 502, count: 5, route: /graphql/ });
    expect((await up.getCommitTrees!([commits[1]!], { levels: 1 })).size).toBe(0);
    fake.clearFaults();
    expect((await up.getCommitTrees!([commits[1]!], { levels: 1 })).size).toBe(0);
    expect((await up.getCommit(commits[1]!)).sha).toBe(commits[1]);
  });
});
