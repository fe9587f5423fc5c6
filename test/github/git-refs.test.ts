import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloneUrl } from '../../src/github/git-blobs.js';
import { GitRefReader, GitRefsUnavailable, pktLines } from '../../src/github/git-refs.js';
import { createOctokitUpstream } from '../../src/github/octokit/octokit-upstream.js';
import { commitToBare, gitText, seedRepo, startFakeGithub, type FakeGithub } from '@perimeter/fake-github';

const TOKEN = 'ghs_GitRefsToken0123456789abcdefghijklmnop';
const REF_ROUTE = 'GET /repos/{owner}/{repo}/git/ref/{ref}';

/** Branch heads over git's ls-refs against the stand-in's real git http-backend, and REST when git fails. */
describe('branch heads over git smart HTTP', () => {
  let root: string;
  let dir: string;
  let fake: FakeGithub;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'perimeter-git-refs-'));
    dir = join(root, 'r.git');
    await seedRepo(dir, { 'a.txt': 'a\n' });
    const head = (await gitText(dir, ['rev-parse', 'main'])).trim();
    // names a ref-prefix also matches: the answer must be the branch asked for
    await gitText(dir, ['update-ref', 'refs/heads/main2', head]);
    await commitToBare(dir, 'main2', { 'b.txt': 'b\n' }, 'other');
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
  const rev = async (name: string) => (await gitText(dir, ['rev-parse', name])).trim();

  it('reads each head with one git POST after one advertisement, and no REST request', async () => {
    const reads = upstream();
    const before = fake.stats();
    expect(await reads.getBranchHead('main')).toBe(await rev('main'));
    expect(await reads.getBranchHead('main2')).toBe(await rev('main2'));
    expect(await reads.tryGetBranchHead('absent')).toBeNull();
    const after = fake.stats();
    expect(after.total - before.total).toBe(0);
    expect(after.git - before.git).toBe(4);
  });

  it('sees a push made by another route at once', async () => {
    const reads = upstream();
    expect(await reads.getBranchHead('main')).toBe(await rev('main'));
    const moved = await commitToBare(dir, 'main', { 'c.txt': 'c\n' }, 'elsewhere');
    expect(await reads.getBranchHead('main')).toBe(moved);
  });

  it('reads by REST from the first git failure on, and answers the same', async () => {
    const reads = upstream();
    fake.injectFault({ kind: 'status', status: 500, count: 1, route: /^GIT / });
    const before = fake.stats();
    expect(await reads.getBranchHead('main')).toBe(await rev('main'));
    expect(await reads.getBranchHead('main')).toBe(await rev('main'));
    const after = fake.stats();
    expect((after.byRoute[REF_ROUTE] ?? 0) - (before.byRoute[REF_ROUTE] ?? 0)).toBe(2);
    expect(after.git - before.git).toBe(1);
  });

  it('reads by REST with gitUrl false', async () => {
    const reads = upstream(false);
    const before = fake.stats();
    expect(await reads.getBranchHead('main')).toBe(await rev('main'));
    expect(fake.stats().git - before.git).toBe(0);
    expect((fake.stats().byRoute[REF_ROUTE] ?? 0) - (before.byRoute[REF_ROUTE] ?? 0)).toBe(1);
  });

  it('refuses a wrong token without reading anything', async () => {
    const reader = new GitRefReader({ url: cloneUrl(fake.url, 'octo', 'r'), token: 'ghs_wrong' });
    await expect(reader.list(['refs/heads/main'])).rejects.toBeInstanceOf(GitRefsUnavailable);
    expect(reader.failed).toBe(true);
  });

  it('parses pkt-lines and refuses a truncated one', () => {
    expect(pktLines(Buffer.from('000bversion0000000aab cd\n0000'))).toEqual(['version', 'ab cd\n']);
    expect(() => pktLines(Buffer.from('00ffshort'))).toThrow(GitRefsUnavailable);
    expect(() => pktLines(Buffer.from('zzzz'))).toThrow(GitRefsUnavailable);
  });
});
