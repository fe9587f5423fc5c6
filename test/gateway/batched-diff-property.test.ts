import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { differsWhere, prefetchDiff } from '../../src/github/batched-diff.js';
import { changedPaths } from '../../src/gateway/reads/changed-paths.js';
import { diffTrees } from '../../src/verify/index.js';
import { createOctokitUpstream } from '../../src/github/octokit/octokit-upstream.js';
import { commitToBare, gitText, seedRepo, startFakeGithub, type FakeGithub } from '@perimeter/fake-github';

const TOKEN = 'ghs_BatchedDiffProperty0123456789abcdefgh';
const TREES = 'GET /repos/{owner}/{repo}/git/trees/{sha}';
const SEGMENTS = ['a', 'b', 'c', 'src', 'x.txt', 'y.md'];

const pathArb = fc
  .array(fc.constantFrom(...SEGMENTS), { minLength: 1, maxLength: 7 })
  .map((segments) => segments.join('/'));
const filesArb = fc.dictionary(pathArb, fc.constantFrom('1\n', '2\n', '3\n'), { maxKeys: 30 });

/** Drops paths that run through another path (a file where a directory must be): git cannot hold both. */
function tree(files: Record<string, string | null>): Record<string, string> {
  const out: Record<string, string> = {};
  const paths = Object.keys(files)
    .filter((p) => files[p] !== null)
    .sort();
  for (const path of paths)
    if (!Object.keys(out).some((other) => path.startsWith(`${other}/`) || other.startsWith(`${path}/`)))
      out[path] = files[path]!;
  return out;
}

/**
 * The batched diff (prefetchDiff, then changedPaths from the listings it brought) against the ground truth,
 * `git diff-tree -r` on the real repository, over random pairs of trees up to seven levels deep: the same
 * changes, with no REST tree listing, for the gateway's answer and for the verifier's complete diff; and
 * differsWhere's verdict is whether any of them is wanted.
 */
describe('the batched diff', () => {
  let root: string;
  let dir: string;
  let fake: FakeGithub;
  let current: Record<string, string> = {};

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'perimeter-batched-diff-'));
    dir = join(root, 'r.git');
    await seedRepo(dir, { 'seed.txt': 'seed\n' });
    current = { 'seed.txt': 'seed\n' };
    fake = await startFakeGithub({ repos: { 'octo/r': dir }, token: TOKEN });
  });
  afterAll(async () => {
    await fake.stop();
    await rm(root, { recursive: true, force: true });
  });

  /** A commit whose tree is exactly `files`. */
  async function commitTree(files: Record<string, string>): Promise<string> {
    const changes: Record<string, string | null> = { ...files };
    for (const path of Object.keys(current)) if (!(path in files)) changes[path] = null;
    current = files;
    const sha = await commitToBare(dir, 'main', changes, 'state');
    return (await gitText(dir, ['rev-parse', `${sha}^{tree}`])).trim();
  }

  it('equals git diff-tree on random trees', async () => {
    await fc.assert(
      fc.asyncProperty(filesArb, filesArb, fc.constantFrom(2, 3), async (before, after, levels) => {
        const a = await commitTree(tree(before));
        const b = await commitTree(tree(after));
        const truth = (await gitText(dir, ['diff-tree', '-r', '--no-renames', '--name-status', a, b]))
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((line) => {
            const [letter, path] = line.split('\t') as [string, string];
            return `${{ A: 'added', M: 'modified', D: 'deleted' }[letter] ?? letter} ${path}`;
          })
          .sort();
        const upstream = createOctokitUpstream({ token: TOKEN, owner: 'octo', repo: 'r', baseUrl: fake.url });
        const listedBefore = fake.stats().byRoute[TREES] ?? 0;
        expect(await prefetchDiff(upstream, [{ base: a, head: b }], { levels })).toBe(true);
        const changes = await changedPaths(upstream, a, b);
        expect((fake.stats().byRoute[TREES] ?? 0) - listedBefore).toBe(0);
        expect(changes.map((c) => `${c.status} ${c.path}`).sort()).toEqual(truth);
        // the verifier's complete diff, from listings brought in batched reads: the same, no REST listing
        const verifier = createOctokitUpstream({ token: TOKEN, owner: 'octo', repo: 'r', baseUrl: fake.url });
        const verified = await diffTrees(verifier, a, b);
        expect((fake.stats().byRoute[TREES] ?? 0) - listedBefore).toBe(0);
        expect(verified.map((c) => `${c.kind} ${c.path}`).sort()).toEqual(truth);
        const wanted = (path: string) => path.split('/').includes('src');
        const verdict = await differsWhere(upstream, [{ key: 'k', prefix: '', base: a, head: b }], wanted);
        expect(verdict.get('k')).toBe(truth.some((c) => wanted(c.slice(c.indexOf(' ') + 1))));
        // below one folder only, not descending elsewhere (as a perimeter's readable directories)
        const below = (path: string) => path === 'src' || path.startsWith('src/');
        const pruned = await differsWhere(upstream, [{ key: 'k', prefix: '', base: a, head: b }], below, {
          descendInto: below,
        });
        expect(pruned.get('k')).toBe(truth.some((c) => below(c.slice(c.indexOf(' ') + 1))));
      }),
      { numRuns: 40, examples: [[{}, {}, 2]] },
    );
  });
});
