import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitToBare, seedRepo, startFakeGithub, type FakeGithub } from '../src/index.js';
import { restClient, scratchDir, type Api } from './test-support.js';

const PERSON = 'person-token-0123456789';

describe('pull request reviews', () => {
  let gh: FakeGithub;
  let job: Api;
  let person: Api;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    const scratch = await scratchDir();
    cleanup = scratch.cleanup;
    const dir = join(scratch.dir, 'repo.git');
    await seedRepo(dir, { 'README.md': '# hi\n' });
    gh = await startFakeGithub({ repos: { 'acme/app': dir } });
    gh.addToken(PERSON, 'octocat');
    job = restClient(gh.url);
    person = restClient(gh.url, PERSON);
    for (const branch of ['by-job', 'by-person']) {
      await job('POST', '/repos/acme/app/git/refs', {
        ref: `refs/heads/${branch}`,
        sha: (await job('GET', '/repos/acme/app/git/ref/heads/main')).body.object.sha,
      });
      await commitToBare(dir, branch, { [`${branch}.txt`]: 'x\n' });
    }
    expect(
      (await job('POST', '/repos/acme/app/pulls', { title: 't', head: 'by-job', base: 'main' })).status,
    ).toBe(201);
    expect(
      (await person('POST', '/repos/acme/app/pulls', { title: 't', head: 'by-person', base: 'main' })).status,
    ).toBe(201);
  });
  afterAll(async () => {
    await gh.stop();
    await cleanup();
  });

  const review = (api: Api, pull: number, event: string, body?: string) =>
    api('POST', `/repos/acme/app/pulls/${pull}/reviews`, { event, ...(body === undefined ? {} : { body }) });
  const errors = (answer: { body: { errors?: unknown[] } }) => answer.body.errors;

  describe('when the job token reviews its own pull request', () => {
    it('refuses an approval and a request for changes, and takes a comment', async () => {
      expect(errors(await review(job, 1, 'APPROVE'))).toEqual(['Can not approve your own pull request']);
      expect(errors(await review(job, 1, 'REQUEST_CHANGES', 'no'))).toEqual([
        'Can not request changes on your own pull request',
      ]);
      const comment = await review(job, 1, 'COMMENT', 'sent to review: AGENTS.md');
      expect(comment.status).toBe(200);
      expect(comment.body).toMatchObject({ state: 'COMMENTED', user: { login: 'github-actions[bot]' } });
    });
  });

  describe("when the job token reviews someone else's pull request", () => {
    it('refuses an approval from GitHub Actions, and takes a request for changes', async () => {
      const approval = await review(job, 2, 'APPROVE');
      expect(approval.status).toBe(422);
      expect(errors(approval)).toEqual(['GitHub Actions is not permitted to approve pull requests.']);
      expect((await review(job, 2, 'REQUEST_CHANGES', 'please look')).body.state).toBe('CHANGES_REQUESTED');
    });
  });

  describe("when a second identity reviews the job token's pull request", () => {
    it('takes a request for changes and an approval, and lists every review oldest first', async () => {
      expect((await review(person, 1, 'REQUEST_CHANGES', 'a person decides')).status).toBe(200);
      expect((await review(person, 1, 'APPROVE')).status).toBe(200);
      const listed = await job('GET', '/repos/acme/app/pulls/1/reviews');
      expect((listed.body as Array<{ state: string }>).map((r) => r.state)).toEqual([
        'COMMENTED',
        'CHANGES_REQUESTED',
        'APPROVED',
      ]);
    });
  });

  it('refuses a request for changes without a body', async () => {
    expect((await review(person, 1, 'REQUEST_CHANGES')).status).toBe(422);
  });
});
