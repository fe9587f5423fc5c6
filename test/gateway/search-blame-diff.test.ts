/**
 * search, blame and diff against the GitHub stand-in with the real secret filter: what they answer, that
 * they read hidden files never, that they decide on the text as get_file shows it (a hidden value neither
 * matches nor changes a line), and that they read every blob they need in one go.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitToBare } from '@perimeter/fake-github';
import {
  call,
  fill,
  ok,
  plumbCommit,
  providerSamples,
  startHarness,
  textOf,
  type Harness,
} from '@perimeter/test-rigs';
import { createSecretFilter } from '../../src/safety/index.js';

const CONFIG = `
version: 1
perimeters:
  dev:
    read: ["src/**", "docs/**"]
    write: ["src/**"]
`;
const TOKEN = providerSamples().find((s) => s.kind === 'GitHub token')!.value;

interface Hit {
  path: string;
  line: number;
  text: string;
  before?: string[];
  after?: string[];
}
interface SearchAnswer {
  matches: Hit[];
  files_searched: number;
  truncated: boolean;
  files_not_searched: Array<{ path: string; note: string }>;
}

describe('search, blame and diff', () => {
  let h: Harness;
  let dev: Client;
  let first: string;
  let second: string;
  let hiddenOnly: string;

  beforeAll(async () => {
    h = await startHarness({
      config: CONFIG,
      filter: createSecretFilter(),
      files: {
        'src/widget.ts': 'export function widget() {\n  return 1;\n}\n',
        'src/config.ts': `const token = "${TOKEN}";\nexport const region = "eu";\n`,
        'src/logo.bin': Uint8Array.from([0, 1, 2, 0, 255]),
        'docs/guide.md': '# Guide\nCall widget() once.\n',
        'secret/plan.ts': 'export function widget() { return "hidden plan"; }\n',
        'src/.env': 'WIDGET=hidden\n',
      },
    });
    first = await h.head();
    second = await commitToBare(
      h.repoDir,
      'main',
      { 'src/widget.ts': 'export function widget() {\n  return 2;\n}\n\nexport const more = widget;\n' },
      'widget returns 2',
    );
    hiddenOnly = await commitToBare(h.repoDir, 'main', { 'secret/plan.ts': 'widget v2\n' }, 'hidden only');
    dev = await h.connect('dev');
  });
  afterAll(async () => h.close());

  describe('search', () => {
    it('finds a definition in readable files only, with line numbers and context', async () => {
      const found = await ok<SearchAnswer>(dev, 'search', { pattern: 'function widget', context: 1 });
      expect(found.matches).toEqual([
        {
          path: 'src/widget.ts',
          line: 1,
          text: 'export function widget() {',
          before: [],
          after: ['  return 2;'],
        },
      ]);
      expect(found.files_not_searched).toEqual([
        { path: 'src/logo.bin', note: expect.stringMatching(/^binary file/) as string },
      ]);
    });

    it('takes RE2 regular expressions, case-insensitive when asked', async () => {
      const found = await ok<SearchAnswer>(dev, 'search', {
        pattern: 'WIDGET\\(\\)',
        regex: true,
        case_sensitive: false,
      });
      expect(found.matches.map((m) => `${m.path}:${m.line}`)).toEqual(['docs/guide.md:2', 'src/widget.ts:1']);
    });

    it('refuses a pattern only a backtracking engine runs, and says why', async () => {
      const result = await call(dev, 'search', { pattern: '(a+)\\1', regex: true });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/invalid pattern: .*Backreferences and lookaround are not supported/);
    });

    it('runs a pattern that backtracks exponentially elsewhere in linear time', async () => {
      await commitToBare(h.repoDir, 'main', { 'src/long.txt': `${'a'.repeat(100_000)}!\n` }, 'long line');
      const found = await ok<SearchAnswer>(dev, 'search', {
        pattern: '(a+)+$',
        regex: true,
        path: 'src/long.txt',
      });
      expect(found.matches).toEqual([]);
    });

    it('matches lines as get_file shows them: a secret value neither matches nor is shown', async () => {
      const prefix = await ok<SearchAnswer>(dev, 'search', { pattern: TOKEN.slice(0, 12) });
      expect(prefix.matches).toEqual([]);
      const line = await ok<SearchAnswer>(dev, 'search', { pattern: 'const token' });
      expect(line.matches).toEqual([
        { path: 'src/config.ts', line: 1, text: 'const token = "[hidden: GitHub token]";' },
      ]);
    });

    it('answers a hidden folder as a missing one, reading nothing', async () => {
      h.fake.resetStats();
      const hidden = await ok<SearchAnswer>(dev, 'search', { pattern: 'widget', path: 'secret' });
      const hiddenStats = h.fake.stats().byRoute;
      h.fake.resetStats();
      const missing = await ok<SearchAnswer>(dev, 'search', { pattern: 'widget', path: 'nothing' });
      expect(hidden).toEqual(missing);
      expect(hiddenStats).toEqual(h.fake.stats().byRoute);
      expect(hidden.files_searched).toBe(0);
    });

    it('stops at max_matches and says so', async () => {
      const found = await ok<SearchAnswer>(dev, 'search', { pattern: 'e', max_matches: 2 });
      expect(found.matches).toHaveLength(2);
      expect(found.truncated).toBe(true);
    });
  });

  describe('blame', () => {
    it('owes each line to the commit that last changed it', async () => {
      const blamed = await ok<{
        lines: Array<{ line: number; commit: string; text: string }>;
        commits: Array<{ sha: string }>;
      }>(dev, 'blame', { path: 'src/widget.ts' });
      expect(
        blamed.lines.map((l) => [
          l.line,
          l.commit === first ? 'first' : l.commit === second ? 'second' : l.commit,
        ]),
      ).toEqual([
        [1, 'first'],
        [2, 'second'],
        [3, 'first'],
        [4, 'second'],
        [5, 'second'],
      ]);
      expect(blamed.commits.map((c) => c.sha).sort()).toEqual([first, second].sort());
    });

    it('answers a hidden file as a missing one', async () => {
      const hidden = await call(dev, 'blame', { path: 'secret/plan.ts' });
      const missing = await call(dev, 'blame', { path: 'secret/none.ts' });
      expect(textOf(hidden).replace('plan', 'X')).toBe(textOf(missing).replace('none', 'X'));
      expect(hidden.isError).toBe(true);
    });
  });

  describe('diff', () => {
    it("shows a commit's readable changes as hunks", async () => {
      const shown = await ok<{
        files: Array<{ path: string; status: string; patch?: string }>;
        omitted_count: number;
      }>(dev, 'diff', { sha: second });
      expect(shown.files).toEqual([
        {
          path: 'src/widget.ts',
          status: 'modified',
          patch:
            '@@ -1,3 +1,5 @@\n export function widget() {\n-  return 1;\n+  return 2;\n }\n+\n+export const more = widget;\n',
        },
      ]);
      expect(shown.omitted_count).toBe(0);
    });

    it('compares two commits, counting hidden changes without showing them', async () => {
      const shown = await ok<{ files: Array<{ path: string }>; omitted_count: number; base: string }>(
        dev,
        'diff',
        {
          sha: second,
          base: first,
          path: 'src',
        },
      );
      expect(shown.base).toBe(first);
      expect(shown.files.map((f) => f.path)).toEqual(['src/widget.ts']);
    });

    it('answers a commit that changes hidden files only as an unknown one', async () => {
      const hidden = await call(dev, 'diff', { sha: hiddenOnly });
      const unknown = 'f'.repeat(40);
      const missing = await call(dev, 'diff', { sha: unknown });
      expect(textOf(hidden).replace(hiddenOnly, 'X')).toBe(textOf(missing).replace(unknown, 'X'));
    });
  });
});

/**
 * A submodule is a gitlink in the tree (mode 160000): its SHA names a commit of another repository, which this
 * one does not hold. diff shows it as git diff does, never reading the SHA as a blob, and keeps a hidden one
 * out; on both routes to history (the copy over git, the API alone).
 */
