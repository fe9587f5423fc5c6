import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { UpstreamError, type Upstream } from '../../src/github/upstream.js';
import { commitToBare, recordRefChange } from '@perimeter/fake-github';
import { AttemptClock, plumbCommit, startStandIn, TOKEN, type StandIn } from '@perimeter/test-rigs';

const BIG = 'x'.repeat(1024 * 1024 + 10);
let s: StandIn;
let up: Upstream;

beforeAll(async () => {
  s = await startStandIn({
    'README.md': '# demo\n',
    'src/a.ts': 'export const a = 1;\n',
    'src/lib/b.ts': 'export const b = 2;\n',
    'docs/big.txt': BIG,
  });
});
afterAll(() => s.stop());
beforeEach(() => {
  s.fake.clearFaults();
  // the REST reads; blobs over git's smart HTTP are git-blobs.test.ts's
  up = s.upstream({ gitUrl: false });
});

/** Requests the stand-in received while `run` ran, and what the upstream counted itself. */
async function cost<T>(run: () => Promise<T>): Promise<{ value: T; fake: number; own: number }> {
  const before = s.fake.stats().total;
  const own = up.stats().requests;
  const value = await run();
  return { value, fake: s.fake.stats().total - before, own: up.stats().requests - own };
}

async function failure(promise: Promise<unknown>): Promise<UpstreamError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UpstreamError);
  return error as UpstreamError;
}

