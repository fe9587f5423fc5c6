import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOctokitUpstream } from '../../src/github/octokit/octokit-upstream.js';
import type { RepoReads, TreeEntry, Upstream } from '../../src/github/upstream.js';
import { WholeTrees } from '../../src/github/whole-tree.js';
import { type FakeGithub, gitText, seedRepo, startFakeGithub } from '@perimeter/fake-github';

const TOKEN = 'ghs_WholeTreeToken0123456789abcdefghijklm';
const TREES = 'GET /repos/{owner}/{repo}/git/trees/{sha}';
const GRAPHQL = 'POST /graphql';

/** top{t}/sub{s}/f{i}.txt: `tops` directories of 3 subdirectories of 10 files, and two root files */
function layout(tops: number): Record<string, string> {
  const files: Record<string, string> = { 'a.txt': 'a\n', 'z.txt': 'z\n' };
  for (let t = 0; t < tops; t++)
    for (let s = 0; s < 3; s++)
      for (let i = 0; i < 10; i++) files[`top${t}/sub${s}/f${i}.txt`] = `${t}.${s}.${i}\n`;
  return files;
}

const shape = (entries: TreeEntry[]) => entries.map((e) => `${e.mode} ${e.type} ${e.sha} ${e.path}`).sort();

describe('WholeTrees', () => {
  let root: string;
  let dir: string;
  let git: (args: string[]) => Promise<string>;
  let rootTree: string;
  let whole: TreeEntry[];
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'perimeter-whole-'));
    dir = join(root, 'big.git');
    await seedRepo(dir, layout(12));
    git = (args) => gitText(dir, args);
    rootTree = (await git(['rev-parse', 'main^{tree}'])).trim();
    const fake = await startFakeGithub({ repos: { 'octo/big': dir }, token: TOKEN });
    try {
      whole = (await upstreamOf(fake).getTreeRecursive(rootTree)).entries;
    } finally {
      await fake.stop();
    }
  });
  afterAll(async () => rm(root, { recursive: true, force: true }));

  const upstreamOf = (fake: FakeGithub): Upstream =>
    createOctokitUpstream({ token: TOKEN, owner: 'octo', repo: 'big', baseUrl: fake.url, retryBaseMs: 1 });

  async function withCap(limits: {
    treeEntryLimit?: number;
    treeByteLimit?: number;
    graphqlRateLimit?: number;
  }) {
    const fake = await startFakeGithub({ repos: { 'octo/big': dir }, token: TOKEN, ...limits });
    return {
      fake,
      trees: new WholeTrees(upstreamOf(fake)),
      requests: () => fake.stats().byRoute[TREES] ?? 0,
      batched: () => fake.stats().byRoute[GRAPHQL] ?? 0,
    };
  }

  /** The top directories a listing cut at 12,000 bytes holds whole (entries in git's order, ~190 bytes each). */
  async function wholeTopsOf(fake: FakeGithub): Promise<Set<string>> {
    const api = await fetch(`${fake.url}/repos/octo/big/git/trees/${rootTree}?recursive=1`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const paths = ((await api.json()) as { tree: Array<{ path: string }> }).tree.map((e) => e.path);
    const last = paths.at(-1)!.split('/')[0]!;
    return new Set(paths.map((p) => p.split('/')[0]!).filter((t) => t.startsWith('top') && t !== last));
  }

  describe('when the recursive listing is whole', () => {
    it('lists the tree with that one request', async () => {
      const { fake, trees, requests } = await withCap({});
      try {
        expect(shape(await trees.list(rootTree))).toEqual(shape(whole));
        expect(requests()).toBe(1);
        expect(trees.wasTruncated(rootTree)).toBe(false);
      } finally {
        await fake.stop();
      }
    });
  });

  describe('when GitHub cuts the listing at its byte cap', () => {
    it('keeps the directories the cut listing holds whole and reads the others in one batched call', async () => {
      const { fake, trees, requests, batched } = await withCap({ treeByteLimit: 12_000 });
      try {
        expect(await trees.once(rootTree)).toBeNull();
        expect(shape(await trees.list(rootTree))).toEqual(shape(whole));
        // the cut listing and the root plainly; the other top directories in one GraphQL call
        expect([requests(), batched()]).toEqual([2, 1]);
        expect((await wholeTopsOf(fake)).size).toBeGreaterThan(0);
        expect(trees.wasTruncated(rootTree)).toBe(true);
      } finally {
        await fake.stop();
      }
    });

    it('lists the others recursively by REST when GraphQL is refused', async () => {
      const { fake, trees, requests, batched } = await withCap({
        treeByteLimit: 12_000,
        graphqlRateLimit: 0,
      });
      try {
        expect(await trees.once(rootTree)).toBeNull();
        expect(shape(await trees.list(rootTree))).toEqual(shape(whole));
        const wholeTops = await wholeTopsOf(fake);
        expect(wholeTops.size).toBeGreaterThan(0);
        // the cut listing, the root plainly, then each top directory it did not hold whole, recursively
        // (and wholeTopsOf's own listing)
        expect(requests()).toBe(1 + 1 + (12 - wholeTops.size) + 1);
        expect(batched()).toBe(1);
      } finally {
        await fake.stop();
      }
    });

    it('goes deeper only where a child is truncated too', async () => {
      // 25 entries: no top directory (34 entries) comes whole
      const { fake, trees, requests, batched } = await withCap({ treeEntryLimit: 25, graphqlRateLimit: 0 });
      try {
        expect(shape(await trees.list(rootTree))).toEqual(shape(whole));
        // root recursive (cut) and plain; each top recursively, cut after sub2/f1 but holding the top's
        // own listing and sub0 and sub1 whole (their entries hash to their SHAs); then each sub2
        const perTop = 1 + 1;
        expect(requests()).toBe(2 + 12 * perTop);
        expect(batched()).toBe(1);
      } finally {
        await fake.stop();
      }
    });

    it('reads what lies deeper than one batched call reaches in another, round by round', async () => {
      // four chains six directories deep: the first call brings three levels, the second the rest
      const deepDir = join(root, 'deep.git');
      const files: Record<string, string> = {};
      for (let i = 0; i < 4; i++)
        for (let f = 0; f < 3; f++) files[`a${i}/b/c/d/e/g/f${f}.txt`] = `${i}.${f}\n`;
      await seedRepo(deepDir, files);
      const deepTree = (await gitText(deepDir, ['rev-parse', 'main^{tree}'])).trim();
      const fake = await startFakeGithub({ repos: { 'octo/big': deepDir }, token: TOKEN, treeEntryLimit: 5 });
      try {
        const reference = await startFakeGithub({ repos: { 'octo/big': deepDir }, token: TOKEN });
        const all = (await upstreamOf(reference).getTreeRecursive(deepTree)).entries;
        await reference.stop();
        const listed = await new WholeTrees(upstreamOf(fake)).list(deepTree);
        expect(shape(listed)).toEqual(shape(all));
        const routes = fake.stats().byRoute;
        // the root cut and plainly; a0..a3 three levels down (to d); then the four d's (e, g, files)
        expect([routes[TREES], routes[GRAPHQL]]).toEqual([2, 2]);
      } finally {
        await fake.stop();
      }
    });

    it('lists a later root plainly first and reuses every unchanged directory', async () => {
      const { fake, trees, requests } = await withCap({ treeByteLimit: 12_000 });
      try {
        await trees.list(rootTree);
        const before = requests();
        await trees.list(rootTree, { plainFirst: true });
        expect(requests()).toBe(before);
      } finally {
        await fake.stop();
      }
    });
  });

  describe('when a truncated listing leaves out an entry of a directory it seems to hold whole', () => {
    it('does not take that directory from it', async () => {
      // A listing cut short after top1, with top0/sub1/f3.txt missing: by order top0 looks whole.
      const fake = await startFakeGithub({ repos: { 'octo/big': dir }, token: TOKEN });
      try {
        const real = upstreamOf(fake);
        const forged: RepoReads = Object.create(real);
        forged.getTreeRecursive = async (sha) => {
          const listing = await real.getTreeRecursive(sha);
          if (sha !== rootTree) return listing;
          const cut = listing.entries.filter((e) => e.path < 'top2' && e.path !== 'top0/sub1/f3.txt');
          return { entries: cut, truncated: true };
        };
        const listed = await new WholeTrees(forged).list(rootTree);
        expect(listed.map((e) => e.path)).toContain('top0/sub1/f3.txt');
        expect(shape(listed)).toEqual(shape(whole));
      } finally {
        await fake.stop();
      }
    });
  });
});
