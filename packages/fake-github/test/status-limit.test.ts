import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { seedRepo, startFakeGithub } from '../src/index.js';
import type { FakeGithub } from '../src/index.js';
import { restClient, scratchDir } from './test-support.js';
import type { Api } from './test-support.js';

describe('the limit of 1,000 statuses per commit and context', () => {
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
      appTokens: { 'ghs-perimeter': { slug: 'perimeter', id: 271_828 } },
    });
    api = restClient(gh.url);
  });
  afterEach(async () => {
    await gh.stop();
    await cleanup();
  });

  const post = (context: string, state = 'success') =>
    api('POST', `/repos/acme/app/statuses/${head}`, { state, context });

  describe('when a context holds 999 statuses', () => {
    beforeEach(() => gh.seedStatuses('acme/app', head, 'perimeter', 999, { state: 'pending' }));

    it("takes the 1,000th through the API and refuses the 1,001st with GitHub's words", async () => {
      expect((await post('perimeter')).status).toBe(201);
      const refused = await post('perimeter');
      expect(refused.status).toBe(422);
      expect(refused.body).toMatchObject({
        message: 'Validation Failed',
        errors: [
          {
            resource: 'Status',
            code: 'custom',
            message: 'This SHA and context has reached the maximum number of statuses.',
          },
        ],
      });
      const combined = await api('GET', `/repos/acme/app/commits/${head}/status`);
      expect(combined.body.statuses.map((s: { state: string }) => s.state)).toEqual(['success']);
    });

    it('still takes another context on the same commit', async () => {
      expect((await post('perimeter')).status).toBe(201);
      expect((await post('other')).status).toBe(201);
    });
  });

  describe('when statuses are seeded', () => {
    it('lists them as posted one by one, newest first, by the main token by default', async () => {
      gh.seedStatuses('acme/app', head, 'perimeter', 3, { state: 'failure' });
      const listed = await api('GET', `/repos/acme/app/commits/${head}/statuses?per_page=100`);
      expect(listed.body).toHaveLength(3);
      expect(listed.body.map((s: { id: number }) => s.id)).toEqual([3, 2, 1]);
      expect(listed.body[0]).toMatchObject({
        context: 'perimeter',
        state: 'failure',
        creator: { login: 'github-actions[bot]' },
      });
    });

    it('names another creator', async () => {
      gh.seedStatuses('acme/app', head, 'perimeter', 1, { creator: 'perimeter[bot]' });
      const listed = await api('GET', `/repos/acme/app/commits/${head}/statuses`);
      expect(listed.body[0].creator.login).toBe('perimeter[bot]');
    });

    it('throws past the limit, as the API would refuse', () => {
      gh.seedStatuses('acme/app', head, 'perimeter', 1000);
      expect(() => gh.seedStatuses('acme/app', head, 'perimeter', 1)).toThrow(/GitHub keeps 1000/);
    });

    it('throws for a repository the stand-in does not serve, or a SHA that is not one', () => {
      expect(() => gh.seedStatuses('acme/nope', head, 'perimeter', 1)).toThrow(/no repository acme\/nope/);
      expect(() => gh.seedStatuses('acme/app', 'main', 'perimeter', 1)).toThrow(/full commit SHA/);
    });
  });
});
