import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { seedRepo, startFakeGithub } from '../src/index.js';
import type { FakeGithub } from '../src/index.js';
import { restClient, scratchDir } from './test-support.js';
import type { Api } from './test-support.js';

const NOT_ACCESSIBLE = 'Resource not accessible by integration';
const annotation = (path: string) => ({
  path,
  start_line: 1,
  end_line: 1,
  annotation_level: 'failure',
  message: `${path} is outside`,
});
const output = (count: number) => ({
  title: 't',
  summary: 's',
  annotations: Array.from({ length: count }, (_, i) => annotation(`f${i}.txt`)),
});

describe('the Checks API', () => {
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
      extraTokens: { 'ghp-person-token': 'octocat', 'ghs-other-app': 'renovate[bot]' },
    });
    api = restClient(gh.url);
  });
  afterEach(async () => {
    await gh.stop();
    await cleanup();
  });

  const create = (body: Record<string, unknown>, client: Api = api) =>
    client('POST', '/repos/acme/app/check-runs', { name: 'perimeter', head_sha: head, ...body });

  describe('when a request is not what GitHub takes', () => {
    it.each([
      ['no name', { name: undefined, conclusion: 'success' }],
      ['no head_sha', { head_sha: undefined, conclusion: 'success' }],
      ['completed without a conclusion', { status: 'completed' }],
      ['completed_at without a conclusion', { completed_at: '2026-01-01T00:00:00Z' }],
      ['a conclusion only GitHub sets', { conclusion: 'stale' }],
      ['a status only Actions sets', { status: 'waiting' }],
      ['51 annotations in one request', { conclusion: 'failure', output: output(51) }],
      ['an output without a summary', { conclusion: 'failure', output: { title: 't' } }],
      [
        'a summary over 65,535 characters',
        { conclusion: 'failure', output: { title: 't', summary: 'x'.repeat(65_536) } },
      ],
      [
        'a text over 65,535 characters',
        { conclusion: 'failure', output: { title: 't', summary: 's', text: 'x'.repeat(65_536) } },
      ],
      [
        'an annotation without a line',
        {
          conclusion: 'failure',
          output: {
            title: 't',
            summary: 's',
            annotations: [{ path: 'a', annotation_level: 'failure', message: 'm' }],
          },
        },
      ],
      [
        'an annotation of an unknown level',
        {
          conclusion: 'failure',
          output: {
            title: 't',
            summary: 's',
            annotations: [{ ...annotation('a'), annotation_level: 'error' }],
          },
        },
      ],
      ['a started_at that is no time', { conclusion: 'success', started_at: 'yesterday' }],
    ])('answers 422 to %s and keeps nothing', async (_, body) => {
      const answer = await create(body);
      expect(answer.status, JSON.stringify(answer.body)).toBe(422);
      expect(
        (await api('GET', `/repos/acme/app/commits/${head}/check-runs?filter=all`)).body.total_count,
      ).toBe(0);
    });

    it('answers 422 naming a head_sha that is no commit', async () => {
      const answer = await create({ head_sha: 'f'.repeat(40), conclusion: 'success' });
      expect(answer.status).toBe(422);
      expect(answer.body.message).toBe(`No commit found for SHA: ${'f'.repeat(40)}`);
    });

    it('takes exactly 50 annotations, and 50 more in an update, which appends them', async () => {
      const created = await create({ conclusion: 'failure', output: output(50) });
      expect(created.status).toBe(201);
      expect(created.body.output.annotations_count).toBe(50);
      const id = created.body.id as number;
      const refused = await api('PATCH', `/repos/acme/app/check-runs/${id}`, { output: output(51) });
      expect(refused.status).toBe(422);
      const updated = await api('PATCH', `/repos/acme/app/check-runs/${id}`, { output: output(50) });
      expect(updated.status).toBe(200);
      expect(updated.body.output.annotations_count).toBe(100);
      expect(updated.body.conclusion).toBe('failure');
      const page = await api('GET', `/repos/acme/app/check-runs/${id}/annotations?per_page=100`);
      expect(page.body).toHaveLength(100);
      expect(page.body[0].message).toBe('f0.txt is outside');
    });
  });

  describe('when check runs are listed for a commit', () => {
    it('filters by name, keeps the latest of each by default or all with filter=all, and pages', async () => {
      const first = await create({ conclusion: 'failure', started_at: '2020-01-01T00:00:00Z' });
      expect(first.body.started_at).toBe('2020-01-01T00:00:00Z');
      await create({ conclusion: 'success' });
      await create({ name: 'build', conclusion: 'success' });
      const latest = await api('GET', `/repos/acme/app/commits/main/check-runs?check_name=perimeter`);
      expect(latest.body.total_count).toBe(1);
      expect(latest.body.check_runs[0].conclusion).toBe('success');
      const all = await api(
        'GET',
        `/repos/acme/app/commits/${head}/check-runs?check_name=perimeter&filter=all`,
      );
      expect(all.body.check_runs.map((r: { conclusion: string }) => r.conclusion)).toEqual([
        'success',
        'failure',
      ]);
      expect(all.body.check_runs[0].app.slug).toBe('github-actions');
      // the latest is the newest completed_at, which the creator may send
      await create({ conclusion: 'neutral', completed_at: '2099-01-01T00:00:00Z' });
      await create({ conclusion: 'failure' });
      const dated = await api('GET', `/repos/acme/app/commits/${head}/check-runs?check_name=perimeter`);
      expect(dated.body.check_runs[0].conclusion).toBe('neutral');
      const paged = await api(
        'GET',
        `/repos/acme/app/commits/${head}/check-runs?filter=all&per_page=2&page=3`,
      );
      expect(paged.body.total_count).toBe(5);
      expect(paged.body.check_runs).toHaveLength(1);
      expect(paged.headers.get('link')).toContain('rel="first"');
    });
  });

  describe('when the token may not write check runs', () => {
    it('refuses a person (an OAuth or personal token) as GitHub does: only apps create check runs', async () => {
      const answer = await create({ conclusion: 'success' }, restClient(gh.url, 'ghp-person-token'));
      expect(answer.status).toBe(403);
      expect(answer.body.message).toBe('You must authenticate via a GitHub App.');
    });

    it('lets only the app that created a run update it', async () => {
      const id = (await create({ conclusion: 'failure' })).body.id as number;
      const answer = await restClient(gh.url, 'ghs-other-app')('PATCH', `/repos/acme/app/check-runs/${id}`, {
        conclusion: 'success',
      });
      expect(answer.status).toBe(403);
      expect((await api('GET', `/repos/acme/app/check-runs/${id}`)).body.conclusion).toBe('failure');
    });

    it('answers 403 to a write with checks: read, and to any request with checks: none', async () => {
      gh.addToken('ghs-read-only-checks', 'github-actions[bot]', { checks: 'read' });
      gh.addToken('ghs-no-checks', 'github-actions[bot]', { checks: 'none' });
      const reader = restClient(gh.url, 'ghs-read-only-checks');
      const refused = await create({ conclusion: 'success' }, reader);
      expect(refused.status).toBe(403);
      expect(refused.body.message).toBe(NOT_ACCESSIBLE);
      expect((await reader('GET', `/repos/acme/app/commits/${head}/check-runs`)).status).toBe(200);
      const none = restClient(gh.url, 'ghs-no-checks');
      expect((await none('GET', `/repos/acme/app/commits/${head}/check-runs`)).body.message).toBe(
        NOT_ACCESSIBLE,
      );
      expect((await none('GET', '/repos/acme/app')).status).toBe(200);
      expect(
        (await api('GET', `/repos/acme/app/commits/${head}/check-runs?filter=all`)).body.total_count,
      ).toBe(0);
    });

    it('answers 403 to the main token when the server says checks: read', async () => {
      const scratch = await scratchDir();
      const dir = join(scratch.dir, 'r.git');
      const sha = await seedRepo(dir, { 'a.txt': 'a\n' });
      const limited = await startFakeGithub({ repos: { 'acme/app': dir }, checks: 'read' });
      try {
        const answer = await restClient(limited.url)('POST', '/repos/acme/app/check-runs', {
          name: 'perimeter',
          head_sha: sha,
          conclusion: 'success',
        });
        expect(answer.status).toBe(403);
        expect(answer.body.message).toBe(NOT_ACCESSIBLE);
      } finally {
        await limited.stop();
        await scratch.cleanup();
      }
    });
  });
});
