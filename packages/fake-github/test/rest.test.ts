import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commitToBare, gitText, seedRepo, startFakeGithub } from '../src/index.js';
import type { FakeGithub } from '../src/index.js';
import { restClient, scratchDir } from './test-support.js';
import type { Api } from './test-support.js';

describe('REST API', () => {
  let gh: FakeGithub;
  let api: Api;
  let repoDir: string;
  let cleanup: () => Promise<void>;
  let seeded: string;

  beforeEach(async () => {
    const scratch = await scratchDir();
    cleanup = scratch.cleanup;
    repoDir = join(scratch.dir, 'repo.git');
    seeded = await seedRepo(repoDir, { 'README.md': '# hi\n', 'src/a.ts': 'a\n', 'src/b.ts': 'b\n' });
    gh = await startFakeGithub({
      repos: { 'acme/app': repoDir, 'acme/empty': join(scratch.dir, 'empty.git') },
      private: ['acme/app'],
      rateLimit: 50,
    });
    api = restClient(gh.url);
  });
  afterEach(async () => {
    await gh.stop();
    await cleanup();
  });

  /** Creates a commit on top of `parent` through the Git Data API and returns its SHA. */
  async function apiCommit(parent: string, files: Record<string, string | null>): Promise<string> {
    const parentCommit = await api('GET', `/repos/acme/app/git/commits/${parent}`);
    const tree = await api('POST', '/repos/acme/app/git/trees', {
      base_tree: parentCommit.body.tree.sha,
      tree: Object.entries(files).map(([path, content]) =>
        content === null
          ? { path, mode: '100644', type: 'blob', sha: null }
          : { path, mode: '100644', type: 'blob', content },
      ),
    });
    expect(tree.status).toBe(201);
    const commit = await api('POST', '/repos/acme/app/git/commits', {
      message: 'api commit',
      tree: tree.body.sha,
      parents: [parent],
    });
    expect(commit.status).toBe(201);
    return commit.body.sha;
  }

  it('describes the repository', async () => {
    const repo = await api('GET', '/repos/acme/app');
    expect(repo.body).toMatchObject({ full_name: 'acme/app', default_branch: 'main', private: true });
    expect((await api('GET', '/repos/acme/empty')).body.private).toBe(false);
  });

  describe('refs', () => {
    it('updates fast-forward only unless forced', async () => {
      const child = await apiCommit(seeded, { 'src/a.ts': 'a2\n' });
      const sibling = await apiCommit(seeded, { 'src/b.ts': 'b2\n' });
      const forward = await api('PATCH', '/repos/acme/app/git/refs/heads/main', { sha: child, force: false });
      expect(forward.status).toBe(200);
      expect(forward.body.object.sha).toBe(child);

      const refused = await api('PATCH', '/repos/acme/app/git/refs/heads/main', {
        sha: sibling,
        force: false,
      });
      expect(refused.status).toBe(422);
      expect(refused.body.message).toBe('Update is not a fast forward');
      expect((await api('GET', '/repos/acme/app/git/ref/heads/main')).body.object.sha).toBe(child);

      const forced = await api('PATCH', '/repos/acme/app/git/refs/heads/main', { sha: sibling, force: true });
      expect(forced.status).toBe(200);
      const activity = await api('GET', '/repos/acme/app/activity?ref=main');
      expect(activity.body.map((a: { activity_type: string }) => a.activity_type)).toEqual([
        'force_push',
        'push',
        'branch_creation',
      ]);
    });

    it('creates, lists, and deletes refs', async () => {
      const created = await api('POST', '/repos/acme/app/git/refs', {
        ref: 'refs/heads/feature/x',
        sha: seeded,
      });
      expect(created.status).toBe(201);
      expect(
        (await api('POST', '/repos/acme/app/git/refs', { ref: 'refs/heads/feature/x', sha: seeded })).body
          .message,
      ).toBe('Reference already exists');
      const matching = await api('GET', '/repos/acme/app/git/matching-refs/heads/feat');
      expect(matching.body.map((r: { ref: string }) => r.ref)).toEqual(['refs/heads/feature/x']);
      expect((await api('DELETE', '/repos/acme/app/git/refs/heads/feature/x')).status).toBe(204);
      expect((await api('DELETE', '/repos/acme/app/git/refs/heads/feature/x')).status).toBe(422);
      expect((await api('GET', '/repos/acme/app/git/ref/heads/feature/x')).status).toBe(404);
    });

    it('answers 404 to a ref update adding workflow changes (no workflows permission)', async () => {
      const sha = await apiCommit(seeded, { '.github/workflows/ci.yml': 'on: push\n' });
      expect((await api('PATCH', '/repos/acme/app/git/refs/heads/main', { sha })).status).toBe(404);
      expect((await api('POST', '/repos/acme/app/git/refs', { ref: 'refs/heads/wf', sha })).status).toBe(404);
      expect((await api('GET', '/repos/acme/app/git/ref/heads/main')).body.object.sha).toBe(seeded);
    });

    it('answers 409 for an empty repository', async () => {
      expect((await api('GET', '/repos/acme/empty/git/ref/heads/main')).status).toBe(409);
    });
  });

  describe('git data', () => {
    it('makes a signed commit with the bot as committer when no author is given', async () => {
      const sha = await apiCommit(seeded, { 'src/c.ts': 'c\n', 'src/a.ts': null });
      const commit = await api('GET', `/repos/acme/app/git/commits/${sha}`);
      expect(commit.body.committer).toMatchObject({ name: 'GitHub', email: 'noreply@github.com' });
      expect(commit.body.author.name).toBe('github-actions[bot]');
      expect(commit.body.verification.verified).toBe(true);
      const tree = await api('GET', `/repos/acme/app/git/trees/${commit.body.tree.sha}?recursive=1`);
      expect(tree.body.tree.map((e: { path: string }) => e.path)).toEqual([
        'README.md',
        'src',
        'src/b.ts',
        'src/c.ts',
      ]);
    });

    it("does not verify web-flow's signature copied onto a commit written elsewhere", async () => {
      const sha = await apiCommit(seeded, { 'src/c.ts': 'c\n' });
      const raw = await gitText(repoDir, ['cat-file', 'commit', sha]);
      // the same header, signature included, on a commit that changes something else, as anyone can write
      const forged = raw.replace(/\n\napi commit$/, '\n\nnot what was signed');
      expect(forged).toContain('gpgsig ');
      expect(forged).toContain('committer GitHub <noreply@github.com>');
      const forgedSha = (
        await gitText(repoDir, ['hash-object', '-t', 'commit', '-w', '--stdin'], { input: forged })
      ).trim();
      const commit = await api('GET', `/repos/acme/app/git/commits/${forgedSha}`);
      expect(commit.body.committer).toMatchObject({ name: 'GitHub', email: 'noreply@github.com' });
      expect(commit.body.verification).toMatchObject({ verified: false, reason: 'invalid' });
      const unsigned = raw.replace(/\ngpgsig [\s\S]*?-----END PGP SIGNATURE-----/, '');
      const unsignedSha = (
        await gitText(repoDir, ['hash-object', '-t', 'commit', '-w', '--stdin'], { input: unsigned })
      ).trim();
      const bare = await api('GET', `/repos/acme/app/git/commits/${unsignedSha}`);
      expect(bare.body.verification).toMatchObject({ verified: false, reason: 'unsigned', signature: null });
    });

    it('leaves a commit with a custom author unsigned', async () => {
      const parent = await api('GET', `/repos/acme/app/git/commits/${seeded}`);
      const commit = await api('POST', '/repos/acme/app/git/commits', {
        message: 'm',
        tree: parent.body.tree.sha,
        parents: [seeded],
        author: { name: 'A', email: 'a@example.com', date: '2024-01-01T00:00:00Z' },
      });
      expect(commit.body.verification.verified).toBe(false);
      expect(commit.body.author.date).toBe('2024-01-01T00:00:00Z');
    });

    it('stores and returns blobs in base64', async () => {
      const bytes = Buffer.from([0, 1, 2, 255]);
      const created = await api('POST', '/repos/acme/app/git/blobs', {
        content: bytes.toString('base64'),
        encoding: 'base64',
      });
      const blob = await api('GET', `/repos/acme/app/git/blobs/${created.body.sha}`);
      expect(Buffer.from(blob.body.content, 'base64')).toEqual(bytes);
      expect(blob.body.size).toBe(4);
    });

    it('refuses a tree entry naming a missing object', async () => {
      const answer = await api('POST', '/repos/acme/app/git/trees', {
        tree: [{ path: 'x', mode: '100644', type: 'blob', sha: '1'.repeat(40) }],
      });
      expect(answer.status).toBe(422);
    });

    it('refuses paths with .. or .git', async () => {
      for (const path of ['../x', 'a/.git/config', '/abs']) {
        expect(
          (
            await api('POST', '/repos/acme/app/git/trees', {
              tree: [{ path, mode: '100644', type: 'blob', content: 'x' }],
            })
          ).status,
        ).toBe(422);
      }
    });
  });

  describe('commits and compare', () => {
    it('lists commits by path with Link pagination', async () => {
      const second = await commitToBare(repoDir, 'main', { 'src/a.ts': 'a2\n' });
      const third = await commitToBare(repoDir, 'main', { 'README.md': 'r\n' });
      const all = await api('GET', '/repos/acme/app/commits?per_page=2');
      expect(all.body.map((c: { sha: string }) => c.sha)).toEqual([third, second]);
      expect(all.headers.get('link')).toContain('rel="next"');
      const page2 = await api('GET', '/repos/acme/app/commits?per_page=2&page=2');
      expect(page2.body.map((c: { sha: string }) => c.sha)).toEqual([seeded]);
      const byPath = await api('GET', `/repos/acme/app/commits?sha=${third}&path=src/a.ts`);
      expect(byPath.body.map((c: { sha: string }) => c.sha)).toEqual([second, seeded]);
    });

    it('gives one commit with its files', async () => {
      const sha = await commitToBare(repoDir, 'main', { 'src/a.ts': null, 'new.txt': 'n\n' });
      const commit = await api('GET', `/repos/acme/app/commits/${sha}`);
      const files = commit.body.files
        .map((f: { filename: string; status: string }) => `${f.status} ${f.filename}`)
        .sort();
      expect(files).toEqual(['added new.txt', 'removed src/a.ts']);
      expect((await api('GET', '/repos/acme/app/commits/nope')).status).toBe(422);
    });

    it('compares diverged branches', async () => {
      await api('POST', '/repos/acme/app/git/refs', { ref: 'refs/heads/other', sha: seeded });
      await commitToBare(repoDir, 'main', { 'm.txt': 'm\n' });
      await commitToBare(repoDir, 'other', { 'o.txt': 'o\n' });
      await commitToBare(repoDir, 'other', { 'o2.txt': 'o\n' });
      const answer = await api('GET', '/repos/acme/app/compare/main...other');
      expect(answer.body).toMatchObject({ status: 'diverged', ahead_by: 2, behind_by: 1, total_commits: 2 });
      expect(answer.body.merge_base_commit.sha).toBe(seeded);
      expect(answer.body.files.map((f: { filename: string }) => f.filename)).toEqual(['o.txt', 'o2.txt']);
      expect((await api('GET', '/repos/acme/app/compare/main...main')).body.status).toBe('identical');
    });
  });

  describe('activity', () => {
    it('pages with after/before cursors from the Link header, newest first', async () => {
      const shas = [seeded];
      for (let i = 0; i < 4; i++) shas.push(await commitToBare(repoDir, 'main', { [`f${i}`]: `${i}` }));
      const newestFirst = shas.slice().reverse();
      const first = await api('GET', '/repos/acme/app/activity?per_page=2');
      expect(first.body.map((a: { after: string }) => a.after)).toEqual(newestFirst.slice(0, 2));
      const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')![1]!;
      const second = await api('GET', new URL(next).pathname + new URL(next).search);
      expect(second.body.map((a: { after: string }) => a.after)).toEqual(newestFirst.slice(2, 4));
      const prev = /<([^>]+)>; rel="prev"/.exec(second.headers.get('link') ?? '')![1]!;
      const back = await api('GET', new URL(prev).pathname + new URL(prev).search);
      expect(back.body.map((a: { after: string }) => a.after)).toEqual(newestFirst.slice(0, 2));
      const oldestFirst = await api(
        'GET',
        '/repos/acme/app/activity?direction=asc&activity_type=branch_creation',
      );
      expect(oldestFirst.body.map((a: { after: string }) => a.after)).toEqual([seeded]);
    });
  });

  describe('statuses', () => {
    it('creates statuses and combines the latest per context', async () => {
      await api('POST', `/repos/acme/app/statuses/${seeded}`, { state: 'pending', context: 'perimeter' });
      const created = await api('POST', `/repos/acme/app/statuses/${seeded}`, {
        state: 'success',
        context: 'perimeter',
        description: 'ok',
      });
      expect(created.status).toBe(201);
      const combined = await api('GET', '/repos/acme/app/commits/main/status');
      expect(combined.body).toMatchObject({ state: 'success', total_count: 1, sha: seeded });
      expect((await api('GET', '/repos/acme/app/commits/main/statuses')).body).toHaveLength(2);
    });

    it('refuses a description over 140 characters with 422', async () => {
      const answer = await api('POST', `/repos/acme/app/statuses/${seeded}`, {
        state: 'success',
        context: 'c',
        description: 'x'.repeat(141),
      });
      expect(answer.status).toBe(422);
      expect(answer.body.errors[0]).toMatchObject({ field: 'description' });
      expect(
        (
          await api('POST', `/repos/acme/app/statuses/${seeded}`, {
            state: 'success',
            description: 'x'.repeat(140),
          })
        ).status,
      ).toBe(201);
    });
  });

  describe('auth, ETags and the rate limit', () => {
    it('answers 401 without the token or with a wrong one', async () => {
      expect((await restClient(gh.url, null)('GET', '/repos/acme/app')).body.message).toBe(
        'Requires authentication',
      );
      expect((await restClient(gh.url, 'wrong')('GET', '/repos/acme/app')).status).toBe(401);
      const bearer = await fetch(`${gh.url}/repos/acme/app`, {
        headers: { authorization: 'Bearer test-token' },
      });
      expect(bearer.status).toBe(200);
    });

    it('answers a repeated conditional GET with 304 without spending budget', async () => {
      const first = await api('GET', '/repos/acme/app/git/ref/heads/main');
      const remaining = Number(first.headers.get('x-ratelimit-remaining'));
      const again = await api('GET', '/repos/acme/app/git/ref/heads/main', undefined, {
        'if-none-match': first.headers.get('etag')!,
      });
      expect(again.status).toBe(304);
      expect(Number(again.headers.get('x-ratelimit-remaining'))).toBe(remaining);
      expect(gh.stats()).toMatchObject({ notModified: 1, spent: 1, total: 2 });
      await commitToBare(repoDir, 'main', { 'x.txt': 'x\n' });
      const changed = await api('GET', '/repos/acme/app/git/ref/heads/main', undefined, {
        'if-none-match': first.headers.get('etag')!,
      });
      expect(changed.status).toBe(200);
      expect(Number(changed.headers.get('x-ratelimit-remaining'))).toBe(remaining - 1);
    });

    it('answers 403 with remaining 0 once the budget is spent', async () => {
      for (let i = 0; i < 50; i++) await api('GET', '/repos/acme/app');
      const refused = await api('GET', '/repos/acme/app');
      expect(refused.status).toBe(403);
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(Number(refused.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
      expect(refused.body.message).toMatch(/rate limit/);
      const write = await api('POST', `/repos/acme/app/statuses/${seeded}`, { state: 'success' });
      expect(write.status).toBe(403);
      expect((await api('GET', '/repos/acme/app/commits/main/statuses')).status).toBe(403);
    });
  });
});
