import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { commitToBare, gitText, writeRequests } from '@perimeter/fake-github';
import { call, ok, runs, startHarness, textOf, type Harness } from '@perimeter/test-rigs';
import { StagedUpstream } from '../../src/github/staged/staged-upstream.js';

const CONFIG = `
version: 1
perimeters:
  dev:
    read: ["**"]
    write: ["src/**", "docs/**"]
`;
const FILES = {
  'src/a.ts': 'a\n',
  'src/lib/b.ts': 'b\n',
  'src/lib/deep/c.ts': 'c\n',
  'docs/x.md': '# x\n',
  'README.md': 'readme\n',
};

interface Push {
  files: Record<string, Uint8Array>;
  deletions: string[];
}

/**
 * The ground truth: the pushes made with git itself in a work tree of the repository at `base`, each
 * committed; gives each push's tree and, for each path asked, git log's messages for it (newest first).
 */
async function withGit(
  repoDir: string,
  base: string,
  pushes: Push[],
  paths: string[] = [],
): Promise<{ trees: string[]; logs: Record<string, string[]> }> {
  const work = await mkdtemp(join(tmpdir(), 'staged-truth-'));
  const wt = (args: string[]) =>
    gitText(work, ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
      env: { GIT_DIR: join(work, '.git'), GIT_WORK_TREE: work },
    });
  try {
    await wt(['init', '-q']);
    await wt(['fetch', '-q', repoDir, 'main']);
    await wt(['checkout', '-q', base]);
    const trees: string[] = [];
    for (const [i, push] of pushes.entries()) {
      for (const [path, bytes] of Object.entries(push.files)) {
        await mkdir(dirname(join(work, path)), { recursive: true });
        await writeFile(join(work, path), bytes);
      }
      for (const path of push.deletions) await wt(['rm', '-q', path]);
      await wt(['add', '-A']);
      trees.push((await wt(['write-tree'])).trim());
      await wt(['commit', '-q', '--allow-empty', '-m', `push ${i}`]);
    }
    const logs: Record<string, string[]> = {};
    for (const path of paths)
      logs[path] = (await wt(['log', '--format=%s', 'HEAD', '--', path])).split('\n').filter(Boolean);
    return { trees, logs };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

describe('staged writes (writes: stage): pushes stay in the runner and reads see them', () => {
  let h: Harness;
  let staged: StagedUpstream;
  let dev: Client;
  let start: string;

  beforeAll(async () => {
    h = await startHarness({
      files: FILES,
      config: CONFIG,
      wrapUpstream: (upstream) => (staged = new StagedUpstream(upstream, 'main')),
    });
    dev = await h.connect('dev');
    start = await h.head();
  });
  afterAll(async () => h.close());
  beforeEach(() => h.fake.resetStats());

  it('stages a push of text, binary and a deletion, writes nothing to GitHub, and reads it back', async () => {
    const bytes = randomBytes(48);
    bytes[0] = 0;
    const pushed = await ok<{ commit: string; head: string; staged?: boolean }>(dev, 'push_files', {
      message: 'stage one',
      files: [
        { path: 'src/lib/new.ts', content: 'export const n = 1;\n' },
        { path: 'docs/blob.bin', content: bytes.toString('base64'), encoding: 'base64' },
      ],
      deletions: ['src/lib/deep/c.ts'],
    });
    expect(pushed.staged).toBe(true);
    expect(writeRequests(h.fake.stats())).toEqual({});
    expect(await h.head()).toBe(start);

    const file = await ok<{ content: string }>(dev, 'get_file', { path: 'src/lib/new.ts' });
    expect(file.content).toBe('export const n = 1;\n');
    const commits = await ok<{ commits: Array<{ sha: string; staged?: true }> }>(dev, 'list_commits', {
      path: 'src/lib',
    });
    expect(commits.commits[0]).toMatchObject({ sha: pushed.commit, staged: true });
    expect(commits.commits.slice(1).every((c) => c.staged === undefined)).toBe(true);
    const commit = await ok<{ files: Array<{ path: string }>; staged?: true }>(dev, 'get_commit', {
      sha: pushed.commit,
    });
    expect(commit.staged).toBe(true);
    expect(commit.files.map((f) => f.path).sort()).toEqual([
      'docs/blob.bin',
      'src/lib/deep/c.ts',
      'src/lib/new.ts',
    ]);

    const set = staged.changeSet()!;
    expect(set.base).toBe(start);
    expect(set.commits.map((c) => c.sha)).toEqual([pushed.commit]);
    const {
      trees: [truth],
    } = await withGit(h.repoDir, start, [
      {
        files: { 'src/lib/new.ts': Buffer.from('export const n = 1;\n'), 'docs/blob.bin': bytes },
        deletions: ['src/lib/deep/c.ts'],
      },
    ]);
    expect(set.commits[0]!.tree).toBe(truth);
  });
});

describe('a staged commit that cannot be kept', () => {
  it('fails the push whole and stages nothing', async () => {
    let staged: StagedUpstream | undefined;
    const h = await startHarness({
      files: FILES,
      config: CONFIG,
      wrapUpstream: (upstream) =>
        (staged = new StagedUpstream(upstream, 'main', {
          save: () => Promise.reject(new Error('no space left on device')),
        })),
    });
    try {
      const dev = await h.connect('dev');
      const result = await call(dev, 'push_files', {
        message: 'lost?',
        files: [{ path: 'src/kept.ts', content: 'kept\n' }],
      });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('no space left on device');
      expect(staged!.changeSet()).toBeNull();
      expect((await call(dev, 'get_file', { path: 'src/kept.ts' })).isError).toBe(true);
      expect(writeRequests(h.fake.stats())).toEqual({});
    } finally {
      await h.close();
    }
  });
});

describe('a staged upstream against git itself', () => {
  const paths = ['src/a.ts', 'src/lib/b.ts', 'src/lib/deep/c.ts', 'src/n/m.ts', 'docs/x.md', 'docs/y/z.md'];
  const push = fc.record({
    files: fc.dictionary(fc.constantFrom(...paths), fc.uint8Array({ maxLength: 20 }), { maxKeys: 3 }),
    deletions: fc.uniqueArray(fc.constantFrom(...paths), { maxLength: 2 }),
  });

  it('makes the trees git makes and lists commits by path, page by page, as git log does', async () => {
    const h = await startHarness({ files: FILES, config: CONFIG });
    try {
      // a history below the staged commits long enough that GitHub's pages of it are cut at other offsets
      for (const [i, path] of [
        'src/lib/b.ts',
        'docs/x.md',
        'src/a.ts',
        'src/lib/deep/c.ts',
        'docs/x.md',
      ].entries())
        await commitToBare(h.repoDir, 'main', { [path]: `earlier ${i}\n` }, `earlier ${i}`);
      const start = await h.head();
      await fc.assert(
        fc.asyncProperty(
          fc.array(push, { minLength: 1, maxLength: 4 }),
          fc.integer({ min: 1, max: 3 }),
          async (pushes, perPage) => {
            const staged = new StagedUpstream(h.upstream, 'main');
            const present = new Set(Object.keys(FILES));
            const applied: Push[] = [];
            for (const [i, p] of pushes.entries()) {
              const deletions = p.deletions.filter((d) => present.has(d) && !(d in p.files));
              const head = await staged.getBranchHead('main');
              const base = await staged.getCommit(head);
              const changes = [
                ...(await Promise.all(
                  Object.entries(p.files).map(async ([path, bytes]) => ({
                    path,
                    mode: '100644' as const,
                    sha: await staged.createBlob(bytes),
                  })),
                )),
                ...deletions.map((path) => ({ path, sha: null })),
              ];
              const tree = await staged.createTree(base.tree, changes);
              const commit = await staged.createCommit(`push ${i}`, tree, [head]);
              await staged.updateBranch('main', commit);
              for (const d of deletions) present.delete(d);
              for (const path of Object.keys(p.files)) present.add(path);
              applied.push({ files: p.files, deletions });
            }
            const listedPaths = ['src/lib', 'docs', 'src/a.ts'];
            const truth = await withGit(h.repoDir, start, applied, listedPaths);
            expect(staged.changeSet()!.commits.map((c) => c.tree)).toEqual(truth.trees);

            const head = await staged.getBranchHead('main');
            for (const path of listedPaths) {
              const listed: string[] = [];
              for (let page = 1; page <= 10; page++) {
                const commits = await staged.listCommits({ sha: head, path, perPage, page });
                listed.push(...commits.map((c) => c.message));
                if (commits.length < perPage) break;
              }
              expect(listed).toEqual(truth.logs[path]);
            }
          },
        ),
        { numRuns: runs(4, 40) },
      );
      expect(writeRequests(h.fake.stats())).toEqual({});
    } finally {
      await h.close();
    }
  });
});
