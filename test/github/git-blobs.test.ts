import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloneUrl, GitBlobReader, parseBatch } from '../../src/github/git-blobs.js';
import { createOctokitUpstream } from '../../src/github/octokit/octokit-upstream.js';
import { gitText, seedRepo, startFakeGithub, type FakeGithub } from '@perimeter/fake-github';

const TOKEN = 'ghs_GitBlobsToken0123456789abcdefghijklmn';
const BLOB_ROUTE = 'GET /repos/{owner}/{repo}/git/blobs/{sha}';

describe('blob reads over git smart HTTP', () => {
  let root: string;
  let dir: string;
  let fake: FakeGithub;
  const sha: Record<string, string> = {};
  const files: Record<string, string> = {
    'a.txt': 'a\n',
    'src/b.ts': 'export const b = 1;\n',
    'secret/hidden-name.txt': 'hidden\n',
    'bin/data.bin': '\u0000\u0001\u0002binary',
  };

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'perimeter-git-blobs-'));
    dir = join(root, 'r.git');
    await seedRepo(dir, files);
    for (const path of Object.keys(files))
      sha[path] = (await gitText(dir, ['rev-parse', `main:${path}`])).trim();
    fake = await startFakeGithub({ repos: { 'octo/r': dir }, token: TOKEN });
  });
  afterAll(async () => {
    await fake.stop();
    await rm(root, { recursive: true, force: true });
  });

  const upstream = (gitUrl?: string | false) =>
    createOctokitUpstream({
      token: TOKEN,
      owner: 'octo',
      repo: 'r',
      baseUrl: fake.url,
      retryBaseMs: 1,
      ...(gitUrl !== undefined ? { gitUrl } : {}),
    });

  it('reads blobs asked for together in one fetch of two git requests, none over REST', async () => {
    const reads = upstream();
    const before = fake.stats();
    const got = await Promise.all(['a.txt', 'src/b.ts', 'bin/data.bin'].map((p) => reads.getBlob(sha[p]!)));
    const after = fake.stats();
    expect(got.map((b) => Buffer.from(b).toString('utf8'))).toEqual([
      files['a.txt'],
      files['src/b.ts'],
      files['bin/data.bin'],
    ]);
    expect(after.git - before.git).toBe(2);
    expect(after.total - before.total).toBe(0);
    // and from the cache after that
    await reads.getBlob(sha['a.txt']!);
    expect(fake.stats().git).toBe(after.git);
  });

  it('reads many blobs in one fetch with their SHAs on stdin, not argv (getBlobsOverGit)', async () => {
    const log = join(root, 'argv-many.log');
    const wrapper = join(root, 'git-wrapper-many.sh');
    await writeFile(wrapper, `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec git "$@"\n`);
    await chmod(wrapper, 0o755);
    const reader = new GitBlobReader({ url: cloneUrl(fake.url, 'octo', 'r'), token: TOKEN, git: wrapper });
    const before = fake.stats();
    const got = await reader.readMany(Object.values(sha));
    expect(fake.stats().git - before.git).toBe(2);
    expect(reader.fetches).toBe(1);
    for (const [path, content] of Object.entries(files))
      expect(Buffer.from(got.get(sha[path]!)!).toString('utf8')).toBe(content);
    const argv = await readFile(log, 'utf8');
    expect(argv).toContain('--stdin');
    for (const one of Object.values(sha)) expect(argv).not.toContain(one);
    reader.close();
  });

  it('answers nothing over git when git is refused, so the caller reads another way', async () => {
    const reads = upstream();
    fake.injectFault({ kind: 'status', status: 403, count: 1, route: /^GIT / });
    expect((await reads.getBlobsOverGit!([sha['a.txt']!, sha['src/b.ts']!])).size).toBe(0);
    fake.clearFaults();
    expect((await upstream(false).getBlobsOverGit!([sha['a.txt']!])).size).toBe(0);
  });

  it('gives the same bytes as REST for every blob', async () => {
    const viaGit = upstream();
    const viaRest = upstream(false);
    for (const path of Object.keys(files))
      expect(Buffer.from(await viaGit.getBlob(sha[path]!))).toEqual(
        Buffer.from(await viaRest.getBlob(sha[path]!)),
      );
  });

  it('falls back to REST when git is refused, and stays on REST', async () => {
    const reads = upstream();
    fake.injectFault({ kind: 'status', status: 403, count: 1, route: /^GIT / });
    const before = fake.stats();
    expect(Buffer.from(await reads.getBlob(sha['a.txt']!)).toString()).toBe(files['a.txt']);
    expect(Buffer.from(await reads.getBlob(sha['src/b.ts']!)).toString()).toBe(files['src/b.ts']);
    const after = fake.stats();
    expect(after.byRoute[BLOB_ROUTE]! - (before.byRoute[BLOB_ROUTE] ?? 0)).toBe(2);
    expect(after.git - before.git).toBe(1); // the refused advertisement, then no more git
    fake.clearFaults();
  });

  it('falls back to REST when there is no git on the machine', async () => {
    const reader = new GitBlobReader({
      url: cloneUrl(fake.url, 'octo', 'r'),
      token: TOKEN,
      git: join(root, 'no-git'),
    });
    expect(await reader.read(sha['a.txt']!)).toBeNull();
    expect(reader.failed).toBe(true);
  });

  it('keeps the token out of git argv and leaves nothing on disk but the blobs asked for', async () => {
    const log = join(root, 'argv.log');
    const wrapper = join(root, 'git-wrapper.sh');
    await writeFile(wrapper, `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec git "$@"\n`);
    await chmod(wrapper, 0o755);
    const store = await mkdtemp(join(root, 'store-'));
    const reader = new GitBlobReader({
      url: cloneUrl(fake.url, 'octo', 'r'),
      token: TOKEN,
      git: wrapper,
      tempDir: store,
    });
    const bytes = await reader.read(sha['a.txt']!);
    expect(Buffer.from(bytes!).toString()).toBe(files['a.txt']);
    const argv = await readFile(log, 'utf8');
    expect(argv).toContain('fetch');
    expect(argv).not.toContain(TOKEN);
    expect(argv).not.toContain(Buffer.from(`x-access-token:${TOKEN}`).toString('base64'));
    // the store holds the one blob: no tree, so no hidden file's name, no commit
    const [created] = await readdir(store);
    const objects = await gitText(join(store, created!), [
      'cat-file',
      '--batch-all-objects',
      '--batch-check',
    ]);
    expect(objects.trim().split('\n')).toEqual([`${sha['a.txt']} blob ${files['a.txt']!.length}`]);
    reader.close();
    expect(await readdir(store)).toEqual([]);
  });
});

describe('cloneUrl', () => {
  it.each([
    ['https://api.github.com', 'https://github.com/o/r.git'],
    ['https://api.octo.ghe.com', 'https://octo.ghe.com/o/r.git'],
    ['https://ghes.example/api/v3', 'https://ghes.example/o/r.git'],
    ['https://ghes.example/api/v3/', 'https://ghes.example/o/r.git'],
    ['http://127.0.0.1:4567', 'http://127.0.0.1:4567/o/r.git'],
  ])('%s -> %s', (api, url) => expect(cloneUrl(api, 'o', 'r')).toBe(url));
});

describe('parseBatch', () => {
  it('reads found blobs, skips missing ones and non-blobs, keeps bytes as they are', () => {
    const a = 'a'.repeat(40);
    const b = 'b'.repeat(40);
    const c = 'c'.repeat(40);
    const out = Buffer.concat([
      Buffer.from(`${a} blob 3\n`),
      Buffer.from([0, 10, 255]),
      Buffer.from(`\n${b} missing\n${c} tree 0\n\n`),
    ]);
    const found = parseBatch(out);
    expect([...found.keys()]).toEqual([a]);
    expect([...found.get(a)!]).toEqual([0, 10, 255]);
  });
});
