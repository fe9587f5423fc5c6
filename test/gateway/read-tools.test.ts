import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitToBare } from '@perimeter/fake-github';
import { answerOf, call, ok, startHarness, textOf, type Harness } from '@perimeter/test-rigs';

const CONFIG = `
version: 1
perimeters:
  implementer:
    read: ["src/**", "docs/**", "mixed/public.txt", "bin/**", "big/**", "package.json"]
    write: ["src/**"]
  markdown:
    read: ["**/*.md"]
    write: []
`;

const PNG = Uint8Array.from([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0xff, 0xfe,
]);
const FILES = {
  'src/index.ts': 'export const answer = 42;\n',
  'src/util/math.ts': 'export const add = (a: number, b: number) => a + b;\n',
  'src/.eslintrc': '{}\n',
  'docs/guide.md': '# Guide\n',
  'secret/plan.md': 'the hidden plan\n',
  'secret/deep/key.txt': 'hidden key\n',
  'mixed/public.txt': 'public\n',
  'mixed/private.txt': 'private\n',
  'bin/logo.png': PNG,
  'bin/latin1.txt': Uint8Array.from([0x63, 0x61, 0x66, 0xe9]),
  'big/huge.txt': 'x'.repeat(1_048_577),
  'package.json': '{"name":"lanes"}\n',
};

