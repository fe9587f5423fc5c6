import { join } from 'node:path';
import { getOctokit } from '@actions/github';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commitToBare, seedRepo, startFakeGithub } from '../src/index.js';
import type { FakeGithub } from '../src/index.js';
import { scratchDir } from './test-support.js';

const owner = 'acme';
const repo = 'app';

describe("Octokit (@actions/github's getOctokit) against the stand-in", () => {
  let gh: FakeGithub;
  let cleanup: () => Promise<void>;
  let repoDir: string;
  let seeded: string;

  beforeEach(async () => {
    const scratch = await scratchDir();
    cleanup = scratch.cleanup;
    repoDir = join(scratch.dir, 'repo.git');
    seeded = await seedRepo(repoDir, {
      'README.md': '# hi\n',
      'src/a.ts': 'a\n',
      '.github/perimeters.yml': 'version: 1\n',
    });
    gh = await startFakeGithub({ repos: { 'acme/app': repoDir } });
  });
  afterEach(async () => {
    await gh.stop();
    await cleanup();
  });

  it('makes a commit through the Git Data API and reads it back', async () => {
    const octokit = getOctokit('test-token', { baseUrl: gh.url });
    const { data: repository } = await octokit.rest.repos.get({ owner, repo });
    expect(repository.default_branch).toBe('main');
    const { data: ref } = await octokit.rest.git.getRef({ owner, repo, ref: 'heads/main' });
    const { data: head } = await octokit.rest.git.getCommit({ owner, repo, commit_sha: ref.object.sha });
    const { data: tree } = await octokit.rest.git.getTree({
      owner,
      repo,
      tree_sha: head.tree.sha,
      recursive: '1',
    });
    expect(tree.tree.map((e) => e.path)).toContain('src/a.ts');
    const { data: blob } = await octokit.rest.git.createBlob({
      owner,
      repo,
      content: Buffer.from('bin\0').toString('base64'),
      encoding: 'base64',
    });
    const { data: newTree } = await octokit.rest.git.createTree({
      owner,
      repo,
      base_tree: head.tree.sha,
      tree: [
        { path: 'src/a.ts', mode: '100644', type: 'blob', content: 'a2\n' },
        { path: 'bin/x', mode: '100755', type: 'blob', sha: blob.sha },
        { path: 'README.md', mode: '100644', type: 'blob', sha: null },
      ],
    });
    const { data: commit } = await octokit.rest.git.createCommit({
      owner,
      repo,
      message: 'agent change',
      tree: newTree.sha,
      parents: [head.sha],
    });
    expect(commit.verification?.verified).toBe(true);
    await octokit.rest.git.updateRef({ owner, repo, ref: 'heads/main', sha: commit.sha, force: false });

    const { data: one } = await octokit.rest.repos.getCommit({ owner, repo, ref: 'main' });
    expect(one.files?.map((f) => `${f.status} ${f.filename}`).sort()).toEqual([
      'added bin/x',
      'modified src/a.ts',
      'removed README.md',
    ]);
    const { data: compared } = await octokit.rest.repos.compareCommitsWithBasehead({
      owner,
      repo,
      basehead: `${seeded}...main`,
    });
    expect(compared).toMatchObject({ status: 'ahead', ahead_by: 1 });
    const { data: content } = await octokit.rest.repos.getContent({
      owner,
      repo,
      path: 'src/a.ts',
      ref: 'main',
    });
    expect('content' in content && Buffer.from(content.content, 'base64').toString('utf8')).toBe('a2\n');
    const { data: raw } = await octokit.rest.git.getBlob({ owner, repo, file_sha: blob.sha });
    expect(Buffer.from(raw.content, 'base64')).toEqual(Buffer.from('bin\0'));
    const { data: activity } = await octokit.rest.repos.listActivities({ owner, repo, ref: 'main' });
    expect(activity[0]).toMatchObject({ after: commit.sha, activity_type: 'push' });
    expect(activity[0]!.actor?.login).toBe('github-actions[bot]');
  });

  it('reports a refused fast-forward as a RequestError with status 422', async () => {
    const octokit = getOctokit('test-token', { baseUrl: gh.url });
    await commitToBare(repoDir, 'main', { 'x.txt': 'x\n' });
    const { data: tree } = await octokit.rest.git.getTree({ owner, repo, tree_sha: seeded });
    const { data: sibling } = await octokit.rest.git.createCommit({
      owner,
      repo,
      message: 's',
      tree: tree.sha,
      parents: [seeded],
    });
    await expect(
      octokit.rest.git.updateRef({ owner, repo, ref: 'heads/main', sha: sibling.sha, force: false }),
    ).rejects.toMatchObject({
      status: 422,
      message: expect.stringContaining('Update is not a fast forward'),
    });
  });

  it('paginates commits, lists refs, statuses and deletes refs', async () => {
    const octokit = getOctokit('test-token', { baseUrl: gh.url });
    for (let i = 0; i < 4; i++) await commitToBare(repoDir, 'main', { [`f${i}`]: `${i}` });
    const commits = await octokit.paginate(octokit.rest.repos.listCommits, { owner, repo, per_page: 2 });
    expect(commits).toHaveLength(5);
    expect(commits.at(-1)!.sha).toBe(seeded);
    await octokit.rest.git.createRef({ owner, repo, ref: 'refs/heads/topic', sha: seeded });
    const { data: refs } = await octokit.rest.git.listMatchingRefs({ owner, repo, ref: 'heads/' });
    expect(refs.map((r) => r.ref)).toEqual(['refs/heads/main', 'refs/heads/topic']);
    await octokit.rest.git.deleteRef({ owner, repo, ref: 'heads/topic' });
    await octokit.rest.repos.createCommitStatus({
      owner,
      repo,
      sha: seeded,
      state: 'failure',
      context: 'perimeter',
      description: 'no',
    });
    const { data: combined } = await octokit.rest.repos.getCombinedStatusForRef({ owner, repo, ref: seeded });
    expect(combined.state).toBe('failure');
    await expect(
      octokit.rest.repos.createCommitStatus({
        owner,
        repo,
        sha: seeded,
        state: 'success',
        description: 'd'.repeat(141),
      }),
    ).rejects.toMatchObject({ status: 422 });
  });

  it('gets 304 (thrown as a RequestError) on a conditional request, which spends no budget', async () => {
    const octokit = getOctokit('test-token', { baseUrl: gh.url });
    const first = await octokit.rest.git.getRef({ owner, repo, ref: 'heads/main' });
    const remaining = first.headers['x-ratelimit-remaining'];
    await expect(
      octokit.rest.git.getRef({
        owner,
        repo,
        ref: 'heads/main',
        headers: { 'if-none-match': first.headers.etag! },
      }),
    ).rejects.toMatchObject({
      status: 304,
      response: { headers: { 'x-ratelimit-remaining': remaining } },
    });
  });

  describe('with the throttling and retry plugins', () => {
    it('waits out injected rate limits and retries 5xx answers', async () => {
      const seen: string[] = [];
      const octokit = getOctokit(
        'test-token',
        {
          baseUrl: gh.url,
          throttle: {
            onRateLimit: (after: number) => (seen.push(`primary ${after}`), true),
            onSecondaryRateLimit: (after: number) => (seen.push(`secondary ${after}`), true),
          },
          retry: { retryAfterBaseValue: 10 },
        },
        throttling,
        retry,
      );
      gh.injectFault({ kind: 'secondary-limit', retryAfter: 1 });
      gh.injectFault({ kind: 'rate-limit', retryAfter: 1, route: 'GET /repos/{owner}/{repo}/git/ref/{ref}' });
      gh.injectFault({ kind: 'status', status: 502, count: 2, route: /git\/trees/ });
      const { data: repository } = await octokit.rest.repos.get({ owner, repo });
      expect(repository.full_name).toBe('acme/app');
      const { data: ref } = await octokit.rest.git.getRef({ owner, repo, ref: 'heads/main' });
      const { data: tree } = await octokit.rest.git.getTree({ owner, repo, tree_sha: ref.object.sha });
      expect(tree.tree.length).toBeGreaterThan(0);
      expect(seen.map((s) => s.split(' ')[0])).toEqual(['secondary', 'primary']);
      expect(gh.stats().byRoute['GET /repos/{owner}/{repo}/git/trees/{sha}']).toBe(3);
    });
  });
});
