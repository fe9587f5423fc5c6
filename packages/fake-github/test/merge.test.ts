import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commitToBare, gitText, seedRepo, startFakeGithub } from '../src/index.js';
import type { FakeGithub } from '../src/index.js';
import { responseValidator } from './openapi-support.js';
import { restClient, scratchDir } from './test-support.js';
import type { Api } from './test-support.js';

const PERIMETER_APP = 271_828;
const VIOLATIONS = 'Repository rule violations found';

describe('merging a pull request', () => {
  let gh: FakeGithub;
  let api: Api;
  let dir: string;
  let base: string;
  let head: string;
  let cleanup: () => Promise<void>;

  beforeEach(async () => {
    const scratch = await scratchDir();
    cleanup = scratch.cleanup;
    dir = join(scratch.dir, 'repo.git');
    base = await seedRepo(dir, { 'a.txt': 'a\n' });
    gh = await startFakeGithub({
      repos: { 'acme/app': dir },
      extraTokens: { 'ghp-person': 'octocat' },
      appTokens: {
        'ghs-perimeter': { slug: 'perimeter', id: PERIMETER_APP },
        'ghs-forger': { slug: 'forger', id: 31_337 },
      },
    });
    api = restClient(gh.url);
    await api('POST', '/repos/acme/app/git/refs', { ref: 'refs/heads/feature', sha: base });
    head = await commitToBare(dir, 'feature', { 'b.txt': 'b\n' }, 'add b');
    expect(
      (await api('POST', '/repos/acme/app/pulls', { title: 'Add b', head: 'feature', base: 'main' })).status,
    ).toBe(201);
  });
  afterEach(async () => {
    await gh.stop();
    await cleanup();
  });

  const as = (token: string): Api => restClient(gh.url, token);
  const merge = (body: Record<string, unknown> = {}, client: Api = api) =>
    client('PUT', '/repos/acme/app/pulls/1/merge', body);
  const main = async () => (await api('GET', '/repos/acme/app/git/ref/heads/main')).body.object.sha;
  const require = (checks: Array<{ context: string; integration_id?: number }>, strict = false) =>
    api('POST', '/repos/acme/app/rulesets', {
      name: 'gate',
      enforcement: 'active',
      conditions: { ref_name: { include: ['refs/heads/main'], exclude: [] } },
      rules: [
        {
          type: 'required_status_checks',
          parameters: { required_status_checks: checks, strict_required_status_checks_policy: strict },
        },
      ],
    });
  const checkRun = (token: string, body: Record<string, unknown>) =>
    as(token)('POST', '/repos/acme/app/check-runs', { name: 'perimeter', head_sha: head, ...body });
  const status = (token: string, state: string, context = 'perimeter') =>
    as(token)('POST', `/repos/acme/app/statuses/${head}`, { state, context });
  const refusal = (line: string) => `${VIOLATIONS}\n\n${line}\n\n`;

  describe('when no ruleset binds the base branch', () => {
    it('lands a merge commit of base and head on the base branch', async () => {
      const merged = await merge({ sha: head });
      expect(merged.status).toBe(200);
      expect(merged.body).toEqual({
        sha: merged.body.sha,
        merged: true,
        message: 'Pull Request successfully merged',
      });
      expect(
        responseValidator('/repos/{owner}/{repo}/pulls/{pull_number}/merge', 'PUT', 200)(merged.body),
      ).toBe(true);
      expect(await main()).toBe(merged.body.sha);
      const commit = (await api('GET', `/repos/acme/app/git/commits/${merged.body.sha}`)).body;
      expect(commit.parents.map((p: { sha: string }) => p.sha)).toEqual([base, head]);
      expect(commit.message).toBe('Merge pull request #1 from acme/feature\n\nAdd b\n');
      expect(commit.verification.verified).toBe(true);
      expect((await gitText(dir, ['show', `${merged.body.sha}:b.txt`])).trim()).toBe('b');
      const pull = (await api('GET', '/repos/acme/app/pulls/1')).body;
      expect(pull).toMatchObject({ state: 'closed', merged: true, merge_commit_sha: merged.body.sha });
      expect(pull.merged_by.login).toBe('github-actions[bot]');
    });

    it('squashes onto the base with the given title', async () => {
      const merged = await merge({ merge_method: 'squash', commit_title: 'Add b, squashed' });
      expect(merged.status).toBe(200);
      const commit = (await api('GET', `/repos/acme/app/git/commits/${merged.body.sha}`)).body;
      expect(commit.parents.map((p: { sha: string }) => p.sha)).toEqual([base]);
      expect(commit.message).toBe('Add b, squashed\n');
    });

    it('refuses a head that moved since the caller looked, with 409', async () => {
      const moved = await merge({ sha: base });
      expect(moved.status).toBe(409);
      expect(moved.body.message).toBe('Head branch was modified. Review and try the merge again.');
      expect(await main()).toBe(base);
    });

    it('refuses a pull request already merged, with 405', async () => {
      expect((await merge()).status).toBe(200);
      const again = await merge();
      expect(again.status).toBe(405);
      expect(again.body.message).toBe('Pull Request is not mergeable');
    });

    it('refuses a conflict, with 405, and leaves the base alone', async () => {
      await commitToBare(dir, 'feature', { 'a.txt': 'feature\n' });
      const moved = await commitToBare(dir, 'main', { 'a.txt': 'main\n' });
      const conflict = await merge();
      expect(conflict.status).toBe(405);
      expect(conflict.body.message).toBe('Pull Request is not mergeable');
      expect(await main()).toBe(moved);
    });

    it('refuses when the base moves before the merge lands, with 405', async () => {
      gh.injectFault({
        kind: 'move-ref',
        repo: 'acme/app',
        ref: 'refs/heads/main',
        files: { 'c.txt': 'c\n' },
      });
      const raced = await merge();
      expect(raced.status).toBe(405);
      expect(raced.body.message).toBe('Base branch was modified. Review and try the merge again.');
      expect(await main()).not.toBe(base);
      expect((await api('GET', '/repos/acme/app/pulls/1')).body.merged).toBe(false);
    });

    it('refuses a token with contents: read, with 403', async () => {
      await gh.stop();
      gh = await startFakeGithub({ repos: { 'acme/app': dir }, contents: 'read' });
      api = restClient(gh.url);
      await api('POST', '/repos/acme/app/pulls', { title: 'Add b', head: 'feature', base: 'main' });
      expect((await merge()).status).toBe(403);
      expect(await main()).toBe(base);
    });
  });

  describe('when the pull request changes a workflow', () => {
    beforeEach(async () => {
      head = await commitToBare(dir, 'feature', { '.github/workflows/ci.yml': 'on: push\n' });
    });

    it('refuses a token without the workflows permission, with 403', async () => {
      const refused = await merge();
      expect(refused.status).toBe(403);
      expect(refused.body.message).toBe(
        'refusing to allow a GitHub App to create or update workflow `.github/workflows/ci.yml` without `workflows` permission',
      );
      expect(await main()).toBe(base);
    });
  });

  describe('when a ruleset requires the check perimeter from the Perimeter App', () => {
    beforeEach(async () => {
      expect((await require([{ context: 'perimeter', integration_id: PERIMETER_APP }])).status).toBe(201);
    });

    const refused = async (line: string) => {
      const answer = await merge();
      expect(answer.status).toBe(405);
      expect(answer.body.message).toBe(refusal(line));
      expect(await main()).toBe(base);
    };

    it('refuses while nothing has reported', async () => {
      await refused('Required status check "perimeter" is expected.');
    });

    it('merges once the App reports success', async () => {
      await checkRun('ghs-perimeter', { conclusion: 'success' });
      expect((await merge()).status).toBe(200);
    });

    it('takes a commit status the App posted', async () => {
      expect((await status('ghs-perimeter', 'success')).status).toBe(201);
      expect((await merge()).status).toBe(200);
    });

    it.each(['neutral', 'skipped'])('takes a %s conclusion, as GitHub does', async (conclusion) => {
      await checkRun('ghs-perimeter', { conclusion });
      expect((await merge()).status).toBe(200);
    });

    it.each([
      ['a check run', (token: string) => checkRun(token, { conclusion: 'success' })],
      ['a commit status', (token: string) => status(token, 'success')],
    ])('refuses %s of that name from another App or the GITHUB_TOKEN', async (_, report) => {
      await report('ghs-forger');
      await report('test-token');
      await refused('Required status check "perimeter" was not set by the expected GitHub app.');
    });

    it("is not fooled by a forged run claiming a later time than the App's failure", async () => {
      await checkRun('ghs-perimeter', { conclusion: 'failure', completed_at: '2026-01-01T00:00:00Z' });
      await checkRun('ghs-forger', {
        conclusion: 'success',
        started_at: '2099-01-01T00:00:00Z',
        completed_at: '2099-01-01T00:00:01Z',
      });
      await refused('Required status check "perimeter" is failing.');
    });

    it("judges the App's latest run by creation, whatever times the runs claim", async () => {
      await checkRun('ghs-perimeter', { conclusion: 'success', completed_at: '2099-01-01T00:00:00Z' });
      await checkRun('ghs-perimeter', { conclusion: 'failure', completed_at: '2020-01-01T00:00:00Z' });
      await refused('Required status check "perimeter" is failing.');
      await checkRun('ghs-perimeter', { conclusion: 'success', completed_at: '2020-01-01T00:00:00Z' });
      expect((await merge()).status).toBe(200);
    });

    it.each([
      ['queued', { status: 'queued' }],
      ['in progress', { status: 'in_progress' }],
    ])('refuses while the run is %s', async (words, body) => {
      await checkRun('ghs-perimeter', body);
      await refused(`Required status check "perimeter" is ${words}.`);
    });

    it('refuses while its commit status is pending', async () => {
      await status('ghs-perimeter', 'pending');
      await refused('Required status check "perimeter" is pending.');
    });

    it("refuses when someone else's status replaces the App's", async () => {
      await status('ghs-perimeter', 'success');
      await status('test-token', 'success');
      await refused('Required status check "perimeter" was not set by the expected GitHub app.');
    });

    it('needs both its check run and its status to pass when it sent both', async () => {
      await checkRun('ghs-perimeter', { conclusion: 'success' });
      await status('ghs-perimeter', 'failure');
      await refused('Required status check "perimeter" is failing.');
    });

    it('judges the head commit, not the base', async () => {
      await as('ghs-perimeter')('POST', '/repos/acme/app/check-runs', {
        name: 'perimeter',
        head_sha: base,
        conclusion: 'success',
      });
      await refused('Required status check "perimeter" is expected.');
    });
  });

  describe('when a ruleset requires checks without naming an App', () => {
    it('takes any source', async () => {
      await require([{ context: 'perimeter' }]);
      await status('ghp-person', 'success');
      expect((await merge()).status).toBe(200);
    });

    it('needs every source that reported to pass', async () => {
      await require([{ context: 'perimeter' }]);
      await checkRun('ghs-perimeter', { conclusion: 'success' });
      await checkRun('ghs-forger', { conclusion: 'failure' });
      const answer = await merge();
      expect(answer.body.message).toBe(refusal('Required status check "perimeter" is failing.'));
    });

    it('counts several missing checks', async () => {
      await require([{ context: 'perimeter' }, { context: 'tests' }, { context: 'lint' }]);
      await status('test-token', 'success', 'lint');
      expect((await merge()).body.message).toBe(refusal('2 of 3 required status checks are expected.'));
      await status('test-token', 'failure', 'tests');
      expect((await merge()).body.message).toBe(refusal('2 of 3 required status checks have not succeeded.'));
    });

    it('refuses a head behind its base under the strict policy', async () => {
      await require([{ context: 'perimeter' }], true);
      await status('test-token', 'success');
      await commitToBare(dir, 'main', { 'c.txt': 'c\n' });
      expect((await merge()).body.message).toBe(refusal('The head ref is out of date.'));
    });
  });

  it('binds only the branches the ruleset names', async () => {
    await api('POST', '/repos/acme/app/rulesets', {
      name: 'release only',
      enforcement: 'active',
      conditions: { ref_name: { include: ['refs/heads/release/*'] } },
      rules: [
        {
          type: 'required_status_checks',
          parameters: {
            required_status_checks: [{ context: 'perimeter' }],
            strict_required_status_checks_policy: false,
          },
        },
      ],
    });
    expect((await merge()).status).toBe(200);
  });
});
