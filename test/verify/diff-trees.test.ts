import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diffTrees } from '../../src/verify/index.js';
import { commitToBare, seedRepo, startFakeGithub } from '@perimeter/fake-github';
import { createOctokitUpstream } from '../../src/github/octokit/octokit-upstream.js';
import { plumbCommit, startStandIn, TOKEN, type StandIn } from '@perimeter/test-rigs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let s: StandIn;
beforeAll(async () => {
  s = await startStandIn({
    'README.md': 'readme\n',
    'run.sh': '#!/bin/sh\n',
    'src/a.ts': 'a\n',
    'src/old-name.ts': 'moving\n',
    'src/deep/x/y.ts': 'y\n',
    'gone/one.txt': '1',
    'gone/sub/two.txt': '2',
    'becomes-dir': 'file for now',
  });
});
afterAll(() => s.stop());

const treeOf = async (sha: string) => (await s.upstream().getCommit(sha)).tree;

describe('diffTrees', () => {
  describe('when files are added, modified, deleted, renamed and re-moded', () => {
    it('lists each path once, renames as deleted plus added, modes as modified', async () => {
      const head = await plumbCommit(
        s.dir,
        'main',
        {
          'src/a.ts': { mode: '100644', content: 'a changed\n' },
          'run.sh': { mode: '100755', content: '#!/bin/sh\n' },
          'src/old-name.ts': null,
          'src/new-name.ts': { mode: '100644', content: 'moving\n' },
          'gone/one.txt': null,
          'gone/sub/two.txt': null,
          'new/dir/deep/file.txt': { mode: '100644', content: 'n' },
          'src/link': { mode: '120000', content: '../README.md' },
          'vendor/lib': { mode: '160000', sha: 'c'.repeat(40) },
          'becomes-dir': null,
          'becomes-dir/inside.txt': { mode: '100644', content: 'now a dir' },
        },
        { parent: s.seed },
      );
      const changes = await diffTrees(s.upstream(), await treeOf(s.seed), await treeOf(head));
      expect(changes.map((c) => `${c.kind} ${c.path} ${c.oldMode ?? '-'} ${c.newMode ?? '-'}`)).toEqual([
        'deleted becomes-dir 100644 -',
        'added becomes-dir/inside.txt - 100644',
        'deleted gone/one.txt 100644 -',
        'deleted gone/sub/two.txt 100644 -',
        'added new/dir/deep/file.txt - 100644',
        'modified run.sh 100644 100755',
        'modified src/a.ts 100644 100644',
        'added src/link - 120000',
        'added src/new-name.ts - 100644',
        'deleted src/old-name.ts 100644 -',
        'added vendor/lib - 160000',
      ]);
      const modified = changes.find((c) => c.path === 'src/a.ts')!;
      expect(modified.oldSha).not.toBe(modified.newSha);
      const mode = changes.find((c) => c.path === 'run.sh')!;
      expect(mode.oldSha).toBe(mode.newSha);
    });

    it('gives the same answer when many subtrees differ and both sides are listed whole', async () => {
      const dirs = ['a1', 'a2', 'a3', 'a4'];
      const base = await plumbCommit(
        s.dir,
        'whole',
        Object.fromEntries(dirs.map((d) => [`${d}/f.txt`, { mode: '100644', content: d }])),
        { parent: s.seed },
      );
      const head = await plumbCommit(s.dir, 'whole', {
        ...Object.fromEntries(dirs.map((d) => [`${d}/f.txt`, { mode: '100644', content: `${d}!` }])),
        'a1/f.txt': { mode: '120000', content: '/etc/passwd' },
        'a2/f.txt': { mode: '100755', content: 'a2' },
        'src/deep/x/y.ts': { mode: '160000', sha: 'c'.repeat(40) },
        'gone/sub/two.txt': null,
        'gone/sub': { mode: '100644', content: 'now a file' },
      });
      const up = s.upstream();
      const changes = await diffTrees(up, await treeOf(base), await treeOf(head), undefined, {
        prefetch: false,
      });
      // with every listing brought in batched reads first: the same, and no REST listing
      const treesBefore = s.fake.stats().byRoute['GET /repos/{owner}/{repo}/git/trees/{sha}'] ?? 0;
      const batched = s.upstream();
      expect(await diffTrees(batched, await treeOf(base), await treeOf(head))).toEqual(changes);
      expect(s.fake.stats().byRoute['GET /repos/{owner}/{repo}/git/trees/{sha}'] ?? 0).toBe(treesBefore);
      expect(changes.map((c) => `${c.kind} ${c.path} ${c.oldMode ?? '-'} ${c.newMode ?? '-'}`)).toEqual([
        'modified a1/f.txt 100644 120000',
        'modified a2/f.txt 100644 100755',
        'modified a3/f.txt 100644 100644',
        'modified a4/f.txt 100644 100644',
        'added gone/sub - 100644',
        'deleted gone/sub/two.txt 100644 -',
        'modified src/deep/x/y.ts 100644 160000',
      ]);
      // the two roots, then the same two listed recursively
      expect(up.stats().requests).toBe(2 + 2);
    });

    it('is empty for identical trees and lists everything from an empty base', async () => {
      const tree = await treeOf(s.seed);
      const up = s.upstream();
      expect(await diffTrees(up, tree, tree)).toEqual([]);
      expect(up.stats().requests).toBe(0);
      const all = await diffTrees(up, null, tree);
      expect(all.map((c) => c.path)).toContain('gone/sub/two.txt');
      expect(all.every((c) => c.kind === 'added')).toBe(true);
    });

    it('treats a directory turned into a file as its files deleted and the file added', async () => {
      const head = await plumbCommit(
        s.dir,
        'main',
        { 'gone/one.txt': null, 'gone/sub/two.txt': null, gone: { mode: '100644', content: 'file' } },
        { parent: s.seed },
      );
      const changes = await diffTrees(s.upstream(), await treeOf(s.seed), await treeOf(head));
      expect(changes.map((c) => `${c.kind} ${c.path}`)).toEqual([
        'added gone',
        'deleted gone/one.txt',
        'deleted gone/sub/two.txt',
      ]);
    });
  });
});

