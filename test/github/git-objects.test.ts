import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git, gitText, seedRepo } from '@perimeter/fake-github';
import { blobSha, commitSha, encodeCommit, listingTreeSha, treeSha } from '../../src/github/git-objects.js';
import type { TreeEntry } from '../../src/github/upstream.js';

const sha = fc.stringMatching(/^[0-9a-f]{40}$/);
// short names over few characters, those below "/" included, so one name is often a prefix of another: the
// case where git's order (a tree's name read as if it ended in "/") differs from plain byte order
const name = fc
  .oneof(fc.stringMatching(/^[a.\- 0]{1,3}$/), fc.stringMatching(/^[A-Za-z0-9._ -]{1,12}$/))
  .filter((n) => n !== '.' && n !== '..');
const entry: fc.Arbitrary<TreeEntry> = fc.oneof(
  fc.record({
    path: name,
    mode: fc.constantFrom('100644', '100755', '120000'),
    type: fc.constant('blob' as const),
    sha,
  }),
  fc.record({ path: name, mode: fc.constant('040000'), type: fc.constant('tree' as const), sha }),
  fc.record({ path: name, mode: fc.constant('160000'), type: fc.constant('commit' as const), sha }),
);
const entries = fc.uniqueArray(entry, { selector: (e) => e.path, minLength: 1, maxLength: 8 });

describe("git's object SHAs, made in the runner", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'git-objects-'));
    await git(dir, ['init', '-q', '--bare']);
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('gives a blob the SHA git hash-object gives it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 300 }), async (bytes) => {
        const expected = (await gitText(dir, ['hash-object', '--stdin'], { input: bytes })).trim();
        expect(blobSha(bytes)).toBe(expected);
      }),
      { numRuns: 25 },
    );
  });

  it('gives a tree the SHA git mktree gives it, whatever order the entries come in', async () => {
    await fc.assert(
      fc.asyncProperty(entries, async (list) => {
        const input = list.map((e) => `${e.mode} ${e.type} ${e.sha}\t${e.path}\n`).join('');
        const expected = (await gitText(dir, ['mktree', '--missing'], { input })).trim();
        expect(listingTreeSha(list)).toBe(expected);
        // by name: what an entry says its path is (a full path, in a recursive listing) is not read
        const byName = new Map(list.map((e) => [e.path, { ...e, path: `elsewhere/${e.path}` }]));
        expect(treeSha(byName)).toBe(expected);
      }),
      { numRuns: 40 },
    );
  });

  it("gives a repository's trees and blobs the SHAs git gave them", async () => {
    const root = await mkdtemp(join(tmpdir(), 'git-objects-seeded-'));
    const repo = join(root, 'r.git');
    try {
      await seedRepo(repo, {
        'b.txt': 'b\n',
        'a/x.txt': 'x\n',
        'a.txt': 'a\n',
        'a-b/y': 'y',
        'a/b/c.txt': 'c',
      });
      for (const tree of ['main^{tree}', 'main:a']) {
        const sha = (await gitText(repo, ['rev-parse', tree])).trim();
        const listed = (await gitText(repo, ['ls-tree', sha])).trim().split('\n');
        const entries = new Map(
          listed.map((line) => {
            const [meta, name] = line.split('\t');
            const [mode, type, id] = meta!.split(' ');
            return [name!, { mode: mode!, type: type as TreeEntry['type'], sha: id! }];
          }),
        );
        expect(treeSha(entries)).toBe(sha);
      }
      expect(blobSha(Buffer.from('b\n'))).toBe((await gitText(repo, ['rev-parse', 'main:b.txt'])).trim());
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('gives an unsigned commit the SHA git gives the same object', async () => {
    const signature = fc.record({
      name: fc.stringMatching(/^[A-Za-z][A-Za-z .[\]-]{0,20}$/),
      email: fc.stringMatching(/^[a-z0-9+.]{1,10}@[a-z]{1,8}\.com$/),
      date: fc.integer({ min: 0, max: 4_000_000_000 }).map((s) => new Date(s * 1000).toISOString()),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          tree: sha,
          parents: fc.array(sha, { maxLength: 2 }),
          message: fc.string({ minLength: 1, maxLength: 60 }),
          author: signature,
          committer: signature,
        }),
        async (commit) => {
          const input = encodeCommit(commit);
          const expected = (await gitText(dir, ['hash-object', '-t', 'commit', '--stdin'], { input })).trim();
          expect(commitSha(commit)).toBe(expected);
          const shown = await gitText(dir, ['hash-object', '-t', 'commit', '-w', '--stdin'], { input });
          expect(await gitText(dir, ['cat-file', 'commit', shown.trim()])).toBe(input.toString('utf8'));
        },
      ),
      { numRuns: 25 },
    );
  });
});