describe.each([
  { route: 'with the history copy', copy: true },
  { route: 'by the API alone', copy: false },
])('diff of a submodule, $route', ({ copy }) => {
  let h: Harness;
  let dev: Client;
  const [x, y, z] = ['x', 'y', 'z'].map((n) => fill(`submodule-${n}`, 40, '0123456789abcdef'));
  let added: string;
  let moved: string;
  let hiddenOnly: string;
  let replaced: string;

  beforeAll(async () => {
    h = await startHarness({
      config: CONFIG,
      files: { 'src/a.ts': 'export const a = 1;\n', 'secret/plan.md': 'plan\n' },
      ...(copy ? { upstream: { history: { dir: tmpdir(), branch: 'main' } } } : {}),
    });
    const link = (sha: string) => ({ mode: '160000' as const, sha });
    added = await plumbCommit(h.repoDir, 'main', { 'src/vendor/lib': link(x!), 'secret/sub': link(x!) });
    moved = await plumbCommit(h.repoDir, 'main', { 'src/vendor/lib': link(y!), 'secret/sub': link(y!) });
    hiddenOnly = await plumbCommit(h.repoDir, 'main', { 'secret/sub': link(z!) });
    replaced = await plumbCommit(h.repoDir, 'main', {
      'src/vendor/lib': { mode: '100644', content: 'vendored\n' },
    });
    dev = await h.connect('dev');
  });
  afterAll(async () => h.close());

  type Shown = { files: Array<Record<string, unknown>>; omitted_count: number };

  it('shows an added and a moved submodule by the commits it points at, a hidden one counted', async () => {
    expect(await ok<Shown>(dev, 'diff', { sha: added })).toMatchObject({
      files: [
        {
          path: 'src/vendor/lib',
          status: 'added',
          submodule: true,
          patch: `@@ -0,0 +1,1 @@\n+Subproject commit ${x}\n`,
        },
      ],
      omitted_count: 1,
    });
    const shown = await ok<Shown>(dev, 'diff', { sha: moved });
    expect(shown.files).toEqual([
      {
        path: 'src/vendor/lib',
        status: 'modified',
        submodule: true,
        patch: `@@ -1,1 +1,1 @@\n-Subproject commit ${x}\n+Subproject commit ${y}\n`,
      },
    ]);
    expect(shown.omitted_count).toBe(1);
    expect(JSON.stringify(shown)).not.toContain('secret/sub');
  });

  it('shows a submodule replaced by a file, and the two commits apart', async () => {
    expect((await ok<Shown>(dev, 'diff', { sha: replaced })).files).toEqual([
      {
        path: 'src/vendor/lib',
        status: 'modified',
        submodule: true,
        patch: `@@ -1,1 +1,1 @@\n-Subproject commit ${y}\n+vendored\n`,
      },
    ]);
    const apart = await ok<Shown>(dev, 'diff', { sha: moved, base: added });
    expect(apart.files.map((f) => f.patch)).toEqual([
      `@@ -1,1 +1,1 @@\n-Subproject commit ${x}\n+Subproject commit ${y}\n`,
    ]);
    expect(apart.omitted_count).toBe(1);
  });

  it('answers a commit that moves a hidden submodule only as an unknown SHA', async () => {
    const unknown = fill('unknown-submodule-commit', 40, '0123456789abcdef');
    for (const tool of ['diff', 'get_commit']) {
      const hidden = await call(dev, tool, { sha: hiddenOnly });
      const missing = await call(dev, tool, { sha: unknown });
      expect(hidden.isError).toBe(true);
      expect(textOf(hidden).replace(hiddenOnly, 'X')).toBe(textOf(missing).replace(unknown, 'X'));
    }
  });

  it('lists the submodule in get_commit by the commit it points at', async () => {
    expect(await ok<Shown>(dev, 'get_commit', { sha: moved })).toMatchObject({
      files: [{ path: 'src/vendor/lib', status: 'modified', sha: y, previous_sha: x }],
      omitted_count: 1,
    });
  });
});
