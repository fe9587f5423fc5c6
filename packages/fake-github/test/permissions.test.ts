import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commitToBare, seedRepo, startFakeGithub, gitText } from '../src/index.js';
import type { FakeGithub } from '../src/index.js';
import { cloneUrl, gitClient, restClient, scratchDir } from './test-support.js';

describe('a token with contents: read', () => {
  let gh: FakeGithub;
  let dir: string;
  let cleanup: () => Promise<void>;
  let seeded: string;

  beforeEach(async () => {
    ({ dir, cleanup } = await scratchDir());
    seeded = await seedRepo(join(dir, 'repo.git'), { 'src/app.ts': 'export const a = 1;\n' });
    gh = await startFakeGithub({ repos: { 'acme/app': join(dir, 'repo.git') }, contents: 'read' });
  });
  afterEach(async () => {
    await gh.stop();
    await cleanup();
  });

  it('reads and posts statuses, and every contents write is answered 403 as GitHub answers it', async () => {
    const api = restClient(gh.url);
    expect((await api('GET', '/repos/acme/app/git/ref/heads/main')).body.object.sha).toBe(seeded);
    const writes: Array<[string, string, unknown]> = [
      ['POST', '/repos/acme/app/git/blobs', { content: 'x', encoding: 'utf-8' }],
      ['POST', '/repos/acme/app/git/trees', { tree: [] }],
      ['POST', '/repos/acme/app/git/refs', { ref: 'refs/heads/x', sha: seeded }],
      ['PATCH', '/repos/acme/app/git/refs/heads/main', { sha: seeded, force: true }],
      ['DELETE', '/repos/acme/app/git/refs/heads/main', undefined],
    ];
    for (const [method, path, body] of writes) {
      const answer = await api(method, path, body);
      expect(answer.status, `${method} ${path}`).toBe(403);
      expect(answer.body.message).toBe('Resource not accessible by integration');
    }
    const status = await api('POST', `/repos/acme/app/statuses/${seeded}`, {
      state: 'pending',
      context: 'c',
    });
    expect(status.status).toBe(201);
    expect((await gitText(join(dir, 'repo.git'), ['rev-parse', 'refs/heads/main'])).trim()).toBe(seeded);
  });

  it('refuses a GraphQL createCommitOnBranch as GitHub does: the field null, a FORBIDDEN error', async () => {
    const answer = await restClient(gh.url)('POST', '/graphql', {
      query: `mutation($input: CreateCommitOnBranchInput!) { createCommitOnBranch(input: $input) { commit { oid } } }`,
      variables: {
        input: {
          branch: { repositoryNameWithOwner: 'acme/app', branchName: 'main' },
          expectedHeadOid: seeded,
          message: { headline: 'around the REST refusal' },
          fileChanges: { additions: [{ path: 'x.txt', contents: Buffer.from('x').toString('base64') }] },
        },
      },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual({ createCommitOnBranch: null });
    expect(answer.body.errors).toEqual([
      expect.objectContaining({
        type: 'FORBIDDEN',
        path: ['createCommitOnBranch'],
        message: 'Resource not accessible by integration',
        extensions: expect.objectContaining({ saml_failure: false }),
      }),
    ]);
    expect((await gitText(join(dir, 'repo.git'), ['rev-parse', 'refs/heads/main'])).trim()).toBe(seeded);
  });

  it('clones, and refuses a git push before it starts', async () => {
    const work = join(dir, 'work');
    await gitClient(dir, ['clone', '--quiet', cloneUrl(gh.url, 'acme/app', 'test-token'), work], dir);
    await writeFile(join(work, 'src/app.ts'), 'changed\n');
    await gitClient(work, ['commit', '--quiet', '-am', 'change'], dir);
    await expect(gitClient(work, ['push', '--quiet', 'origin', 'HEAD:main'], dir)).rejects.toThrow(
      /denied to github-actions\[bot\]|403/,
    );
    expect((await gitText(join(dir, 'repo.git'), ['rev-parse', 'refs/heads/main'])).trim()).toBe(seeded);
    expect(gh.stats().byRoute['GIT POST /{owner}/{repo}.git/git-receive-pack']).toBeUndefined();
  });
});

describe('a token without statuses: write', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let seeded: string;

  beforeEach(async () => {
    ({ dir, cleanup } = await scratchDir());
    seeded = await seedRepo(join(dir, 'repo.git'), { 'a.txt': 'a\n' });
  });
  afterEach(async () => cleanup());

  it.each([
    ['read', 200],
    ['none', 403],
  ] as const)('with statuses: %s, posting is refused and listing answers %i', async (statuses, listed) => {
    const gh = await startFakeGithub({ repos: { 'acme/app': join(dir, 'repo.git') }, statuses });
    try {
      const api = restClient(gh.url);
      const posted = await api('POST', `/repos/acme/app/statuses/${seeded}`, {
        state: 'success',
        context: 'c',
      });
      expect(posted.status).toBe(403);
      expect(posted.body.message).toBe('Resource not accessible by integration');
      expect((await api('GET', `/repos/acme/app/commits/${seeded}/statuses`)).status).toBe(listed);
      expect((await api('GET', `/repos/acme/app/commits/main/status`)).status).toBe(listed);
    } finally {
      await gh.stop();
    }
  });
});

describe('tokens without pull-requests: write or actions: write', () => {
  let dir: string;
  let cleanup: () => Promise<void>;

  beforeEach(async () => {
    ({ dir, cleanup } = await scratchDir());
    const repo = join(dir, 'repo.git');
    await seedRepo(repo, { 'a.txt': 'a\n' });
    await gitText(repo, ['branch', 'topic', 'main']);
    await commitToBare(repo, 'topic', { 'b.txt': 'b\n' }, 'On topic');
  });
  afterEach(async () => cleanup());

  it.each([
    ['write', 201, 200],
    ['read', 403, 200],
    ['none', 403, 403],
  ] as const)('pull-requests: %s opens (%i) and reads (%i) pull requests', async (level, opened, read) => {
    const gh = await startFakeGithub({ repos: { 'acme/app': join(dir, 'repo.git') } });
    try {
      gh.addToken('limited', 'octocat', { 'pull-requests': level });
      const open = { title: 't', head: 'topic', base: 'main' };
      expect((await restClient(gh.url)('POST', '/repos/acme/app/pulls', open)).status).toBe(201);
      const api = restClient(gh.url, 'limited');
      expect((await api('POST', '/repos/acme/app/pulls', open)).status).toBe(opened === 201 ? 422 : 403);
      expect((await api('GET', '/repos/acme/app/pulls/1')).status).toBe(read);
      expect((await api('GET', '/repos/acme/app/pulls/1/commits')).status).toBe(read);
      expect((await api('GET', '/repos/acme/app/pulls/1/reviews')).status).toBe(read);
      const review = await api('POST', '/repos/acme/app/pulls/1/reviews', { event: 'COMMENT', body: 'x' });
      expect(review.status).toBe(level === 'write' ? 200 : 403);
    } finally {
      await gh.stop();
    }
  });

  it.each([
    ['read', 200],
    ['none', 403],
  ] as const)('actions: %s lists the run jobs and artifacts (%i)', async (actions, listed) => {
    const gh = await startFakeGithub({ repos: { 'acme/app': join(dir, 'repo.git') }, actions });
    try {
      gh.recordJob('acme/app', { runId: 1, name: 'implement', runnerName: 'GitHub Actions 1' });
      const api = restClient(gh.url);
      expect((await api('GET', '/repos/acme/app/actions/runs/1/jobs')).status).toBe(listed);
      expect((await api('GET', '/repos/acme/app/actions/artifacts')).status).toBe(listed);
    } finally {
      await gh.stop();
    }
  });
});

describe('issues and a pull request conversation, by permission', () => {
  let gh: FakeGithub;
  let dir: string;
  let cleanup: () => Promise<void>;

  beforeEach(async () => {
    ({ dir, cleanup } = await scratchDir());
    const bare = join(dir, 'repo.git');
    await seedRepo(bare, { 'src/app.ts': 'export const a = 1;\n' });
    await commitToBare(bare, 'side', { 'src/app.ts': 'export const a = 2;\n' }, 'side');
    gh = await startFakeGithub({
      repos: { 'acme/app': bare },
      issues: 'read',
      extraTokens: { 'issues-none': 'stranger', teammate: 'maintainer' },
      collaborators: { maintainer: 'write' },
    });
    gh.addToken('issues-none', 'stranger', { issues: 'none', 'pull-requests': 'none' });
  });
  afterEach(async () => {
    await gh.stop();
    await cleanup();
  });

  it('comments on a pull request with pull-requests: write, never on an issue without issues: write', async () => {
    const api = restClient(gh.url);
    const pull = await api('POST', '/repos/acme/app/pulls', { title: 'Side', head: 'side', base: 'main' });
    expect(pull.status).toBe(201);
    // issues and pull requests share numbers: the issue a teammate opens is #2
    const opened = await restClient(gh.url, 'teammate')('POST', '/repos/acme/app/issues', {
      title: 'A widget',
    });
    expect(opened.body.number).toBe(2);
    expect((await api('GET', '/repos/acme/app/issues/2')).body.author_association).toBe('COLLABORATOR');
    expect((await api('POST', '/repos/acme/app/issues/2/comments', { body: 'on the issue' })).status).toBe(
      403,
    );
    const issue = await restClient(gh.url, 'issues-none')('POST', '/repos/acme/app/issues', { title: 'x' });
    expect(issue.status).toBe(403);
    expect((await api('POST', '/repos/acme/app/issues', { title: 'Add a widget' })).status).toBe(403);
    expect(
      (await api('POST', '/repos/acme/app/issues/1/comments', { body: 'on the pull request' })).status,
    ).toBe(201);
    expect((await api('GET', '/repos/acme/app/issues/1/comments')).body).toHaveLength(1);
    expect((await restClient(gh.url, 'issues-none')('GET', '/repos/acme/app/issues/1/comments')).status).toBe(
      403,
    );
    const permission = async (login: string): Promise<string> =>
      (await api('GET', `/repos/acme/app/collaborators/${login}/permission`)).body.permission as string;
    expect([await permission('acme'), await permission('maintainer'), await permission('stranger')]).toEqual([
      'admin',
      'write',
      'none',
    ]);
  });
});
