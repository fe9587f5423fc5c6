import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { seedRepo, startFakeGithub } from '../src/index.js';
import type { FakeGithub } from '../src/index.js';
import { responseValidator } from './openapi-support.js';
import { restClient, scratchDir } from './test-support.js';
import type { Api } from './test-support.js';

const PERIMETER = { slug: 'perimeter', id: 271_828, name: 'Perimeter' };

describe('GitHub App installation tokens', () => {
  let gh: FakeGithub;
  let api: Api;
  let head: string;
  let cleanup: () => Promise<void>;

  beforeEach(async () => {
    const scratch = await scratchDir();
    cleanup = scratch.cleanup;
    head = await seedRepo(join(scratch.dir, 'repo.git'), { 'a.txt': 'a\n' });
    gh = await startFakeGithub({
      repos: { 'acme/app': join(scratch.dir, 'repo.git') },
      extraTokens: { 'ghp-person': 'octocat', 'ghs-renovate': 'renovate[bot]' },
      appTokens: { 'ghs-perimeter': PERIMETER },
    });
    api = restClient(gh.url);
  });
  afterEach(async () => {
    await gh.stop();
    await cleanup();
  });

  const createRun = (token: string, body: Record<string, unknown> = {}) =>
    restClient(gh.url, token)('POST', '/repos/acme/app/check-runs', {
      name: 'perimeter',
      head_sha: head,
      conclusion: 'success',
      ...body,
    });

  describe('when an App creates a check run', () => {
    it('carries the App with its own id and slug', async () => {
      const run = await createRun('ghs-perimeter');
      expect(run.status).toBe(201);
      expect(run.body.app).toMatchObject({ id: 271_828, slug: 'perimeter', name: 'Perimeter' });
      expect(responseValidator('/repos/{owner}/{repo}/check-runs', 'POST', 201)(run.body)).toBe(true);
    });

    it("carries GitHub Actions' id 15368 for the GITHUB_TOKEN", async () => {
      expect((await createRun('test-token')).body.app).toMatchObject({ id: 15368, slug: 'github-actions' });
    });

    it('numbers an App the tests gave no id, apart from every other', async () => {
      const renovate = (await createRun('ghs-renovate')).body.app;
      expect(renovate.slug).toBe('renovate');
      expect([15368, 271_828]).not.toContain(renovate.id);
      expect((await createRun('ghs-renovate')).body.app.id).toBe(renovate.id);
    });

    it('refuses a person, who is no App', async () => {
      const run = await createRun('ghp-person');
      expect(run.status).toBe(403);
      expect(run.body.message).toBe('You must authenticate via a GitHub App.');
    });
  });

  describe('when an App updates a check run', () => {
    it('updates its own', async () => {
      const run = await createRun('ghs-perimeter', { conclusion: undefined, status: 'in_progress' });
      const update = await restClient(gh.url, 'ghs-perimeter')(
        'PATCH',
        `/repos/acme/app/check-runs/${run.body.id}`,
        { conclusion: 'failure' },
      );
      expect(update.status).toBe(200);
      expect(update.body.conclusion).toBe('failure');
    });

    it.each([
      ['another App', 'ghs-renovate'],
      ['the GITHUB_TOKEN', 'test-token'],
    ])("refuses %s, by the App's id", async (_, token) => {
      const run = await createRun('ghs-perimeter');
      const update = await restClient(gh.url, token)('PATCH', `/repos/acme/app/check-runs/${run.body.id}`, {
        conclusion: 'failure',
      });
      expect(update.status).toBe(403);
      expect(update.body.message).toMatch(
        /^Invalid app_id `\d+` - check run can only be modified by its creator\.$/,
      );
      expect((await api('GET', `/repos/acme/app/check-runs/${run.body.id}`)).body.conclusion).toBe('success');
    });

    it('lets a second token of the same App update it', async () => {
      gh.addAppToken('ghs-perimeter-2', { slug: 'perimeter', id: 271_828 });
      const run = await createRun('ghs-perimeter');
      const update = await restClient(gh.url, 'ghs-perimeter-2')(
        'PATCH',
        `/repos/acme/app/check-runs/${run.body.id}`,
        { output: { title: 't', summary: 's' } },
      );
      expect(update.status).toBe(200);
    });
  });

  describe('when an App posts a commit status', () => {
    it('is its creator', async () => {
      const posted = await restClient(gh.url, 'ghs-perimeter')('POST', `/repos/acme/app/statuses/${head}`, {
        state: 'success',
        context: 'perimeter',
      });
      expect(posted.status).toBe(201);
      expect(posted.body.creator).toMatchObject({ login: 'perimeter[bot]', type: 'Bot' });
      const listed = await api('GET', `/repos/acme/app/commits/${head}/statuses`);
      expect(listed.body[0].creator.login).toBe('perimeter[bot]');
    });
  });

  describe('when addAppToken is called', () => {
    it('accepts the token at once', async () => {
      gh.addAppToken('ghs-later', { slug: 'later-app', id: 4242 });
      expect((await createRun('ghs-later')).body.app).toMatchObject({ id: 4242, slug: 'later-app' });
    });

    it('throws when the slug already has another id', () => {
      expect(() => gh.addAppToken('ghs-x', { slug: 'perimeter', id: 1 })).toThrow(
        'App perimeter already has id 271828, not 1',
      );
      expect(() => gh.addAppToken('ghs-x', { slug: 'github-actions', id: 1 })).toThrow(
        /already has id 15368/,
      );
    });

    it('throws when the id already belongs to another App', () => {
      expect(() => gh.addAppToken('ghs-x', { slug: 'copycat', id: 15368 })).toThrow(
        'App id 15368 already belongs to github-actions',
      );
    });

    it('refuses a token it never accepted', async () => {
      expect((await createRun('ghs-x')).status).toBe(401);
    });
  });
});
