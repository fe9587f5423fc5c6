/**
 * search, blame and diff against the GitHub stand-in with the real secret filter: what they answer, that
 * they read hidden files never, that they decide on the text as get_file shows it (a hidden value neither
 * matches nor changes a line), and that they read every blob they need in one go.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitToBare } from '@perimeter/fake-github';
import { call, ok, providerSamples, startHarness, textOf, type Harness } from '@perimeter/test-rigs';
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
