import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git, gitText, seedRepo, startFakeGithub, writeRequests } from '../src/index.js';
import type { FakeGithub, FakeGithubOptions } from '../src/index.js';
import { restClient, scratchDir } from './test-support.js';
import type { Api, Json } from './test-support.js';

const MUTATION = `mutation($input: CreateCommitOnBranchInput!) {
  createCommitOnBranch(input: $input) { commit { oid message tree { oid } parents(first: 1) { nodes { oid } } author { name email } committer { name } } ref { name } }
}`;

const b64 = (text: string | Buffer): string => Buffer.from(text).toString('base64');

describe('createCommitOnBranch', () => {
  let gh: FakeGithub;
  let api: Api;
  let dir: string;
  let repoDir: string;
  let cleanup: () => Promise<void>;

  const start = async (options: Partial<FakeGithubOptions> = {}) => {
    await gh?.stop();
    gh = await startFakeGithub({ repos: { 'acme/app': repoDir }, ...options });
    api = restClient(gh.url);
  };
  const head = async () => (await gitText(repoDir, ['rev-parse', 'main'])).trim();
  const commit = async (input: Record<string, unknown>, client: Api = api) =>
    (await client('POST', '/graphql', { query: MUTATION, variables: { input } })).body as Json;
  const input = (
    expected: string,
    fileChanges: Record<string, unknown>,
    extra: Record<string, unknown> = {},
  ) => ({
    branch: { repositoryNameWithOwner: 'acme/app', branchName: 'main' },
    expectedHeadOid: expected,
    message: { headline: 'change', body: 'why it changed' },
    fileChanges,
    ...extra,
  });

  beforeEach(async () => {
    ({ dir, cleanup } = await scratchDir());
    repoDir = join(dir, 'repo.git');
    await seedRepo(repoDir, { 'a.txt': 'a\n', 'd/c.txt': 'c\n' });
    gh = undefined as unknown as FakeGithub;
    await start({ extraTokens: { 'teammate-token': 'teammate' } });
  });
  afterEach(async () => {
    await gh.stop();
    await cleanup();
  });

  describe('when the branch is at the expected head', () => {
    it('writes text and binary additions and deletions in one signed commit by the token, mode 100644', async () => {
      const before = await head();
      const binary = Buffer.from([0, 1, 2, 255, 254, 10]);
      const body = await commit(
        input(before, {
          additions: [
            { path: 'new/n.txt', contents: b64('new\n') },
            { path: 'bin/x.bin', contents: b64(binary) },
            { path: 'a.txt', contents: b64('a2\n') },
          ],
          deletions: [{ path: 'd/c.txt' }],
        }),
      );
      expect(body.errors).toBeUndefined();
      const made = body.data.createCommitOnBranch.commit;
      expect(made.oid).toBe(await head());
      expect(made.message).toBe('change\n\nwhy it changed');
      expect(made.parents.nodes).toEqual([{ oid: before }]);
      expect(made.author).toEqual({ name: 'github-actions[bot]', email: expect.stringMatching(/noreply/) });
      expect(made.committer.name).toBe('GitHub');
      expect(body.data.createCommitOnBranch.ref).toEqual({ name: 'main' });
      expect(await git(repoDir, ['show', 'main:bin/x.bin'])).toEqual(binary);
      expect(await gitText(repoDir, ['show', 'main:a.txt'])).toBe('a2\n');
      expect(await gitText(repoDir, ['ls-tree', '-r', 'main'])).not.toContain('d/c.txt');
      expect(await gitText(repoDir, ['cat-file', 'commit', 'main'])).toMatch(/^gpgsig /m);
      const modes = (await gitText(repoDir, ['ls-tree', '-r', '--format=%(objectmode)', 'main'])).trim();
      expect(new Set(modes.split('\n'))).toEqual(new Set(['100644']));
      expect(writeRequests(gh.stats())).toEqual({ 'GRAPHQL mutation createCommitOnBranch': 1 });
      expect(gh.stats().graphqlPoints).toBe(1);
    });

    it('records the push in the activity list as the token that made it', async () => {
      const teammate = restClient(gh.url, 'teammate-token');
      const body = await commit(
        input(await head(), { additions: [{ path: 't.txt', contents: b64('t') }] }),
        teammate,
      );
      expect(body.errors).toBeUndefined();
      const activity = (await api('GET', '/repos/acme/app/activity')).body;
      expect(activity[0]).toMatchObject({
        ref: 'refs/heads/main',
        after: body.data.createCommitOnBranch.commit.oid,
        activity_type: 'push',
        actor: { login: 'teammate' },
      });
    });
  });

  describe('when anything is wrong', () => {
    const refused = async (
      changes: Record<string, unknown>,
      type: string | RegExp,
      message: RegExp,
      extra: Record<string, unknown> = {},
    ) => {
      const before = await head();
      const body = await commit(input((extra.expectedHeadOid as string) ?? before, changes, extra));
      expect(body.data?.createCommitOnBranch ?? null).toBeNull();
      expect(body.errors[0].type).toMatch(type);
      expect(body.errors[0].message).toMatch(message);
      expect(await head()).toBe(before);
    };

    it('answers STALE_DATA as GitHub words it when the branch is elsewhere', async () => {
      const stale = 'f'.repeat(40);
      await refused(
        { additions: [{ path: 'x', contents: b64('x') }] },
        'STALE_DATA',
        /^Expected branch to point to "f{40}" but it did not\. {2}Pull and try again\.$/,
        {
          expectedHeadOid: stale,
        },
      );
    });

    it('refuses a missing deletion, a directory deletion, bad base64 and repeated paths', async () => {
      await refused(
        { deletions: [{ path: 'nope.txt' }] },
        'NOT_FOUND',
        /A path was requested for deletion which does not exist as of commit oid `[0-9a-f]{40}`/,
      );
      await refused({ deletions: [{ path: 'd' }] }, 'NOT_FOUND', /requested for deletion/);
      await refused({ additions: [{ path: 'x', contents: 'aGk' }] }, 'INVALID_INPUT', /Invalid base64/);
      await refused({ additions: [{ path: 'x', contents: 'aG k=' }] }, 'INVALID_INPUT', /Invalid base64/);
      await refused(
        { additions: [{ path: 'a.txt', contents: b64('x') }], deletions: [{ path: 'a.txt' }] },
        'INVALID_INPUT',
        /more than once/,
      );
      await refused(
        { additions: [{ path: 'a.txt/below', contents: b64('x') }] },
        'UNPROCESSABLE',
        /is a file/,
      );
      await refused(
        { additions: [{ path: '../x', contents: b64('x') }] },
        'UNPROCESSABLE',
        /not a valid path/,
      );
    });

    it('refuses a branch that does not exist and a workflow change without the workflows permission', async () => {
      const body = await commit({
        ...input(await head(), { additions: [{ path: 'x', contents: b64('x') }] }),
        branch: { repositoryNameWithOwner: 'acme/app', branchName: 'nope' },
      });
      expect(body.errors[0].type).toBe('NOT_FOUND');
      await refused(
        { additions: [{ path: '.github/workflows/ci.yml', contents: b64('on: push\n') }] },
        'FORBIDDEN',
        /without `workflows` permission/,
      );
    });

    it('refuses when GraphQL budget is spent, and when the content-creation limit is reached', async () => {
      await start({ graphqlRateLimit: 0 });
      await refused({ additions: [{ path: 'x', contents: b64('x') }] }, 'RATE_LIMITED', /rate limit/);
      await start({ writesPerMinute: 1 });
      expect(
        (await commit(input(await head(), { additions: [{ path: 'x', contents: b64('x') }] }))).errors,
      ).toBeUndefined();
      const limited = await api('POST', '/graphql', {
        query: MUTATION,
        variables: { input: input(await head(), { additions: [{ path: 'y', contents: b64('y') }] }) },
      });
      expect(limited.status).toBe(403);
      expect(limited.headers.get('retry-after')).not.toBeNull();
    });
  });

  describe('when faults are injected', () => {
    it('moves the branch first for a move-ref fault, and carries out the call before losing its answer', async () => {
      gh.injectFault({
        kind: 'move-ref',
        repo: 'acme/app',
        ref: 'main',
        files: { 'o.txt': 'o' },
        actor: 'teammate',
      });
      const before = await head();
      const stale = await commit(input(before, { additions: [{ path: 'x', contents: b64('x') }] }));
      expect(stale.errors[0].type).toBe('STALE_DATA');
      const moved = await head();
      expect(moved).not.toBe(before);
      gh.injectFault({ kind: 'lose-answer', route: 'GRAPHQL mutation createCommitOnBranch' });
      const lost = await api('POST', '/graphql', {
        query: MUTATION,
        variables: { input: input(moved, { additions: [{ path: 'x', contents: b64('x') }] }) },
      });
      expect(lost.status).toBe(502);
      expect(await gitText(repoDir, ['show', 'main:x'])).toBe('x');
      gh.injectFault({ kind: 'status', status: 502, route: 'GRAPHQL mutation createCommitOnBranch' });
      const after = await head();
      expect(
        (await api('POST', '/graphql', { query: MUTATION, variables: { input: input(after, {}) } })).status,
      ).toBe(502);
      expect(await head()).toBe(after);
    });
  });
});