describe('the read tools', () => {
  let h: Harness;
  let implementer: Client;
  let markdown: Client;
  let initial: string;
  let hiddenOnly: string;
  let mixed: string;
  let elsewhere: string;

  beforeAll(async () => {
    h = await startHarness({ files: FILES, config: CONFIG });
    initial = await h.head();
    hiddenOnly = await commitToBare(
      h.repoDir,
      'main',
      { 'secret/deep/key.txt': 'rotated\n' },
      'rotate the hidden key',
    );
    mixed = await commitToBare(
      h.repoDir,
      'main',
      { 'docs/guide.md': '# Guide\n\nMore.\n', 'secret/plan.md': 'new plan\n' },
      'guide and plan',
    );
    elsewhere = await commitToBare(
      h.repoDir,
      'feature',
      { 'src/index.ts': 'feature\n' },
      'on another branch',
    );
    implementer = await h.connect('implementer');
    markdown = await h.connect('markdown');
  });
  afterAll(async () => h.close());

  describe('get_tree', () => {
    it('lists readable entries only, and directories only when they hold something readable', async () => {
      const root = await ok<{ entries: Array<{ path: string; type: string }> }>(implementer, 'get_tree');
      expect(root.entries.map((e) => `${e.type}:${e.path}`)).toEqual([
        'dir:big',
        'dir:bin',
        'dir:docs',
        'dir:mixed',
        'file:package.json',
        'dir:src',
      ]);
      const all = await ok<{ entries: Array<{ path: string }> }>(implementer, 'get_tree', {
        recursive: true,
      });
      const paths = all.entries.map((e) => e.path);
      expect(paths).toContain('src/.eslintrc');
      expect(paths).toContain('src/util/math.ts');
      expect(paths).toContain('mixed/public.txt');
      expect(paths.filter((p) => p.startsWith('secret') || p === 'mixed/private.txt')).toEqual([]);
      const md = await ok<{ entries: Array<{ path: string }> }>(markdown, 'get_tree', { recursive: true });
      expect(md.entries.map((e) => e.path)).toEqual(['docs', 'docs/guide.md', 'secret', 'secret/plan.md']);
    });

    it('answers a hidden directory exactly like a missing one', async () => {
      const hidden = await call(implementer, 'get_tree', { path: 'secret' });
      expect(hidden.isError).toBe(true);
      await commitToBare(
        h.repoDir,
        'main',
        { 'secret/plan.md': null, 'secret/deep/key.txt': null },
        'remove secret/',
      );
      try {
        const missing = await call(implementer, 'get_tree', { path: 'secret' });
        expect(JSON.stringify(missing)).toBe(JSON.stringify(hidden));
      } finally {
        await commitToBare(
          h.repoDir,
          'main',
          { 'secret/plan.md': 'new plan\n', 'secret/deep/key.txt': 'rotated\n' },
          'restore secret/',
        );
      }
    });
  });

  describe('get_file', () => {
    it('reads a text file at the branch head', async () => {
      const result = await call(implementer, 'get_file', { path: 'docs/guide.md' });
      expect(answerOf(result)).toMatchObject({
        path: 'docs/guide.md',
        type: 'file',
        encoding: 'utf-8',
        content: '# Guide\n\nMore.\n',
      });
      expect(textOf(result)).toBe('# Guide\n\nMore.\n');
    });

    it('answers a hidden file exactly like a missing one, byte for byte', async () => {
      const hidden = await call(implementer, 'get_file', { path: 'mixed/private.txt' });
      expect(hidden.isError).toBe(true);
      await commitToBare(h.repoDir, 'main', { 'mixed/private.txt': null }, 'remove private');
      const missing = await call(implementer, 'get_file', { path: 'mixed/private.txt' });
      expect(JSON.stringify(missing)).toBe(JSON.stringify(hidden));
      const hiddenDir = await call(implementer, 'get_file', { path: 'secret' });
      expect(textOf(hiddenDir)).toBe('"secret" not found');
    });

    it('describes binary, non-UTF-8 and over-size files instead of sending garbage', async () => {
      const png = await ok(implementer, 'get_file', { path: 'bin/logo.png' });
      expect(png).toMatchObject({ type: 'file', size: PNG.length, note: expect.stringMatching(/binary/) });
      expect(png.content).toBeUndefined();
      const latin1 = await ok(implementer, 'get_file', { path: 'bin/latin1.txt' });
      expect(latin1.content).toBeUndefined();
      const huge = await ok(implementer, 'get_file', { path: 'big/huge.txt' });
      expect(huge).toMatchObject({ size: 1_048_577, note: expect.stringMatching(/too large/) });
      expect(huge.content).toBeUndefined();
    });

    it('says a readable directory is one', async () => {
      const result = await call(implementer, 'get_file', { path: 'src/util' });
      expect(textOf(result)).toMatch(/is a directory/);
    });
  });

  describe('get_files', () => {
    it('reads several files and answers hidden and missing paths alike', async () => {
      const { files } = await ok<{ files: Array<Record<string, unknown>> }>(implementer, 'get_files', {
        paths: ['src/index.ts', 'secret/plan.md', 'nowhere/plan.md', '../x', 'package.json'],
      });
      expect(files[0]).toMatchObject({ path: 'src/index.ts', content: FILES['src/index.ts'] });
      expect(files[1]).toEqual({ path: 'secret/plan.md', error: 'not found' });
      expect(files[2]).toEqual({ path: 'nowhere/plan.md', error: 'not found' });
      expect(files[3]).toMatchObject({ path: '../x', error: expect.stringMatching(/^invalid path/) });
      expect(files[4]).toMatchObject({ path: 'package.json', content: FILES['package.json'] });
    });
  });

  describe('list_commits', () => {
    it('leaves out commits that touched only hidden paths', async () => {
      const { commits } = await ok<{ commits: Array<{ sha: string; message: string }> }>(
        implementer,
        'list_commits',
      );
      const shas = commits.map((c) => c.sha);
      expect(shas).toContain(mixed);
      expect(shas).toContain(initial);
      expect(shas).not.toContain(hiddenOnly);
      expect(shas).not.toContain(elsewhere);
    });

    it('works for read globs without a static prefix', async () => {
      const { commits } = await ok<{ commits: Array<{ sha: string }> }>(markdown, 'list_commits');
      const shas = commits.map((c) => c.sha);
      expect(shas).toContain(mixed);
      expect(shas).toContain(initial);
      expect(shas).not.toContain(hiddenOnly);
    });

    it('narrows by path, and a hidden path answers like a missing one', async () => {
      const docs = await ok<{ commits: Array<{ sha: string }> }>(implementer, 'list_commits', {
        path: 'docs',
      });
      expect(docs.commits.map((c) => c.sha)).toEqual([mixed, initial]);
      const hidden = await call(implementer, 'list_commits', { path: 'secret/deep' });
      const missing = await call(implementer, 'list_commits', { path: 'secret/nothing' });
      expect((answerOf(hidden) as { commits: unknown[] }).commits).toEqual([]);
      expect(JSON.stringify(hidden)).toBe(JSON.stringify(missing));
    });

    it('pages through the filtered history', async () => {
      const first = await ok<{ commits: Array<{ sha: string }>; has_more: boolean }>(
        implementer,
        'list_commits',
        { per_page: 1 },
      );
      const second = await ok<{ commits: Array<{ sha: string }>; has_more: boolean }>(
        implementer,
        'list_commits',
        { per_page: 1, page: 2 },
      );
      const all = await ok<{ commits: Array<{ sha: string }> }>(implementer, 'list_commits');
      expect(first.has_more).toBe(true);
      expect([first.commits[0]!.sha, second.commits[0]!.sha]).toEqual(
        all.commits.slice(0, 2).map((c) => c.sha),
      );
    });
  });

  describe('get_commit', () => {
    it('shows readable files of a mixed commit and counts the others', async () => {
      const commit = await ok<{
        files: Array<{ path: string; status: string }>;
        omitted_count: number;
        message: string;
      }>(implementer, 'get_commit', { sha: mixed });
      expect(commit.message).toMatch(/guide and plan/);
      expect(commit.files).toEqual([expect.objectContaining({ path: 'docs/guide.md', status: 'modified' })]);
      expect(commit.omitted_count).toBe(1);
    });

    it('answers absent for hidden-only, unreachable and unknown commits, all alike', async () => {
      const unknown = 'f'.repeat(40);
      const answers = await Promise.all(
        [hiddenOnly, elsewhere, unknown].map((sha) => call(implementer, 'get_commit', { sha })),
      );
      const shapes = answers.map((a, i) =>
        JSON.stringify(a).replaceAll([hiddenOnly, elsewhere, unknown][i]!, 'SHA'),
      );
      expect(answers[0]!.isError).toBe(true);
      expect(new Set(shapes).size).toBe(1);
    });

    it('refuses a malformed SHA clearly', async () => {
      expect(textOf(await call(implementer, 'get_commit', { sha: 'HEAD~1' }))).toMatch(/invalid commit SHA/);
    });
  });

  describe('request economy', () => {
    it('a warm repeated read costs at most one upstream request', async () => {
      const reads: Array<[string, Record<string, unknown>]> = [
        ['get_file', { path: 'src/index.ts' }],
        ['get_files', { paths: ['src/index.ts', 'docs/guide.md'] }],
        ['get_tree', { recursive: true }],
        ['list_commits', {}],
        ['get_commit', { sha: mixed }],
      ];
      for (const [tool, args] of reads) {
        await ok(implementer, tool, args);
        h.fake.resetStats();
        await ok(implementer, tool, args);
        expect(h.fake.stats().total, tool).toBeLessThanOrEqual(1);
      }
    });
  });
});

describe('the read tools on a tree too big for one recursive listing', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ files: FILES, config: CONFIG, treeEntryLimit: 4 });
  });
  afterAll(async () => h.close());

  it('walks the tree directory by directory and answers the same', async () => {
    const client = await h.connect('implementer');
    const all = await ok<{ entries: Array<{ path: string }> }>(client, 'get_tree', { recursive: true });
    expect(all.entries.map((e) => e.path)).toContain('src/util/math.ts');
    expect(all.entries.map((e) => e.path)).not.toContain('secret/plan.md');
    expect(await ok(client, 'get_file', { path: 'src/util/math.ts' })).toMatchObject({
      content: FILES['src/util/math.ts'],
    });
    expect(h.fake.stats().byRoute['GET /repos/{owner}/{repo}/git/trees/{sha}']).toBeGreaterThan(1);
  });
});