describe('createOctokitUpstream', () => {
  describe('when reading objects addressed by SHA', () => {
    it('asks once per object, then answers from memory', async () => {
      const commit = await up.getCommit(s.seed);
      const first = await cost(() => up.getTree(commit.tree));
      expect(first).toMatchObject({ fake: 1, own: 1 });
      expect(first.value.map((e) => `${e.type} ${e.path}`).sort()).toEqual([
        'blob README.md',
        'tree docs',
        'tree src',
      ]);
      const again = await cost(() => up.getTree(commit.tree));
      expect(again).toMatchObject({ fake: 0, own: 0 });
      const readme = first.value.find((e) => e.path === 'README.md')!;
      const blob = await cost(() => Promise.all([up.getBlob(readme.sha), up.getBlob(readme.sha)]));
      expect(blob.fake).toBe(1);
      expect(Buffer.from(blob.value[0]).toString()).toBe('# demo\n');
      expect((await cost(() => up.getBlob(readme.sha))).fake).toBe(0);
      expect((await cost(() => up.getCommit(s.seed))).fake).toBe(0);
    });

    it('shares one request between concurrent callers of the same tree', async () => {
      const { tree } = await up.getCommit(s.seed);
      const both = await cost(() =>
        Promise.all([up.getTree(tree), up.getTree(tree), up.getTreeRecursive(tree)]),
      );
      expect(both.fake).toBe(2);
    });

    it('fills the tree cache from a complete recursive listing', async () => {
      const { tree } = await up.getCommit(s.seed);
      const { entries, truncated } = await up.getTreeRecursive(tree);
      expect(truncated).toBe(false);
      const lib = entries.find((e) => e.path === 'src/lib')!;
      const sub = await cost(() => up.getTree(lib.sha));
      expect(sub).toMatchObject({
        fake: 0,
        value: [expect.objectContaining({ path: 'b.ts', type: 'blob' })],
      });
    });
  });

  describe('when reading a branch head', () => {
    it('revalidates with If-None-Match: a repeat costs one 304', async () => {
      expect((await cost(() => up.getBranchHead('main'))).value).toBe(s.seed);
      const notModified = s.fake.stats().notModified;
      const again = await cost(() => up.getBranchHead('main'));
      expect(again).toMatchObject({ value: s.seed, fake: 1, own: 1 });
      expect(s.fake.stats().notModified).toBe(notModified + 1);
      expect(up.stats().notModified).toBe(1);
    });

    it('sees a moved branch', async () => {
      await up.getBranchHead('main');
      const moved = await commitToBare(s.dir, 'main', { 'moved.txt': 'x' });
      expect(await up.getBranchHead('main')).toBe(moved);
      expect(up.stats().notModified).toBe(0);
    });

    it('answers null or not_found for a missing branch', async () => {
      expect(await up.tryGetBranchHead('no/such-branch')).toBeNull();
      expect((await failure(up.getBranchHead('no/such-branch'))).code).toBe('not_found');
    });

    it('refuses branch names that would reach another endpoint', async () => {
      const before = s.fake.stats().total;
      for (const name of ['../x', 'a//b', 'a/./b', ''])
        expect((await failure(up.getBranchHead(name))).code).toBe('invalid');
      expect((await failure(up.getTree('../../commits'))).code).toBe('invalid');
      expect(s.fake.stats().total).toBe(before);
    });
  });

  describe('when listing', () => {
    it('lists branch and tag heads, commits and ancestry', async () => {
      const head = await commitToBare(s.dir, 'main', { 'c.txt': 'c' });
      const refs = await up.listRefs();
      expect(refs.get('refs/heads/main')).toBe(head);
      const commits = await up.listCommits({ sha: head, perPage: 2 });
      expect(commits[0]).toMatchObject({ sha: head, message: 'Direct commit' });
      expect(commits[0]?.parents).toHaveLength(1);
      expect(await up.isAncestor(s.seed, head)).toBe(true);
      expect(await up.isAncestor(head, s.seed)).toBe(false);
      expect((await cost(() => up.isAncestor(head, head))).fake).toBe(0);
      const side = await plumbCommit(
        s.dir,
        'side',
        { 'side.txt': { mode: '100644', content: 's' } },
        { parent: s.seed },
      );
      expect(await up.isAncestor(head, side)).toBe(false);
      expect(await up.isAncestor(side, head)).toBe(false);
      const orphan = await plumbCommit(
        s.dir,
        'orphan',
        { 'o.txt': { mode: '100644', content: 'o' } },
        { parent: null },
      );
      expect(await up.isAncestor(s.seed, orphan)).toBe(false);
      expect((await failure(up.isAncestor(s.seed, 'e'.repeat(40)))).code).toBe('not_found');
    });

    it('compares two commits: status, the new commits oldest first, changed paths, then from cache', async () => {
      const base = await commitToBare(s.dir, 'cmp', { 'cmp/a.txt': 'a' });
      const one = await commitToBare(s.dir, 'cmp', { 'cmp/b.txt': 'b' });
      const two = await commitToBare(s.dir, 'cmp', { 'cmp/a.txt': null, 'cmp/c.txt': 'c' });
      const { value, fake } = await cost(() => up.compare(base, two));
      expect(fake).toBe(1);
      expect(value.status).toBe('ahead');
      expect(value.totalCommits).toBe(2);
      expect(value.commits.map((c) => c.sha)).toEqual([one, two]);
      expect(value.files.map((f) => `${f.status} ${f.path}`).sort()).toEqual([
        'added cmp/b.txt',
        'added cmp/c.txt',
        'removed cmp/a.txt',
      ]);
      const cached = await cost(async () => [
        await up.isAncestor(base, two),
        await up.getCommit(base),
        await up.getCommit(two),
      ]);
      expect(cached.fake).toBe(0);
      expect((await up.compare(two, base)).status).toBe('behind');
    });

    it('pages the activity list back past `since`, and says when it stopped at its bound', async () => {
      const since = new Date(Date.now() - 1000).toISOString();
      const [a, b] = [s.seed, 'b'.repeat(40)];
      for (let i = 0; i < 75; i++) {
        await recordRefChange(s.dir, { before: a, after: b, ref: 'refs/heads/noise', actor: 'bot' });
        await recordRefChange(s.dir, { before: b, after: a, ref: 'refs/heads/noise', actor: 'bot' });
      }
      const windowed = await cost(() => up.listActivity({ since }));
      expect(windowed.value.complete).toBe(true);
      expect(windowed.value.items.filter((item) => item.ref === 'refs/heads/noise')).toHaveLength(150);
      expect(windowed.fake).toBe(2);
      const bounded = await up.listActivity({ since, maxItems: 120 });
      expect(bounded).toMatchObject({ complete: false });
      expect(bounded.items).toHaveLength(120);
      await expect(up.listActivity({ since: 'yesterday' })).rejects.toThrow(/not a time/);
    });

    it('reads the activity list with actors, newest first, and only what is at or after `since`', async () => {
      const head = await commitToBare(s.dir, 'main', { 'd.txt': 'd' }, 'by hubot', { actor: 'hubot' });
      const { items } = await up.listActivity({ since: new Date(Date.now() - 60_000).toISOString() });
      expect(items[0]).toMatchObject({ ref: 'refs/heads/main', after: head, actor: 'hubot' });
      expect(await up.listActivity({ since: new Date(Date.now() + 60_000).toISOString() })).toEqual({
        items: [],
        complete: true,
      });
    });
  });

  describe('when reading a file at a ref', () => {
    it('decodes small files from the contents API and large ones from their blob', async () => {
      expect((await up.getFileAtRef('src/a.ts', 'main')).text).toBe('export const a = 1;\n');
      const big = await cost(() => up.getFileAtRef('docs/big.txt', 'main'));
      expect(big.value.text).toBe(BIG);
      expect(s.fake.stats().byRoute['GET /repos/{owner}/{repo}/git/blobs/{sha}']).toBeGreaterThan(0);
      expect((await failure(up.getFileAtRef('src', 'main'))).code).toBe('invalid');
      expect((await failure(up.getFileAtRef('missing.txt', 'main'))).code).toBe('not_found');
    });
  });

  describe('when writing a commit', () => {
    it('commits inline content and deletions in a constant number of requests, fast-forward only', async () => {
      const head = await up.getBranchHead('main');
      const { tree } = await up.getCommit(head);
      const write = await cost(async () => {
        const next = await up.createTree(tree, [
          { path: 'new/one.txt', mode: '100644', content: 'one' },
          { path: 'new/run.sh', mode: '100755', content: '#!/bin/sh\n' },
          { path: 'src/a.ts', sha: null },
        ]);
        const commit = await up.createCommit('gateway commit', next, [head]);
        await up.updateBranch('main', commit);
        return commit;
      });
      expect(write.fake).toBe(3);
      const entries = (await up.getTreeRecursive((await up.getCommit(write.value)).tree)).entries;
      expect(entries.find((e) => e.path === 'new/run.sh')?.mode).toBe('100755');
      expect(entries.find((e) => e.path === 'src/a.ts')).toBeUndefined();
      expect(await up.getBranchHead('main')).toBe(write.value);

      const stale = await up.createCommit('stale', tree, [head]);
      const refused = await failure(up.updateBranch('main', stale));
      expect(refused.code).toBe('not_fast_forward');
      expect(await up.getBranchHead('main')).toBe(write.value);
    });

    it('stores binary blobs and posts statuses with a clipped description', async () => {
      const bytes = new Uint8Array([0, 255, 1, 254]);
      const sha = await up.createBlob(bytes);
      expect([...(await s.upstream().getBlob(sha))]).toEqual([...bytes]);
      await up.createStatus(s.seed, { state: 'success', context: 'perimeter', description: 'd'.repeat(300) });
      const res = await fetch(`${s.fake.url}/repos/octo/demo/commits/${s.seed}/statuses`, {
        headers: { authorization: `token ${TOKEN}` },
      });
      const [status] = (await res.json()) as Array<{ description: string; state: string }>;
      expect(status?.state).toBe('success');
      expect([...(status?.description ?? '')].length).toBeLessThanOrEqual(140);
    });
  });

  describe('when GitHub fails', () => {
    it('retries a read that met a 5xx', async () => {
      const { tree } = await up.getCommit(await up.getBranchHead('main'));
      s.fake.injectFault({
        kind: 'status',
        status: 502,
        count: 2,
        route: 'GET /repos/{owner}/{repo}/git/trees/{sha}',
      });
      const read = await cost(() => s.upstream({ retryBaseMs: 1 }).getTree(tree));
      expect(read.fake).toBe(3);
    });

    it('retries a branch-head check that met a 5xx or a rate limit, though it goes out without the plugins first', async () => {
      const route = /git\/ref\/heads/;
      // the REST check, as when git is not there
      const fresh = s.upstream({ retryBaseMs: 1, readRetries: 2, gitUrl: false });
      s.fake.injectFault({ kind: 'status', status: 502, count: 2, route });
      expect(await fresh.getBranchHead('main')).toBe(await up.getBranchHead('main'));
      expect(fresh.stats().requests).toBe(3);
      const limited = s.upstream({ gitUrl: false });
      s.fake.injectFault({ kind: 'secondary-limit', count: 2, retryAfter: 1, route });
      expect(await limited.getBranchHead('main')).toBe(await up.getBranchHead('main'));
      expect(limited.stats().requests).toBe(3);
    });

    it('gives up on reads after the configured retries with unavailable', async () => {
      const { tree } = await up.getCommit(await up.getBranchHead('main'));
      s.fake.injectFault({
        kind: 'status',
        status: 503,
        count: 10,
        route: 'GET /repos/{owner}/{repo}/git/trees/{sha}',
      });
      const fresh = s.upstream({ readRetries: 2 });
      const before = s.fake.stats().total;
      expect((await failure(fresh.getTree(tree))).code).toBe('unavailable');
      expect(s.fake.stats().total - before).toBe(3);
      expect(fresh.stats().requests).toBe(3);
    });

    it('never repeats a write that met a 5xx', async () => {
      s.fake.injectFault({
        kind: 'status',
        status: 502,
        count: 5,
        route: 'POST /repos/{owner}/{repo}/git/blobs',
      });
      const before = s.fake.stats().byRoute['POST /repos/{owner}/{repo}/git/blobs'] ?? 0;
      expect((await failure(up.createBlob(new Uint8Array([1])))).code).toBe('unavailable');
      expect(s.fake.stats().byRoute['POST /repos/{owner}/{repo}/git/blobs']).toBe(before + 1);
      s.fake.clearFaults();
      const total = s.fake.stats().total;
      s.fake.injectFault({
        kind: 'status',
        status: 500,
        count: 1,
        route: 'POST /repos/{owner}/{repo}/git/trees',
      });
      expect((await failure(up.createTree(s.seed, []))).code).toBe('unavailable');
      expect(s.fake.stats().total - total).toBe(1);
    });

    it('waits out a short rate limit and fails fast on a long one', async () => {
      s.fake.injectFault({
        kind: 'secondary-limit',
        count: 1,
        retryAfter: 1,
        route: 'GET /repos/{owner}/{repo}',
      });
      expect((await up.getRepository()).defaultBranch).toBe('main');
      s.fake.injectFault({ kind: 'rate-limit', count: 1, retryAfter: 3600 });
      const error = await failure(s.upstream().getRepository());
      expect(error.code).toBe('rate_limited');
    });

    it('repeats a write refused by a secondary rate limit once, after Retry-After', async () => {
      s.fake.injectFault({
        kind: 'secondary-limit',
        count: 1,
        retryAfter: 1,
        route: 'POST /repos/{owner}/{repo}/git/blobs',
      });
      const write = await cost(() => up.createBlob(new Uint8Array([7, 7])));
      expect(write.fake).toBe(2);
      expect([...(await s.upstream().getBlob(write.value))]).toEqual([7, 7]);
      s.fake.injectFault({
        kind: 'secondary-limit',
        count: 2,
        retryAfter: 1,
        route: 'POST /repos/{owner}/{repo}/git/blobs',
      });
      expect((await failure(up.createBlob(new Uint8Array([8])))).code).toBe('rate_limited');
    });

    it('gives each attempt its own timeout, so a rate-limit wait longer than it still retries', async () => {
      // on this clock each attempt begins after every earlier one timed out: a signal made once per call
      // would already be spent when the retry goes out
      const clock = new AttemptClock();
      const quick = s.upstream({
        attemptSignal: (ms) => {
          clock.expire();
          return clock.signal(ms);
        },
      });
      s.fake.injectFault({
        kind: 'secondary-limit',
        count: 1,
        retryAfter: 1,
        route: 'GET /repos/{owner}/{repo}',
      });
      expect((await quick.getRepository()).defaultBranch).toBe('main');
      expect(quick.stats().requests).toBe(2);
    });

    it('gives up on a read that keeps timing out', async () => {
      const clock = new AttemptClock();
      s.fake.onHang(() => clock.expire());
      const quick = s.upstream({ attemptSignal: clock.signal, readRetries: 1 });
      s.fake.injectFault({ kind: 'hang', count: 2, route: 'GET /repos/{owner}/{repo}' });
      expect((await failure(quick.getRepository())).code).toBe('unavailable');
      expect(quick.stats().requests).toBe(2);
    });

    it('maps statuses to codes', async () => {
      const cases: Array<[number, string]> = [
        [404, 'not_found'],
        [409, 'conflict'],
        [422, 'invalid'],
        [403, 'forbidden'],
      ];
      for (const [status, code] of cases) {
        s.fake.injectFault({ kind: 'status', status, count: 1, route: 'GET /repos/{owner}/{repo}' });
        expect((await failure(s.upstream().getRepository())).code).toBe(code);
      }
    });
  });

  describe('when a message could carry the token', () => {
    it('never puts the token in an error, raw, URL-encoded or base64', async () => {
      const basic = Buffer.from(`x-access-token:${TOKEN}`).toString('base64');
      const raw = Buffer.from(TOKEN).toString('base64');
      const leaky = `token ${TOKEN} basic ${basic} b64 ${raw} url ${encodeURIComponent(TOKEN)}`;
      s.fake.injectFault({
        kind: 'status',
        status: 422,
        count: 1,
        message: leaky,
        route: 'GET /repos/{owner}/{repo}',
      });
      const error = await failure(s.upstream().getRepository());
      const tokenB64 = Buffer.from(TOKEN).toString('base64').slice(0, 40);
      for (const text of [error.message, String(error.stack), JSON.stringify(error)]) {
        expect(text).not.toContain(TOKEN);
        expect(text).not.toContain(tokenB64);
        expect(text).not.toContain(basic.slice(20, 60));
      }
      expect(error.message).toContain('GitHub answered 422');
    });

    it('reports a wrong token as forbidden without echoing it', async () => {
      const wrong = 'ghp_WrongTokenWrongTokenWrongToken0123';
      const error = await failure(s.upstream({ token: wrong }).getRepository());
      expect(error.code).toBe('forbidden');
      expect(error.message).not.toContain(wrong);
    });
  });
});
