import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitToBare, gitText } from '@perimeter/fake-github';
import { call, ok, startHarness, type Harness } from '@perimeter/test-rigs';

const CONFIG = `
version: 1
perimeters:
  implementer:
    read: ["src/**", "docs/**"]
    write: ["src/**"]
`;

const GRAPHQL = 'POST /graphql';
const TREES = 'GET /repos/{owner}/{repo}/git/trees/{sha}';
const COMMIT_FILES = 'GET /repos/{owner}/{repo}/commits/{ref}';

interface Changed {
  files: Array<{ path: string; status: string; sha?: string; previous_sha?: string }>;
  omitted_count: number;
}
type Listing = { commits: Array<{ sha: string }>; has_more: boolean };

/** A deterministic spread of paths: up to `depth` directories, readable (src, docs) and hidden (secret). */
function widePaths(count: number, depth: number, seed: number): string[] {
  let x = seed;
  const next = (n: number) => ((x = (x * 1103515245 + 12345) % 2 ** 31), x % n);
  const tops = ['src', 'docs', 'secret'];
  return Array.from({ length: count }, (_, i) => {
    const dirs = [tops[next(3)]!, ...Array.from({ length: next(depth) }, () => `d${next(4)}`)];
    return `${dirs.join('/')}/f${seed}-${i}.txt`;
  });
}

const readable = (path: string) => path.startsWith('src/') || path.startsWith('docs/');

/** What the commit changed against its first parent, as git says (the ground truth), split by readability. */
async function groundTruth(dir: string, sha: string): Promise<{ shown: string[]; omitted: number }> {
  const parents = (await gitText(dir, ['rev-list', '--parents', '-n', '1', sha])).trim().split(' ');
  const base = parents[1] ?? '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
  const lines = (await gitText(dir, ['diff-tree', '-r', '--no-renames', '--name-status', base, sha]))
    .trim()
    .split('\n')
    .filter(Boolean);
  const word: Record<string, string> = { A: 'added', M: 'modified', D: 'deleted' };
  const all = lines.map((line) => {
    const [letter, path] = line.split('\t') as [string, string];
    return `${word[letter[0]!] ?? letter} ${path}`;
  });
  const shown = all.filter((c) => readable(c.slice(c.indexOf(' ') + 1))).sort();
  return { shown, omitted: all.length - shown.length };
}

const summary = (answer: Changed) => answer.files.map((f) => `${f.status} ${f.path}`).sort();

/**
 * Wide commits (120 and 700 files, up to eight directories deep) and merges: get_commit diffs them in a
 * few batched GraphQL calls, never a REST tree listing or file list, and answers what git's own diff says.
 */
