import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commitToBare, seedRepo, startFakeGithub } from '../src/index.js';
import type { FakeGithub } from '../src/index.js';
import { responseValidator } from './openapi-support.js';
import { cloneUrl, gitClient, restClient, scratchDir } from './test-support.js';
import type { Api } from './test-support.js';

const R = '/repos/{owner}/{repo}';
const REQUIRE_PERIMETER = {
  type: 'required_status_checks',
  parameters: {
    required_status_checks: [{ context: 'perimeter', integration_id: 271_828 }],
    strict_required_status_checks_policy: false,
  },
};
const ruleset = (overrides: Record<string, unknown> = {}) => ({
  name: 'protect main',
  target: 'branch',
  enforcement: 'active',
  conditions: { ref_name: { include: ['~DEFAULT_BRANCH'], exclude: [] } },
  rules: [REQUIRE_PERIMETER],
  ...overrides,
});

describe('repository rulesets', () => {
  let gh: FakeGithub;
  let api: Api;
  let dir: string;
  let base: string;
  let cleanup: () => Promise<void>;

  beforeEach(async () => {
    const scratch = await scratchDir();
    cleanup = scratch.cleanup;
    dir = join(scratch.dir, 'repo.git');
    base = await seedRepo(dir, { 'a.txt': 'a\n' });
    gh = await startFakeGithub({
      repos: { 'acme/app': dir },
      extraTokens: { 'ghp-person': 'octocat' },
      appTokens: { 'ghs-perimeter': { slug: 'perimeter', id: 271_828 } },
    });
    api = restClient(gh.url);
  });
  afterEach(async () => {
    await gh.stop();
    await cleanup();
  });

  const rulesFor = async (branch: string) =>
    (await api('GET', `/repos/acme/app/rules/branches/${branch}`)).body;

  describe('when the main token creates one', () => {
    it('answers it in the documented shape and serves it again', async () => {
      const created = await api('POST', '/repos/acme/app/rulesets', ruleset());
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        name: 'protect main',
        source_type: 'Repository',
        source: 'acme/app',
        enforcement: 'active',
        rules: [REQUIRE_PERIMETER],
      });
      const valid = responseValidator(`${R}/rulesets`, 'POST', 201);
      expect(valid(created.body), JSON.stringify(valid.errors)).toBe(true);
      const got = await api('GET', `/repos/acme/app/rulesets/${created.body.id}`);
      expect(got.body).toEqual(created.body);
      expect(responseValidator(`${R}/rulesets/{ruleset_id}`, 'GET', 200)(got.body)).toBe(true);
    });

    it('binds the branches its conditions name, with the ruleset each rule comes from', async () => {
      const { id } = (await api('POST', '/repos/acme/app/rulesets', ruleset())).body;
      const rules = await rulesFor('main');
      expect(rules).toEqual([
        {
          ...REQUIRE_PERIMETER,
          ruleset_source_type: 'Repository',
          ruleset_source: 'acme/app',
          ruleset_id: id,
        },
      ]);
      const valid = responseValidator(`${R}/rules/branches/{branch}`, 'GET', 200);
      expect(valid(rules), JSON.stringify(valid.errors)).toBe(true);
      expect(await rulesFor('feature')).toEqual([]);
    });

    it.each([
      [['refs/heads/main'], [], 'main', true],
      [['refs/heads/release/*'], [], 'release/1.0', true],
      [['refs/heads/release/*'], [], 'release/1.0/hotfix', false],
      [['refs/heads/release/**'], [], 'release/1.0/hotfix', true],
      [['~ALL'], ['refs/heads/dev*'], 'develop', false],
      [['~ALL'], ['refs/heads/dev*'], 'feature', true],
      [[], [], 'main', false],
    ])('include %j exclude %j binds %s: %s', async (include, exclude, branch, bound) => {
      await api(
        'POST',
        '/repos/acme/app/rulesets',
        ruleset({ conditions: { ref_name: { include, exclude } } }),
      );
      expect((await rulesFor(branch)).length).toBe(bound ? 1 : 0);
    });

    it.each(['disabled', 'evaluate'])('leaves out a ruleset whose enforcement is %s', async (enforcement) => {
      await api('POST', '/repos/acme/app/rulesets', ruleset({ enforcement }));
      expect(await rulesFor('main')).toEqual([]);
    });

    it('binds nothing without conditions', async () => {
      expect((await api('POST', '/repos/acme/app/rulesets', ruleset({ conditions: undefined }))).status).toBe(
        201,
      );
      expect(await rulesFor('main')).toEqual([]);
    });
  });

  describe('when a request is not what the stand-in takes', () => {
    it.each([
      ['no name', { name: undefined }],
      ['no enforcement', { enforcement: undefined }],
      ['an unknown enforcement', { enforcement: 'on' }],
      ['a push ruleset', { target: 'push' }],
      ['a rule it does not model', { rules: [{ type: 'pull_request' }] }],
      [
        'required checks on a tag ruleset',
        { target: 'tag', conditions: { ref_name: { include: ['~ALL'] } } },
      ],
      ['a tag ruleset aimed at branches', { target: 'tag', rules: [{ type: 'update' }] }],
      [
        'a check without a context',
        {
          rules: [
            {
              ...REQUIRE_PERIMETER,
              parameters: {
                ...REQUIRE_PERIMETER.parameters,
                required_status_checks: [{ integration_id: 1 }],
              },
            },
          ],
        },
      ],
      [
        'an integration_id that is no id',
        {
          rules: [
            {
              ...REQUIRE_PERIMETER,
              parameters: {
                ...REQUIRE_PERIMETER.parameters,
                required_status_checks: [{ context: 'p', integration_id: -1 }],
              },
            },
          ],
        },
      ],
      [
        'no strict policy',
        { rules: [{ type: 'required_status_checks', parameters: { required_status_checks: [] } }] },
      ],
      ['a bare branch name, which would match nothing', { conditions: { ref_name: { include: ['main'] } } }],
    ])('refuses %s with 422 and stores nothing', async (_, overrides) => {
      const refused = await api('POST', '/repos/acme/app/rulesets', ruleset(overrides));
      expect(refused.status).toBe(422);
      expect(refused.body.message).toBe('Validation Failed');
      expect(await rulesFor('main')).toEqual([]);
    });
  });

  describe('when another token tries to create one', () => {
    it.each([
      ['an App', 'ghs-perimeter', 'Resource not accessible by integration'],
      ['a person', 'ghp-person', 'Must have admin rights to Repository.'],
    ])('refuses %s with 403', async (_, token, message) => {
      const refused = await restClient(gh.url, token)('POST', '/repos/acme/app/rulesets', ruleset());
      expect(refused.status).toBe(403);
      expect(refused.body.message).toBe(message);
      expect(await rulesFor('main')).toEqual([]);
    });
  });

  describe('when the refs API moves a branch a ruleset binds', () => {
    let next: string;
    beforeEach(async () => {
      await api('POST', '/repos/acme/app/rulesets', ruleset());
      await api('POST', '/repos/acme/app/git/refs', { ref: 'refs/heads/feature', sha: base });
      next = await commitToBare(dir, 'feature', { 'b.txt': 'b\n' });
    });
    const move = () => api('PATCH', '/repos/acme/app/git/refs/heads/main', { sha: next });
    const passed = () =>
      restClient(gh.url, 'ghs-perimeter')('POST', '/repos/acme/app/check-runs', {
        name: 'perimeter',
        head_sha: next,
        conclusion: 'success',
      });

    it('refuses a commit whose required checks have not passed, with 422', async () => {
      const refused = await move();
      expect(refused.status).toBe(422);
      expect(refused.body.message).toBe(
        'Repository rule violations found\n\nRequired status check "perimeter" is expected.\n\n',
      );
      expect((await api('GET', '/repos/acme/app/git/ref/heads/main')).body.object.sha).toBe(base);
    });

    it('moves it to a commit whose required checks passed', async () => {
      await passed();
      expect((await move()).status).toBe(200);
    });

    it('refuses to create a bound branch unless the rule spares creation', async () => {
      const release = (include: string[], spare: boolean) =>
        api('POST', '/repos/acme/app/rulesets', {
          ...ruleset({ name: `release ${spare}` }),
          conditions: { ref_name: { include } },
          rules: [
            {
              ...REQUIRE_PERIMETER,
              parameters: { ...REQUIRE_PERIMETER.parameters, do_not_enforce_on_create: spare },
            },
          ],
        });
      await release(['refs/heads/release/*'], false);
      await release(['refs/heads/spared/*'], true);
      const create = (ref: string) => api('POST', '/repos/acme/app/git/refs', { ref, sha: next });
      expect((await create('refs/heads/release/1')).status).toBe(422);
      expect((await create('refs/heads/spared/1')).status).toBe(201);
      expect((await create('refs/heads/free')).status).toBe(201);
    });
  });

  describe('when a tag ruleset restricts creations, updates and deletions', () => {
    let next: string;
    const LOCKED_TAGS = {
      name: 'frozen tags',
      target: 'tag',
      enforcement: 'active',
      conditions: { ref_name: { include: ['refs/tags/v*'], exclude: [] } },
      rules: [{ type: 'creation' }, { type: 'update' }, { type: 'deletion' }],
    };
    beforeEach(async () => {
      await api('POST', '/repos/acme/app/git/refs', { ref: 'refs/tags/v1', sha: base });
      expect((await api('POST', '/repos/acme/app/rulesets', LOCKED_TAGS)).status).toBe(201);
      next = await commitToBare(dir, 'main', { 'b.txt': 'b\n' });
    });
    const tagAt = async () => (await api('GET', '/repos/acme/app/git/ref/tags/v1')).body.object.sha;

    it('lists it, and serves its rules whole', async () => {
      const listed = await api('GET', '/repos/acme/app/rulesets?targets=branch,tag&includes_parents=true');
      expect(listed.status).toBe(200);
      expect(listed.body).toEqual([expect.objectContaining({ name: 'frozen tags', target: 'tag' })]);
      expect(listed.body[0].rules).toBeUndefined();
      const valid = responseValidator(`${R}/rulesets`, 'GET', 200);
      expect(valid(listed.body), JSON.stringify(valid.errors)).toBe(true);
      expect((await api('GET', '/repos/acme/app/rulesets?targets=branch')).body).toEqual([]);
      const got = await api('GET', `/repos/acme/app/rulesets/${listed.body[0].id}`);
      expect(got.body).toMatchObject({ current_user_can_bypass: 'never', rules: LOCKED_TAGS.rules });
      expect(await rulesFor('v1')).toEqual([]);
    });

    it('refuses to move, delete or create a matching tag through the refs API, with 422', async () => {
      const moved = await api('PATCH', '/repos/acme/app/git/refs/tags/v1', { sha: next, force: true });
      expect(moved.status).toBe(422);
      expect(moved.body.message).toBe(
        'Repository rule violations found\n\nCannot update this protected ref.\n\n',
      );
      expect((await api('DELETE', '/repos/acme/app/git/refs/tags/v1')).status).toBe(422);
      const made = await api('POST', '/repos/acme/app/git/refs', { ref: 'refs/tags/v2', sha: next });
      expect(made.status).toBe(422);
      expect(made.body.message).toContain('Cannot create ref due to creations being restricted.');
      expect(await tagAt()).toBe(base);
      expect((await api('POST', '/repos/acme/app/git/refs', { ref: 'refs/tags/w1', sha: next })).status).toBe(
        201,
      );
    });

    it('refuses a git push that moves or deletes it', async () => {
      const work = join(dir, '..', 'work');
      await gitClient(dir, ['clone', '--quiet', cloneUrl(gh.url, 'acme/app', 'test-token'), work], dir);
      await expect(
        gitClient(work, ['push', '--quiet', '--force', 'origin', `${next}:refs/tags/v1`], dir),
      ).rejects.toThrow(/Cannot update this protected ref/);
      await expect(gitClient(work, ['push', '--quiet', 'origin', ':refs/tags/v1'], dir)).rejects.toThrow(
        /Cannot delete this protected ref/,
      );
      expect(await tagAt()).toBe(base);
      await gitClient(work, ['push', '--quiet', 'origin', `${next}:refs/tags/w1`], dir);
    });
  });

  it('answers 404 for a ruleset that does not exist', async () => {
    expect((await api('GET', '/repos/acme/app/rulesets/1')).status).toBe(404);
  });
});
