import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { seedRepo, startFakeGithub } from '../src/index.js';
import type { FakeGithub } from '../src/index.js';
import { restClient, scratchDir } from './test-support.js';
import type { Api, Json } from './test-support.js';

const paths = (tree: Json): string[] => tree.tree.map((e: { path: string }) => e.path);

describe('trees', () => {
  let gh: FakeGithub;
  let api: Api;
  let dir: string;
  let cleanup: () => Promise<void>;

  beforeEach(async () => {
    ({ dir, cleanup } = await scratchDir());
    // 6 blobs + 2 trees = 8 entries below the root
    await seedRepo(join(dir, 'repo.git'), { a: '1', b: '2', 'd/c': '3', 'd/e': '4', 'd/f/g': '5', h: '6' });
    gh = await startFakeGithub({ repos: { 'acme/app': join(dir, 'repo.git') } });
    api = restClient(gh.url);
  });

  async function restartWithLimit(treeEntryLimit: number, treeByteLimit?: number): Promise<void> {
    await gh.stop();
    gh = await startFakeGithub({
      repos: { 'acme/app': join(dir, 'repo.git') },
      treeEntryLimit,
      ...(treeByteLimit !== undefined ? { treeByteLimit } : {}),
    });
    api = restClient(gh.url);
  }
  afterEach(async () => {
    await gh.stop();
    await cleanup();
  });

  describe('when the recursive listing fits the entry limit exactly', () => {
    it('lists every entry and is not truncated', async () => {
      await restartWithLimit(8);
      const tree = (await api('GET', '/repos/acme/app/git/trees/main?recursive=1')).body;
      expect(tree.truncated).toBe(false);
      expect(paths(tree)).toEqual(['a', 'b', 'd', 'd/c', 'd/e', 'd/f', 'd/f/g', 'h']);
      expect(tree.tree.find((e: { path: string }) => e.path === 'd')).toMatchObject({
        type: 'tree',
        mode: '040000',
      });
    });
  });

  describe('when it exceeds the limit', () => {
    it('answers the first entries with truncated: true, while the non-recursive listing is whole', async () => {
      await restartWithLimit(5);
      const tree = (await api('GET', '/repos/acme/app/git/trees/main?recursive=1')).body;
      expect(tree.truncated).toBe(true);
      expect(paths(tree)).toEqual(['a', 'b', 'd', 'd/c', 'd/e']);
      const top = (await api('GET', '/repos/acme/app/git/trees/main')).body;
      expect(top.truncated).toBe(false);
      expect(paths(top)).toEqual(['a', 'b', 'd', 'h']);
      const sub = (await api('GET', `/repos/acme/app/git/trees/${top.tree[2].sha}?recursive=1`)).body;
      expect(paths(sub)).toEqual(['c', 'e', 'f', 'f/g']);
    });
  });

  describe('when the answer would pass the byte limit first', () => {
    it('lists the entries that fit in that many bytes of JSON, with truncated: true', async () => {
      const whole = await api('GET', '/repos/acme/app/git/trees/main?recursive=1');
      const size = Buffer.byteLength(JSON.stringify(whole.body));
      await restartWithLimit(100, size);
      const exact = (await api('GET', '/repos/acme/app/git/trees/main?recursive=1')).body;
      expect(exact.truncated).toBe(false);
      expect(paths(exact)).toHaveLength(8);

      await restartWithLimit(100, size - 1);
      const cut = await api('GET', '/repos/acme/app/git/trees/main?recursive=1');
      expect(cut.body.truncated).toBe(true);
      expect(paths(cut.body)).toEqual(paths(whole.body).slice(0, 7));
      expect(Buffer.byteLength(JSON.stringify(cut.body))).toBeLessThanOrEqual(size - 1);
      // the plain listing has no cap
      expect((await api('GET', '/repos/acme/app/git/trees/main')).body.truncated).toBe(false);
    });
  });

  it('builds a tree with subtree replacement, directory deletion, symlinks and executables', async () => {
    const base = (await api('GET', '/repos/acme/app/git/trees/main')).body;
    const sub = base.tree.find((e: { path: string }) => e.path === 'd').sha;
    const answer = await api('POST', '/repos/acme/app/git/trees', {
      base_tree: base.sha,
      tree: [
        { path: 'd', mode: '040000', type: 'tree', sha: null },
        { path: 'copy', mode: '040000', type: 'tree', sha: sub },
        { path: 'link', mode: '120000', type: 'blob', content: 'a' },
        { path: 'run.sh', mode: '100755', type: 'blob', content: '#!/bin/sh\n' },
        { path: 'a', mode: '100644', type: 'blob', sha: null },
        { path: 'a/now-a-dir', mode: '100644', type: 'blob', content: 'x' },
      ],
    });
    expect(answer.status).toBe(201);
    const tree = (await api('GET', `/repos/acme/app/git/trees/${answer.body.sha}?recursive=1`)).body;
    const listed = tree.tree.map((e: { path: string; mode: string }) => `${e.mode} ${e.path}`);
    expect(listed).toEqual([
      '040000 a',
      '100644 a/now-a-dir',
      '100644 b',
      '040000 copy',
      '100644 copy/c',
      '100644 copy/e',
      '040000 copy/f',
      '100644 copy/f/g',
      '100644 h',
      '120000 link',
      '100755 run.sh',
    ]);
  });

  it('refuses a blob SHA given as a tree', async () => {
    const base = (await api('GET', '/repos/acme/app/git/trees/main')).body;
    const blob = base.tree.find((e: { path: string }) => e.path === 'a').sha;
    const answer = await api('POST', '/repos/acme/app/git/trees', {
      tree: [{ path: 'x', mode: '040000', type: 'tree', sha: blob }],
    });
    expect(answer.status).toBe(422);
  });
});

/**
 * A one-off measurement, not an assertion on time: FAKE_GITHUB_BIG=1 npx vitest run packages/fake-github/test/trees.test.ts
 * prints how long seeding 100,000 files and a recursive tree request take.
 */
describe.runIf(process.env.FAKE_GITHUB_BIG === '1')('a repository of 100,000 files', () => {
  it('answers a recursive tree request (truncated at 100,000 entries)', async () => {
    const { dir, cleanup } = await scratchDir();
    try {
      const files: Record<string, string> = {};
      for (let i = 0; i < 100_000; i++)
        files[`d${i % 100}/s${Math.floor(i / 100) % 50}/f${i}.txt`] = `file ${i}\n`;
      let started = Date.now();
      await seedRepo(join(dir, 'big.git'), files);
      const seedMs = Date.now() - started;
      const gh = await startFakeGithub({ repos: { 'acme/big': join(dir, 'big.git') } });
      try {
        started = Date.now();
        const answer = await restClient(gh.url)('GET', '/repos/acme/big/git/trees/main?recursive=1');
        const treeMs = Date.now() - started;
        process.stdout.write(
          `fake-github: seeded 100,000 files in ${seedMs} ms; recursive tree answered in ${treeMs} ms\n`,
        );
        expect(answer.body.tree).toHaveLength(100_000);
        expect(answer.body.truncated).toBe(true);
      } finally {
        await gh.stop();
      }
    } finally {
      await cleanup();
    }
  }, 300_000);
});
