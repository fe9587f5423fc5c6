import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readRepositoryConfig } from '../../src/action/config-loader.js';
import { createOctokitUpstream } from '../../src/github/octokit/octokit-upstream.js';
import { commitToBare, gitText, seedRepo, startFakeGithub, type FakeGithub } from '@perimeter/fake-github';

const TOKEN = 'ghs_GraphqlRepositoryToken0123456789abcd';
const GRAPHQL = 'POST /graphql';

/** main's first read: the default branch and perimeters.yml in one GraphQL call, REST when it cannot. */
describe('the repository and its config in one request', () => {
  let root: string;
  let dir: string;
  let fake: FakeGithub;
  const rev = async (name: string) => (await gitText(dir, ['rev-parse', name])).trim();

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'perimeter-graphql-repository-'));
    dir = join(root, 'r.git');
    await seedRepo(
      dir,
      { 'perimeters.yml': 'on trunk\n', 'bad.yml': Uint8Array.from([0x6f, 0x6e, 0xff, 0xfe, 0x0a]) },
      { branch: 'trunk' },
    );
    await commitToBare(dir, 'trunk', {}, 'empty');
    await commitToBare(dir, 'other', { 'perimeters.yml': 'on other\n' }, 'other branch');
    fake = await startFakeGithub({ repos: { 'octo/r': dir }, token: TOKEN, private: ['octo/r'] });
  });
  afterAll(async () => {
    await fake.stop();
    await rm(root, { recursive: true, force: true });
  });
  beforeEach(() => {
    fake.clearFaults();
    fake.resetStats();
  });

  const upstream = () =>
    createOctokitUpstream({ token: TOKEN, owner: 'octo', repo: 'r', baseUrl: fake.url, retryBaseMs: 1 });

  it('reads both on the default branch with one GraphQL call and no REST request', async () => {
    const up = upstream();
    expect(await readRepositoryConfig(up, 'perimeters.yml', null)).toEqual({
      defaultBranch: 'trunk',
      ref: 'trunk',
      // the commit it was read at (the verify job compares it with the one the job started on)
      commit: await rev('trunk'),
      text: 'on trunk\n',
      sha: await rev('trunk:perimeters.yml'),
    });
    expect(fake.stats().byRoute).toEqual({ [GRAPHQL]: 1 });
    // and the repository is known from then on
    expect(await up.getRepository()).toEqual({ defaultBranch: 'trunk', private: true });
    expect(fake.stats().byRoute).toEqual({ [GRAPHQL]: 1 });
  });

  it('reads the config at the ref given, with the default branch beside it', async () => {
    expect(await readRepositoryConfig(upstream(), 'perimeters.yml', 'other')).toEqual({
      defaultBranch: 'trunk',
      ref: 'other',
      commit: null,
      text: 'on other\n',
      sha: await rev('other:perimeters.yml'),
    });
    expect(fake.stats().byRoute).toEqual({ [GRAPHQL]: 1 });
  });

  it('says which ref lacks the file, as the REST read says it', async () => {
    await expect(readRepositoryConfig(upstream(), 'missing.yml', null)).rejects.toThrow(
      /missing\.yml was not found at "trunk" in octo\/r/,
    );
    await expect(readRepositoryConfig(upstream(), 'missing.yml', 'other')).rejects.toThrow(
      /missing\.yml was not found at "other"/,
    );
  });

  it('refuses a file that is not UTF-8 by REST, with REST words (GraphQL would have mended it)', async () => {
    await expect(readRepositoryConfig(upstream(), 'bad.yml', null)).rejects.toThrow(/not UTF-8 text/);
  });

  it('gives the same answer by REST when GraphQL fails', async () => {
    fake.injectFault({ kind: 'status', status: 502, count: 5, route: GRAPHQL });
    expect(await readRepositoryConfig(upstream(), 'perimeters.yml', null)).toEqual({
      defaultBranch: 'trunk',
      ref: 'trunk',
      commit: null,
      text: 'on trunk\n',
      sha: await rev('trunk:perimeters.yml'),
    });
    expect(fake.stats().byRoute['GET /repos/{owner}/{repo}']).toBe(1);
    expect(fake.stats().byRoute['GET /repos/{owner}/{repo}/contents/{path}']).toBe(1);
  });
});