describe('diffTrees request economy', () => {
  /** A repository of `packages` × 10 modules × `files` files, three directories deep. */
  function layout(packages: number, files: number): Record<string, string> {
    const out: Record<string, string> = {};
    for (let p = 0; p < packages; p++)
      for (let m = 0; m < 10; m++)
        for (let f = 0; f < files; f++)
          out[`pkg${p}/src/mod${m}/file${f}.ts`] = `export const v = ${p * 1000 + m * 100 + f};\n`;
    return out;
  }

  async function measure(
    files: Record<string, string>,
    edits: Record<string, string | null>,
    treeEntryLimit?: number,
    graphqlRateLimit?: number,
  ) {
    const root = await mkdtemp(join(tmpdir(), 'perimeter-diff-'));
    const dir = join(root, 'big.git');
    const base = await seedRepo(dir, files);
    const head = await commitToBare(dir, 'main', edits);
    const fake = await startFakeGithub({
      repos: { 'octo/big': dir },
      token: TOKEN,
      ...(treeEntryLimit ? { treeEntryLimit } : {}),
      ...(graphqlRateLimit !== undefined ? { graphqlRateLimit } : {}),
    });
    try {
      const warm = createOctokitUpstream({ token: TOKEN, owner: 'octo', repo: 'big', baseUrl: fake.url });
      const [baseTree, headTree] = [(await warm.getCommit(base)).tree, (await warm.getCommit(head)).tree];
      const cold = createOctokitUpstream({ token: TOKEN, owner: 'octo', repo: 'big', baseUrl: fake.url });
      const before = fake.stats().total;
      // the walk as an Upstream without batched reads first makes it
      const changes = await diffTrees(cold, baseTree, headTree, undefined, { prefetch: false });
      const walked = { changes, requests: fake.stats().total - before, own: cold.stats().requests };
      const hinted = createOctokitUpstream({ token: TOKEN, owner: 'octo', repo: 'big', baseUrl: fake.url });
      const start = fake.stats().total;
      const { files } = await hinted.compare(base, head);
      const viaHint = await diffTrees(hinted, baseTree, headTree, files, { prefetch: false });
      expect(viaHint).toEqual(changes);
      const batched = createOctokitUpstream({ token: TOKEN, owner: 'octo', repo: 'big', baseUrl: fake.url });
      const first = fake.stats();
      expect(await diffTrees(batched, baseTree, headTree, files)).toEqual(changes);
      const last = fake.stats();
      return {
        ...walked,
        hinted: fake.stats().total - start - (last.total - first.total),
        batched: {
          rest:
            last.total -
            first.total -
            ((last.byRoute['POST /graphql'] ?? 0) - (first.byRoute['POST /graphql'] ?? 0)),
          graphql: (last.byRoute['POST /graphql'] ?? 0) - (first.byRoute['POST /graphql'] ?? 0),
        },
      };
    } finally {
      await fake.stop();
      await rm(root, { recursive: true, force: true });
    }
  }

  const tenIn = (dirs: number): Record<string, string> =>
    Object.fromEntries(
      Array.from({ length: 10 }, (_, i) => [`pkg${i % dirs}/src/mod3/file${i}.ts`, `changed ${i}\n`]),
    );

  it('spends requests on changed directories, not on repository size', async () => {
    const small = await measure(layout(5, 20), tenIn(1)); // 1,000 files
    const large = await measure(layout(25, 20), tenIn(1)); // 5,000 files
    expect(large.changes).toHaveLength(10);
    expect(large.changes.every((c) => c.kind === 'modified')).toBe(true);
    // root, pkg0, pkg0/src, pkg0/src/mod3: two trees each
    expect(large.requests).toBe(8);
    expect(large.own).toBe(8);
    expect(small.requests).toBe(large.requests);

    const spread = await measure(layout(25, 20), tenIn(10));
    expect(spread.changes).toHaveLength(10);
    // the root, then (ten differing packages) the root again, both sides listed recursively
    expect(spread.requests).toBe(2 + 2);
    // with the compare's file list: the compare, the base root, each changed package listed recursively
    expect(spread.hinted).toBe(1 + 1 + 10);
    expect(large.hinted).toBe(1 + 1 + 1);
    // in batched reads: no REST request, a GraphQL call for each two levels of depth (four levels here)
    for (const m of [small, large, spread]) expect(m.batched).toEqual({ rest: 0, graphql: 2 });
  });

  it('reads both sides of many differing subtrees in one batched call when the recursive listing is truncated', async () => {
    const spread = await measure(layout(25, 20), tenIn(10), 100);
    expect(spread.changes.map((c) => c.path).sort()).toEqual(Object.keys(tenIn(10)).sort());
    // the root, its truncated recursive listings; then the 20 differing packages (both sides) in one
    // GraphQL call of 20 aliases, three levels deep (package, src, module): each listing hashed to its SHA
    expect(spread.requests).toBe(2 + 2 + 1);
  });

  it('walks package by package by REST when GraphQL is refused', async () => {
    const spread = await measure(layout(25, 20), tenIn(10), 100, 0);
    expect(spread.changes.map((c) => c.path).sort()).toEqual(Object.keys(tenIn(10)).sort());
    // the refused GraphQL call (RATE_LIMITED, not tried again); the root, its truncated recursive
    // listings; then per package its two truncated recursive listings, which prove the package's own
    // listing and its changed module (their entries hash to their SHAs), and the two listings of
    // pkgN/src, the one directory they cut
    expect(spread.requests).toBe(1 + 2 + 2 + 10 * (2 + 2));
  });

  it('lists a new directory directory by directory when GitHub truncates the recursive listing', async () => {
    const added = Object.fromEntries(
      Array.from({ length: 50 }, (_, i) => [`pkg0/src/new/sub${i % 5}/f${i}.ts`, 'x']),
    );
    const result = await measure(layout(2, 2), added, 20);
    expect(result.changes.map((c) => c.path).sort()).toEqual(Object.keys(added).sort());
    // root, pkg0, pkg0/src (two trees each); the truncated recursive listing, which holds sub0 whole; then
    // new/ and its four other subdirectories
    expect(result.requests).toBe(6 + 1 + 1 + 4);
  });

  it('lists a new directory with one recursive request', async () => {
    const added = Object.fromEntries(
      Array.from({ length: 50 }, (_, i) => [`pkg0/src/new/sub${i % 5}/f${i}.ts`, 'x']),
    );
    const result = await measure(layout(25, 20), added);
    expect(result.changes).toHaveLength(50);
    // root, pkg0, pkg0/src (two trees each) and one recursive listing of the new directory
    expect(result.requests).toBe(7);
  });
});