describe('get_commit and list_commits over wide commits and merges', () => {
  let h: Harness;
  let client: Client;
  const shas: Record<string, string> = {};

  beforeAll(async () => {
    const base: Record<string, string> = {};
    for (const path of widePaths(400, 8, 1)) base[path] = `${path}\n`;
    h = await startHarness({ files: base, config: CONFIG });
    const old = Object.keys(base);
    const wide = (n: number, seed: number): Record<string, string | null> => {
      const files: Record<string, string | null> = {};
      for (const path of widePaths(n, 8, seed)) files[path] = `${seed}\n`;
      // changes and deletions of files already there
      for (let i = seed; i < old.length; i += 9) files[old[i]!] = i % 2 ? null : `changed ${seed}\n`;
      return files;
    };
    shas.wide120 = await commitToBare(h.repoDir, 'main', wide(76, 2), 'a wide commit');
    shas.wide700 = await commitToBare(h.repoDir, 'main', wide(655, 3), 'a very wide commit');
    await gitText(h.repoDir, ['branch', 'side', shas.wide120]);
    const side = await commitToBare(h.repoDir, 'side', wide(150, 4), 'side work');
    const tree = (await gitText(h.repoDir, ['rev-parse', `${side}^{tree}`])).trim();
    shas.merge = (
      await gitText(h.repoDir, ['commit-tree', tree, '-p', shas.wide700, '-p', side, '-m', 'merge side'])
    ).trim();
    await gitText(h.repoDir, ['update-ref', 'refs/heads/main', shas.merge]);
    for (let i = 0; i < 40; i++)
      await commitToBare(h.repoDir, 'main', { [widePaths(1, 6, 10 + i)[0]!]: `${i}\n` }, `small ${i}`);
    client = await h.connect('implementer');
  });
  afterAll(async () => h.close());

  for (const [name, files] of [
    ['wide120', 'a commit of over 100 files'],
    ['wide700', 'a commit of about 700 files'],
    ['merge', 'a merge, against its first parent'],
  ] as const) {
    it(`answers ${files} in at most 6 requests, as git diffs it`, async () => {
      const sha = shas[name]!;
      const truth = await groundTruth(h.repoDir, sha);
      expect(truth.shown.length + truth.omitted).toBeGreaterThan(name === 'wide700' ? 600 : 100);
      h.fake.resetStats();
      const answer = await ok<Changed>(client, 'get_commit', { sha });
      const stats = h.fake.stats();
      // the ref, the reachability check, the file list (not for a merge: GitHub's is not against the first
      // parent), the commit's trees and its parent's, deeper trees where they differ
      expect(stats.total).toBeLessThanOrEqual(6);
      expect(stats.total - (stats.byRoute[GRAPHQL] ?? 0)).toBeLessThanOrEqual(name === 'merge' ? 2 : 3);
      expect(stats.byRoute[TREES] ?? 0).toBe(0);
      expect(summary(answer)).toEqual(truth.shown);
      expect(answer.omitted_count).toBe(truth.omitted);
    });
  }

  it('lists the whole branch a page at a time in a few requests, no file list per commit', async () => {
    const fresh = await h.connect('implementer');
    const expected: string[] = [];
    for (const sha of (await gitText(h.repoDir, ['rev-list', 'main'])).trim().split('\n')) {
      const changed = await gitText(h.repoDir, [
        'diff-tree',
        '--root',
        '-m',
        '--first-parent',
        '-r',
        '--name-only',
        '--no-commit-id',
        sha,
      ]);
      if (changed.split('\n').some(readable)) expected.push(sha);
    }
    const listed: string[] = [];
    for (const page of [1, 2]) {
      h.fake.resetStats();
      const listing = await ok<Listing>(fresh, 'list_commits', { per_page: 20, page });
      const stats = h.fake.stats();
      expect(stats.total).toBeLessThanOrEqual(5);
      expect(stats.byRoute[COMMIT_FILES] ?? 0).toBe(0);
      listed.push(...listing.commits.map((c) => c.sha));
    }
    expect(listed).toEqual(expected.slice(0, 40));
  });

  describe('when GraphQL is refused', () => {
    let refused: Harness;
    beforeAll(async () => {
      refused = await startHarness({ files: { 'README.md': 'x\n' }, config: CONFIG, graphqlRateLimit: 0 });
      // the same history, the same SHAs
      await gitText(refused.repoDir, ['fetch', '-q', h.repoDir, '+refs/heads/main:refs/heads/main']);
    });
    afterAll(async () => refused.close());

    it('answers the same from REST, and spends no GraphQL points', async () => {
      const rest = await refused.connect('implementer');
      const graphql = await h.connect('implementer');
      for (const sha of Object.values(shas))
        expect(await ok<Changed>(rest, 'get_commit', { sha })).toEqual(
          await ok<Changed>(graphql, 'get_commit', { sha }),
        );
      for (const page of [1, 2, 3])
        expect(await ok<Listing>(rest, 'list_commits', { per_page: 20, page })).toEqual(
          await ok<Listing>(graphql, 'list_commits', { per_page: 20, page }),
        );
      expect(refused.fake.stats().graphqlPoints).toBe(0);
      expect(refused.fake.stats().byRoute[COMMIT_FILES]).toBeGreaterThan(0);
    });

    it('still answers a hidden-only commit as absent', async () => {
      const hidden = await commitToBare(h.repoDir, 'main', { 'secret/only.txt': 'x\n' }, 'hidden');
      await gitText(refused.repoDir, ['fetch', '-q', h.repoDir, '+refs/heads/main:refs/heads/main']);
      for (const harness of [h, refused]) {
        const result = await call(await harness.connect('implementer'), 'get_commit', { sha: hidden });
        expect(result.isError).toBe(true);
      }
    });
  });
});
