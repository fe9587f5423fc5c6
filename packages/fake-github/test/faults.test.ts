import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { seedRepo, startFakeGithub } from '../src/index.js';
import type { FakeGithub } from '../src/index.js';
import { cloneUrl, gitClient, restClient, scratchDir } from './test-support.js';
import type { Api } from './test-support.js';

describe('faults and the control surface', () => {
  let gh: FakeGithub;
  let api: Api;
  let dir: string;
  let cleanup: () => Promise<void>;
  let seeded: string;

  beforeEach(async () => {
    ({ dir, cleanup } = await scratchDir());
    seeded = await seedRepo(join(dir, 'repo.git'), { 'a.txt': 'a\n' });
    gh = await startFakeGithub({ repos: { 'acme/app': join(dir, 'repo.git') } });
    api = restClient(gh.url);
  });
  afterEach(async () => {
    await gh.stop();
    await cleanup();
  });

  const control = (method: string, path: string, body?: unknown) =>
    restClient(gh.url, null)(method, path, body);

  /** A commit on top of `parent` with the same tree, made through the API. */
  async function childOf(parent: string): Promise<string> {
    const commit = await api('GET', `/repos/acme/app/git/commits/${parent}`);
    return (
      await api('POST', '/repos/acme/app/git/commits', {
        message: 'child',
        tree: commit.body.tree.sha,
        parents: [parent],
      })
    ).body.sha;
  }

  it('answers N requests of a route with an injected status, then recovers', async () => {
    expect(
      (
        await control('POST', '/_fake/faults', {
          kind: 'status',
          status: 502,
          count: 2,
          route: 'GET /repos/{owner}/{repo}',
        })
      ).status,
    ).toBe(201);
    expect((await api('GET', '/repos/acme/app/git/ref/heads/main')).status).toBe(200);
    expect((await api('GET', '/repos/acme/app')).status).toBe(502);
    expect((await api('GET', '/repos/acme/app')).status).toBe(502);
    expect((await api('GET', '/repos/acme/app')).status).toBe(200);
  });

  it('clears faults on DELETE', async () => {
    await control('POST', '/_fake/faults', { kind: 'status', status: 503, count: 5 });
    expect((await control('GET', '/_fake/faults')).body).toHaveLength(1);
    expect((await control('DELETE', '/_fake/faults')).status).toBe(204);
    expect((await api('GET', '/repos/acme/app')).status).toBe(200);
  });

  it('refuses a malformed fault with a message', async () => {
    const answer = await control('POST', '/_fake/faults', { kind: 'explode' });
    expect(answer.status).toBe(400);
    expect(answer.body.message).toContain('expected kind');
    expect((await control('POST', '/_fake/faults', { kind: 'latency' })).body.message).toContain('ms');
  });

  it('injects primary and secondary rate limits as GitHub shapes them', async () => {
    await control('POST', '/_fake/faults', { kind: 'rate-limit', retryAfter: 30 });
    const primary = await api('GET', '/repos/acme/app');
    expect(primary.status).toBe(403);
    expect(primary.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(primary.headers.get('x-ratelimit-reset'))).toBeGreaterThanOrEqual(
      Math.floor(Date.now() / 1000) + 29,
    );
    await control('POST', '/_fake/faults', {
      kind: 'secondary-limit',
      status: 429,
      retryAfter: 7,
      routePattern: 'statuses',
    });
    expect((await api('GET', '/repos/acme/app')).status).toBe(200);
    const secondary = await api('POST', `/repos/acme/app/statuses/${seeded}`, { state: 'success' });
    expect(secondary.status).toBe(429);
    expect(secondary.headers.get('retry-after')).toBe('7');
    expect(secondary.body.message).toMatch(/secondary rate limit/);
  });

  it('delays answers with latency until cleared', async () => {
    gh.injectFault({ kind: 'latency', ms: 50 });
    expect((await api('GET', '/repos/acme/app')).status).toBe(200);
    expect((await control('GET', '/_fake/faults')).body[0]).toMatchObject({ kind: 'latency', ms: 50 });
    gh.clearFaults();
    expect((await control('GET', '/_fake/faults')).body).toEqual([]);
  });

  describe('hang', () => {
    /** A ref update whose client gives up the moment the stand-in starts holding it. */
    async function abandonedUpdate(sha: string): Promise<string[]> {
      const hung: string[] = [];
      const client = new AbortController();
      gh.onHang((request) => {
        hung.push(request);
        client.abort();
      });
      const sent = fetch(`${gh.url}/repos/acme/app/git/refs/heads/main`, {
        method: 'PATCH',
        headers: { authorization: 'token test-token', 'content-type': 'application/json' },
        body: JSON.stringify({ sha }),
        signal: client.signal,
      });
      await expect(sent).rejects.toThrow();
      return hung;
    }
    const head = async (): Promise<string> =>
      (await api('GET', '/repos/acme/app/git/ref/heads/main')).body.object.sha;

    it('holds a request until its client gives up, then drops it', async () => {
      const child = await childOf(seeded);
      await control('POST', '/_fake/faults', { kind: 'hang', routePattern: 'PATCH .*git/refs' });
      expect(await abandonedUpdate(child)).toEqual(['PATCH /repos/acme/app/git/refs/heads/main']);
      expect(await head()).toBe(seeded);
      expect((await api('PATCH', '/repos/acme/app/git/refs/heads/main', { sha: child })).status).toBe(200);
    });
  });

  describe('move-ref', () => {
    it('moves the ref before the next API write, so a fast-forward update loses the race', async () => {
      const child = await childOf(seeded);
      gh.injectFault({
        kind: 'move-ref',
        repo: 'acme/app',
        ref: 'main',
        files: { 'other.txt': 'someone else\n' },
        actor: 'mona',
      });
      expect((await api('GET', '/repos/acme/app/git/ref/heads/main')).body.object.sha).toBe(seeded);
      const update = await api('PATCH', '/repos/acme/app/git/refs/heads/main', { sha: child });
      expect(update.status).toBe(422);
      expect(update.body.message).toBe('Update is not a fast forward');
      const moved = (await api('GET', '/repos/acme/app/git/ref/heads/main')).body.object.sha;
      expect(moved).not.toBe(seeded);
      expect((await api('GET', `/repos/acme/app/contents/other.txt?ref=${moved}`)).status).toBe(200);
      const activity = await api('GET', '/repos/acme/app/activity');
      expect(activity.body[0]).toMatchObject({ before: seeded, after: moved });
      expect(activity.body[0].actor.login).toBe('mona');
      const retried = await api('PATCH', '/repos/acme/app/git/refs/heads/main', {
        sha: await childOf(moved),
      });
      expect(retried.status).toBe(200);
    });

    it('moves the ref before a git push, which is then rejected', async () => {
      const work = join(dir, 'work');
      await gitClient(dir, ['clone', '--quiet', cloneUrl(gh.url, 'acme/app', 'test-token'), work], dir);
      await writeFile(join(work, 'a.txt'), 'mine\n');
      await gitClient(work, ['commit', '--quiet', '-am', 'mine'], dir);
      await control('POST', '/_fake/faults', { kind: 'move-ref', repo: 'acme/app', ref: 'refs/heads/main' });
      await expect(gitClient(work, ['push', '--quiet', 'origin', 'HEAD:main'], dir)).rejects.toThrow(
        /rejected|failed|stale/,
      );
      const head = (await api('GET', '/repos/acme/app/git/ref/heads/main')).body.object.sha;
      const commit = await api('GET', `/repos/acme/app/git/commits/${head}`);
      expect(commit.body.parents[0].sha).toBe(seeded);
    });

    it('moves a ref to a given SHA', async () => {
      const child = await childOf(seeded);
      gh.injectFault({ kind: 'move-ref', repo: 'acme/app', ref: 'heads/main', toSha: child });
      const answer = await api('DELETE', '/repos/acme/app/git/refs/heads/main');
      expect(answer.status).toBe(204);
      const activity = await api('GET', '/repos/acme/app/activity');
      expect(
        activity.body.slice(0, 2).map((a: { activity_type: string; after: string }) => a.activity_type),
      ).toEqual(['branch_deletion', 'push']);
    });
  });

  describe('when writesPerMinute is set', () => {
    it('answers content-creating requests beyond it with a secondary limit and Retry-After', async () => {
      await gh.stop();
      gh = await startFakeGithub({ repos: { 'acme/app': join(dir, 'repo.git') }, writesPerMinute: 3 });
      api = restClient(gh.url);
      for (let i = 0; i < 3; i++) {
        expect((await api('POST', `/repos/acme/app/statuses/${seeded}`, { state: 'success' })).status).toBe(
          201,
        );
      }
      const refused = await api('POST', '/repos/acme/app/git/blobs', { content: 'x' });
      expect(refused.status).toBe(403);
      expect(refused.body.message).toMatch(/secondary rate limit/);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
      expect((await api('GET', '/repos/acme/app')).status).toBe(200);
    });
  });

  it('counts requests per route on /_fake/stats and resets them', async () => {
    await api('GET', '/repos/acme/app');
    await api('GET', '/repos/acme/app/git/trees/main?recursive=1');
    const stats = (await control('GET', '/_fake/stats')).body;
    expect(stats.byRoute).toEqual({
      'GET /repos/{owner}/{repo}': 1,
      'GET /repos/{owner}/{repo}/git/trees/{sha}': 1,
    });
    expect(stats.total).toBe(2);
    await control('DELETE', '/_fake/stats');
    expect(gh.stats().total).toBe(0);
  });
});
