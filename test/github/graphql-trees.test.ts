import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listingsOf, treesQuery, type TreesAnswer } from '../../src/github/octokit/graphql-trees.js';
import { createOctokitUpstream } from '../../src/github/octokit/octokit-upstream.js';
import { gitText, seedRepo, startFakeGithub, type FakeGithub } from '@perimeter/fake-github';

const TOKEN = 'ghs_GraphqlTreesToken0123456789abcdefghij';

describe('batched tree reads (GraphQL)', () => {
  let root: string;
  let dir: string;
  let fake: FakeGithub;
  let tree: string;
  let sub: string;
  let answer: TreesAnswer;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'perimeter-gql-'));
    dir = join(root, 'r.git');
    await seedRepo(dir, { 'a.txt': 'a\n', 'run.sh': '#!/bin/sh\n', 'd/x.txt': 'x\n', 'd/e/y.txt': 'y\n' });
    await gitText(dir, ['rev-parse', 'main^{tree}']);
    tree = (await gitText(dir, ['rev-parse', 'main^{tree}'])).trim();
    sub = (await gitText(dir, ['rev-parse', 'main:d'])).trim();
    fake = await startFakeGithub({ repos: { 'octo/r': dir }, token: TOKEN });
    const response = await fetch(`${fake.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: treesQuery([tree]), variables: { owner: 'octo', name: 'r' } }),
    });
    answer = ((await response.json()) as { data: TreesAnswer }).data;
  });
  afterAll(async () => {
    await fake.stop();
    await rm(root, { recursive: true, force: true });
  });

  const copy = (): TreesAnswer => structuredClone(answer);
  type Listed = { entries: Array<{ name: string; oid: string; mode: number; object?: Listed | null }> };
  const top = (a: TreesAnswer) => a.repository!.t0 as Listed;

  it('gives each tree as REST lists it, and the trees below it', async () => {
    const upstream = createOctokitUpstream({ token: TOKEN, owner: 'octo', repo: 'r', baseUrl: fake.url });
    const listings = listingsOf([tree], answer);
    expect([...listings.keys()].sort()).toEqual(
      [tree, sub, (await gitText(dir, ['rev-parse', 'main:d/e'])).trim()].sort(),
    );
    const rest = createOctokitUpstream({ token: TOKEN, owner: 'octo', repo: 'r', baseUrl: fake.url });
    for (const [sha, list] of listings) expect(list).toEqual(await rest.getTree(sha));
    // through the upstream: one call, and the listings are then served from its cache
    const before = fake.stats().total;
    const got = await upstream.getTrees!([tree]);
    expect(got.size).toBe(3);
    await upstream.getTree(sub);
    expect(fake.stats().total - before).toBe(1);
  });

  describe('when an answer does not hash to the SHA it was asked under', () => {
    it('leaves out a listing with an entry dropped', () => {
      const a = copy();
      top(a).entries = top(a).entries.filter((e) => e.name !== 'a.txt');
      expect(listingsOf([tree], a).has(tree)).toBe(false);
    });

    it('leaves out a listing with a mode changed (an executable bit added)', () => {
      const a = copy();
      top(a).entries.find((e) => e.name === 'a.txt')!.mode = 0o100755;
      expect(listingsOf([tree], a).size).toBe(0);
    });

    it('leaves out a listing with an entry listed twice', () => {
      const a = copy();
      top(a).entries.push({ ...top(a).entries[0]! });
      expect(listingsOf([tree], a).size).toBe(0);
    });

    it('keeps the parent but not a child whose nested listing was changed', () => {
      const a = copy();
      const d = top(a).entries.find((e) => e.name === 'd')!;
      d.object!.entries = d.object!.entries.filter((e) => e.name !== 'x.txt');
      const listings = listingsOf([tree], a);
      expect(listings.has(tree)).toBe(true);
      expect(listings.has(sub)).toBe(false);
    });
  });
});
