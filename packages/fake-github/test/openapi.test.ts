import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitToBare, seedRepo, startFakeGithub } from '../src/index.js';
import type { FakeGithub, Fault } from '../src/index.js';
import { documentedStatuses, responseValidator } from './openapi-support.js';
import { restClient, scratchDir } from './test-support.js';
import type { Api } from './test-support.js';

interface Case {
  name: string;
  method: string;
  /** the path template as GitHub's OpenAPI description names it */
  template: string;
  path: () => string;
  body?: () => unknown;
  status: number;
  token?: string | null;
  /** faults to inject just before the request */
  faults?: Fault[];
}

const R = '/repos/{owner}/{repo}';
const MISSING = '1234567890123456789012345678901234567890';
/** a second identity's token: a person (or a machine user) who may review the job's pull requests */
const REVIEWER = 'reviewer-token-0123456789';

describe('answers match GitHub OpenAPI schemas', () => {
  let gh: FakeGithub;
  let api: Api;
  let cleanup: () => Promise<void>;
  let head = '';
  let first = '';
  let tree = '';
  let blob = '';
  let artifactId = '';
  let jobId = 0;
  let rulesetId = 0;

  beforeAll(async () => {
    const scratch = await scratchDir();
    cleanup = scratch.cleanup;
    const dir = join(scratch.dir, 'repo.git');
    first = await seedRepo(dir, { 'README.md': '# hi\n', 'src/a.ts': 'a\n', 'docs/x.md': 'x\n' });
    head = await commitToBare(dir, 'main', { 'src/a.ts': 'a2\n', 'src/b.ts': 'b\n', 'docs/x.md': null });
    gh = await startFakeGithub({ repos: { 'acme/app': dir, 'acme/empty': join(scratch.dir, 'empty.git') } });
    api = restClient(gh.url);
    gh.addToken(REVIEWER, 'maintainer');
    const commit = await api('GET', `/repos/acme/app/git/commits/${head}`);
    tree = commit.body.tree.sha;
    blob = (await api('POST', '/repos/acme/app/git/blobs', { content: 'blob' })).body.sha;
    await api('POST', '/repos/acme/app/git/refs', { ref: 'refs/heads/side', sha: first });
    await commitToBare(dir, 'side', { 'side.txt': 's\n' });
    // a tag ruleset locking tags no other case writes
    await api('POST', '/repos/acme/app/git/refs', { ref: 'refs/tags/frozen-1', sha: first });
    rulesetId = (
      await api('POST', '/repos/acme/app/rulesets', {
        name: 'frozen tags',
        target: 'tag',
        enforcement: 'active',
        conditions: { ref_name: { include: ['refs/tags/frozen-*'], exclude: [] } },
        rules: [{ type: 'creation' }, { type: 'update' }, { type: 'deletion' }],
      })
    ).body.id;
    await api('POST', `/repos/acme/app/statuses/${head}`, {
      state: 'success',
      context: 'perimeter',
      description: 'ok',
      target_url: 'https://example.com/run',
    });
    // one finalized artifact in run 77, uploaded the way @actions/artifact does it
    const job = gh.startJob({ repository: 'acme/app', runId: 77, job: 'build' });
    const twirp = async (method: string, body: Record<string, unknown>) =>
      (await fetch(`${gh.url}/twirp/github.actions.results.api.v1.ArtifactService/${method}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${job.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          workflow_run_backend_id: job.runBackendId,
          workflow_job_run_backend_id: job.jobBackendId,
          name: 'record',
          ...body,
        }),
      }).then((r) => r.json())) as Record<string, string>;
    const created = await twirp('CreateArtifact', { version: 7 });
    await fetch(created.signed_upload_url!, {
      method: 'PUT',
      headers: { 'x-ms-blob-type': 'BlockBlob' },
      body: 'zip',
    });
    artifactId = (await twirp('FinalizeArtifact', { size: '3' })).artifact_id!;
    jobId = gh.recordJob('acme/app', { runId: 4242, name: 'implement', runnerName: 'GitHub Actions 3' }).id;
    gh.startStep('acme/app', jobId, 'Run octo/perimeter@v1');
    gh.startStep('acme/app', jobId, 'Post Run octo/perimeter@v1');
    gh.completeStep('acme/app', jobId, 'success');
    gh.completeJob('acme/app', jobId, 'cancelled');
    gh.recordJob('acme/app', { runId: 4242, name: 'verify', runnerName: 'GitHub Actions 4' });
  }, 60_000);
  afterAll(async () => {
    await gh.stop();
    await cleanup();
  });

  const cases: Case[] = [
    { name: 'repository', method: 'GET', template: R, path: () => '/repos/acme/app', status: 200 },
    {
      name: "a run's artifacts",
      method: 'GET',
      template: `${R}/actions/runs/{run_id}/artifacts`,
      path: () => '/repos/acme/app/actions/runs/77/artifacts?name=record',
      status: 200,
    },
    {
      name: 'unknown run',
      method: 'GET',
      template: `${R}/actions/runs/{run_id}/artifacts`,
      path: () => '/repos/acme/app/actions/runs/78/artifacts',
      status: 404,
    },
    {
      name: "the repository's artifacts",
      method: 'GET',
      template: `${R}/actions/artifacts`,
      path: () => '/repos/acme/app/actions/artifacts',
      status: 200,
    },
    {
      name: 'artifact',
      method: 'GET',
      template: `${R}/actions/artifacts/{artifact_id}`,
      path: () => `/repos/acme/app/actions/artifacts/${artifactId}`,
      status: 200,
    },
    {
      name: 'unknown artifact',
      method: 'GET',
      template: `${R}/actions/artifacts/{artifact_id}`,
      path: () => '/repos/acme/app/actions/artifacts/1',
      status: 404,
    },
    { name: 'unknown repository', method: 'GET', template: R, path: () => '/repos/acme/nope', status: 404 },
    {
      name: 'ref',
      method: 'GET',
      template: `${R}/git/ref/{ref}`,
      path: () => '/repos/acme/app/git/ref/heads/main',
      status: 200,
    },
    {
      name: 'missing ref',
      method: 'GET',
      template: `${R}/git/ref/{ref}`,
      path: () => '/repos/acme/app/git/ref/heads/nope',
      status: 404,
    },
    {
      name: 'ref of empty repo',
      method: 'GET',
      template: `${R}/git/ref/{ref}`,
      path: () => '/repos/acme/empty/git/ref/heads/main',
      status: 409,
    },
    {
      name: 'matching refs',
      method: 'GET',
      template: `${R}/git/matching-refs/{ref}`,
      path: () => '/repos/acme/app/git/matching-refs/heads',
      status: 200,
    },
    {
      name: 'every ref (matching-refs without a ref)',
      method: 'GET',
      template: `${R}/git/matching-refs/{ref}`,
      path: () => '/repos/acme/app/git/matching-refs',
      status: 200,
    },
    {
      name: 'matching refs of empty repo',
      method: 'GET',
      template: `${R}/git/matching-refs/{ref}`,
      path: () => '/repos/acme/empty/git/matching-refs/heads',
      status: 409,
    },
    {
      name: 'create ref',
      method: 'POST',
      template: `${R}/git/refs`,
      path: () => '/repos/acme/app/git/refs',
      body: () => ({ ref: 'refs/heads/new', sha: first }),
      status: 201,
    },
    {
      name: 'create existing ref',
      method: 'POST',
      template: `${R}/git/refs`,
      path: () => '/repos/acme/app/git/refs',
      body: () => ({ ref: 'refs/heads/main', sha: first }),
      status: 422,
    },
    {
      name: 'create ref in empty repo',
      method: 'POST',
      template: `${R}/git/refs`,
      path: () => '/repos/acme/empty/git/refs',
      body: () => ({ ref: 'refs/heads/x', sha: first }),
      status: 409,
    },
    {
      name: 'update ref',
      method: 'PATCH',
      template: `${R}/git/refs/{ref}`,
      path: () => '/repos/acme/app/git/refs/heads/new',
      body: () => ({ sha: head }),
      status: 200,
    },
    {
      name: 'update ref not fast-forward',
      method: 'PATCH',
      template: `${R}/git/refs/{ref}`,
      path: () => '/repos/acme/app/git/refs/heads/side',
      body: () => ({ sha: head, force: false }),
      status: 422,
    },
    {
      name: 'delete ref',
      method: 'DELETE',
      template: `${R}/git/refs/{ref}`,
      path: () => '/repos/acme/app/git/refs/heads/new',
      status: 204,
    },
    {
      name: 'delete missing ref',
      method: 'DELETE',
      template: `${R}/git/refs/{ref}`,
      path: () => '/repos/acme/app/git/refs/heads/new',
      status: 422,
    },
    {
      name: 'tree',
      method: 'GET',
      template: `${R}/git/trees/{tree_sha}`,
      path: () => `/repos/acme/app/git/trees/${tree}`,
      status: 200,
    },
    {
      name: 'recursive tree',
      method: 'GET',
      template: `${R}/git/trees/{tree_sha}`,
      path: () => `/repos/acme/app/git/trees/${tree}?recursive=1`,
      status: 200,
    },
    {
      name: 'missing tree',
      method: 'GET',
      template: `${R}/git/trees/{tree_sha}`,
      path: () => `/repos/acme/app/git/trees/${MISSING}`,
      status: 404,
    },
    {
      name: 'tree of empty repo',
      method: 'GET',
      template: `${R}/git/trees/{tree_sha}`,
      path: () => `/repos/acme/empty/git/trees/${MISSING}`,
      status: 409,
    },
    {
      name: 'create tree',
      method: 'POST',
      template: `${R}/git/trees`,
      path: () => '/repos/acme/app/git/trees',
      body: () => ({
        base_tree: tree,
        tree: [
          { path: 'n/new.txt', mode: '100755', type: 'blob', content: 'n' },
          { path: 'src/a.ts', mode: '100644', type: 'blob', sha: null },
          { path: 'b.bin', mode: '100644', type: 'blob', sha: blob },
        ],
      }),
      status: 201,
    },
    {
      name: 'create bad tree',
      method: 'POST',
      template: `${R}/git/trees`,
      path: () => '/repos/acme/app/git/trees',
      body: () => ({ tree: [{ path: 'x', mode: '100644', sha: MISSING }] }),
      status: 422,
    },
    {
      name: 'blob',
      method: 'GET',
      template: `${R}/git/blobs/{file_sha}`,
      path: () => `/repos/acme/app/git/blobs/${blob}`,
      status: 200,
    },
    {
      name: 'missing blob',
      method: 'GET',
      template: `${R}/git/blobs/{file_sha}`,
      path: () => `/repos/acme/app/git/blobs/${MISSING}`,
      status: 404,
    },
    {
      name: 'create blob',
      method: 'POST',
      template: `${R}/git/blobs`,
      path: () => '/repos/acme/app/git/blobs',
      body: () => ({ content: 'aGk=', encoding: 'base64' }),
      status: 201,
    },
    {
      name: 'create bad blob',
      method: 'POST',
      template: `${R}/git/blobs`,
      path: () => '/repos/acme/app/git/blobs',
      body: () => ({ content: 'x', encoding: 'rot13' }),
      status: 422,
    },
    {
      name: 'git commit',
      method: 'GET',
      template: `${R}/git/commits/{commit_sha}`,
      path: () => `/repos/acme/app/git/commits/${head}`,
      status: 200,
    },
    {
      name: 'missing git commit',
      method: 'GET',
      template: `${R}/git/commits/{commit_sha}`,
      path: () => `/repos/acme/app/git/commits/${MISSING}`,
      status: 404,
    },
    {
      name: 'create commit',
      method: 'POST',
      template: `${R}/git/commits`,
      path: () => '/repos/acme/app/git/commits',
      body: () => ({ message: 'm', tree, parents: [head] }),
      status: 201,
    },
    {
      name: 'create commit on missing tree',
      method: 'POST',
      template: `${R}/git/commits`,
      path: () => '/repos/acme/app/git/commits',
      body: () => ({ message: 'm', tree: MISSING }),
      status: 422,
    },
    {
      name: 'commits',
      method: 'GET',
      template: `${R}/commits`,
      path: () => '/repos/acme/app/commits?path=src&per_page=1',
      status: 200,
    },
    {
      name: 'commits of missing sha',
      method: 'GET',
      template: `${R}/commits`,
      path: () => `/repos/acme/app/commits?sha=${MISSING}`,
      status: 404,
    },
    {
      name: 'commits of empty repo',
      method: 'GET',
      template: `${R}/commits`,
      path: () => '/repos/acme/empty/commits',
      status: 409,
    },
    {
      name: 'commit',
      method: 'GET',
      template: `${R}/commits/{ref}`,
      path: () => '/repos/acme/app/commits/main',
      status: 200,
    },
    {
      name: 'root commit',
      method: 'GET',
      template: `${R}/commits/{ref}`,
      path: () => `/repos/acme/app/commits/${first}`,
      status: 200,
    },
    {
      name: 'unknown commit',
      method: 'GET',
      template: `${R}/commits/{ref}`,
      path: () => '/repos/acme/app/commits/nope',
      status: 422,
    },
    {
      name: 'commit of empty repo',
      method: 'GET',
      template: `${R}/commits/{ref}`,
      path: () => '/repos/acme/empty/commits/main',
      status: 409,
    },
    {
      name: 'compare',
      method: 'GET',
      template: `${R}/compare/{basehead}`,
      path: () => '/repos/acme/app/compare/side...main',
      status: 200,
    },
    {
      name: 'compare unknown',
      method: 'GET',
      template: `${R}/compare/{basehead}`,
      path: () => '/repos/acme/app/compare/side...nope',
      status: 404,
    },
    {
      name: 'file contents',
      method: 'GET',
      template: `${R}/contents/{path}`,
      path: () => '/repos/acme/app/contents/src/a.ts?ref=main',
      status: 200,
    },
    {
      name: 'directory contents',
      method: 'GET',
      template: `${R}/contents/{path}`,
      path: () => '/repos/acme/app/contents/src',
      status: 200,
    },
    {
      name: 'missing contents',
      method: 'GET',
      template: `${R}/contents/{path}`,
      path: () => '/repos/acme/app/contents/nope.txt',
      status: 404,
    },
    {
      name: 'create status',
      method: 'POST',
      template: `${R}/statuses/{sha}`,
      path: () => `/repos/acme/app/statuses/${head}`,
      body: () => ({ state: 'failure', context: 'x' }),
      status: 201,
    },
    {
      name: 'status too long',
      method: 'POST',
      template: `${R}/statuses/{sha}`,
      path: () => `/repos/acme/app/statuses/${head}`,
      body: () => ({ state: 'failure', description: 'd'.repeat(141) }),
      status: 422,
    },
    {
      name: 'statuses',
      method: 'GET',
      template: `${R}/commits/{ref}/statuses`,
      path: () => '/repos/acme/app/commits/main/statuses',
      status: 200,
    },
    {
      name: 'statuses of unknown ref',
      method: 'GET',
      template: `${R}/commits/{ref}/statuses`,
      path: () => '/repos/acme/app/commits/nope/statuses',
      status: 404,
    },
    {
      name: 'combined status',
      method: 'GET',
      template: `${R}/commits/{ref}/status`,
      path: () => '/repos/acme/app/commits/main/status',
      status: 200,
    },
    {
      name: 'combined status of unknown ref',
      method: 'GET',
      template: `${R}/commits/{ref}/status`,
      path: () => '/repos/acme/app/commits/nope/status',
      status: 404,
    },
    {
      name: 'activity',
      method: 'GET',
      template: `${R}/activity`,
      path: () => '/repos/acme/app/activity',
      status: 200,
    },
    {
      name: 'activity with a bad period',
      method: 'GET',
      template: `${R}/activity`,
      path: () => '/repos/acme/app/activity?time_period=decade',
      status: 422,
    },
    {
      name: 'jobs of a run',
      method: 'GET',
      template: `${R}/actions/runs/{run_id}/jobs`,
      path: () => '/repos/acme/app/actions/runs/4242/jobs?filter=all',
      status: 200,
    },
    {
      name: 'a completed job',
      method: 'GET',
      template: `${R}/actions/jobs/{job_id}`,
      path: () => `/repos/acme/app/actions/jobs/${jobId}`,
      status: 200,
    },
    {
      name: 'a job in progress',
      method: 'GET',
      template: `${R}/actions/jobs/{job_id}`,
      path: () => `/repos/acme/app/actions/jobs/${jobId + 1}`,
      status: 200,
    },
    { name: 'rate limit', method: 'GET', template: '/rate_limit', path: () => '/rate_limit', status: 200 },
    { name: 'no token', method: 'GET', template: R, path: () => '/repos/acme/app', status: 401, token: null },
    {
      name: 'bad token',
      method: 'POST',
      template: `${R}/git/blobs`,
      path: () => '/repos/acme/app/git/blobs',
      body: () => ({ content: 'x' }),
      status: 401,
      token: 'nope',
    },
    {
      name: 'injected 502',
      method: 'GET',
      template: `${R}/git/trees/{tree_sha}`,
      path: () => `/repos/acme/app/git/trees/${tree}`,
      status: 502,
      faults: [{ kind: 'status', status: 502 }],
    },
    {
      name: 'primary rate limit',
      method: 'GET',
      template: `${R}/git/ref/{ref}`,
      path: () => '/repos/acme/app/git/ref/heads/main',
      status: 403,
      faults: [{ kind: 'rate-limit' }],
    },
    {
      name: 'secondary rate limit',
      method: 'POST',
      template: `${R}/git/blobs`,
      path: () => '/repos/acme/app/git/blobs',
      body: () => ({ content: 'x' }),
      status: 429,
      faults: [{ kind: 'secondary-limit', status: 429 }],
    },
    {
      name: 'create a draft pull request',
      method: 'POST',
      template: `${R}/pulls`,
      path: () => '/repos/acme/app/pulls',
      body: () => ({
        title: 'Staged changes',
        head: 'side',
        base: 'main',
        body: 'from the apply job',
        draft: true,
      }),
      status: 201,
    },
    {
      name: 'a second pull request for the same head',
      method: 'POST',
      template: `${R}/pulls`,
      path: () => '/repos/acme/app/pulls',
      body: () => ({ title: 'again', head: 'side', base: 'main' }),
      status: 422,
    },
    {
      name: 'a pull request from a branch that does not exist',
      method: 'POST',
      template: `${R}/pulls`,
      path: () => '/repos/acme/app/pulls',
      body: () => ({ title: 'nothing', head: 'nope', base: 'main' }),
      status: 422,
    },
    {
      name: 'one pull request',
      method: 'GET',
      template: `${R}/pulls/{pull_number}`,
      path: () => '/repos/acme/app/pulls/1',
      status: 200,
    },
    {
      name: 'the commits of a pull request',
      method: 'GET',
      template: `${R}/pulls/{pull_number}/commits`,
      path: () => '/repos/acme/app/pulls/1/commits?per_page=100',
      status: 200,
    },
    {
      name: 'the open pull requests',
      method: 'GET',
      template: `${R}/pulls`,
      path: () => '/repos/acme/app/pulls?state=open&per_page=100',
      status: 200,
    },
    {
      name: 'a pull request that does not exist',
      method: 'GET',
      template: `${R}/pulls/{pull_number}`,
      path: () => '/repos/acme/app/pulls/99',
      status: 404,
    },
    {
      name: 'labels on a pull request',
      method: 'POST',
      template: `${R}/issues/{issue_number}/labels`,
      path: () => '/repos/acme/app/issues/1/labels',
      body: () => ({ labels: ['agent', 'staged'] }),
      status: 200,
    },
    {
      name: 'the open pull request from one head',
      method: 'GET',
      template: `${R}/pulls`,
      path: () => '/repos/acme/app/pulls?state=open&head=acme:side&per_page=100',
      status: 200,
    },
    {
      name: 'update a pull request',
      method: 'PATCH',
      template: `${R}/pulls/{pull_number}`,
      path: () => '/repos/acme/app/pulls/1',
      body: () => ({ title: 'Staged changes, again', body: 'updated' }),
      status: 200,
    },
    {
      name: 'update a pull request with a title over 256 characters',
      method: 'PATCH',
      template: `${R}/pulls/{pull_number}`,
      path: () => '/repos/acme/app/pulls/1',
      body: () => ({ title: 'x'.repeat(257) }),
      status: 422,
    },
    {
      name: 'a pull request as an issue',
      method: 'GET',
      template: `${R}/issues/{issue_number}`,
      path: () => '/repos/acme/app/issues/1',
      status: 200,
    },
    {
      name: 'comment on a pull request',
      method: 'POST',
      template: `${R}/issues/{issue_number}/comments`,
      path: () => '/repos/acme/app/issues/1/comments',
      body: () => ({ body: 'Done: the tests pass.' }),
      status: 201,
    },
    {
      name: 'an empty comment',
      method: 'POST',
      template: `${R}/issues/{issue_number}/comments`,
      path: () => '/repos/acme/app/issues/1/comments',
      body: () => ({}),
      status: 422,
    },
    {
      name: 'the comments of a pull request',
      method: 'GET',
      template: `${R}/issues/{issue_number}/comments`,
      path: () => '/repos/acme/app/issues/1/comments?per_page=100&page=1',
      status: 200,
    },
    {
      name: 'open an issue',
      method: 'POST',
      template: `${R}/issues`,
      path: () => '/repos/acme/app/issues',
      body: () => ({ title: 'Add a widget', body: '/implement it' }),
      status: 201,
    },
    {
      name: 'comments of an issue that does not exist',
      method: 'GET',
      template: `${R}/issues/{issue_number}/comments`,
      path: () => '/repos/acme/app/issues/99/comments',
      status: 404,
    },
    {
      name: "a person's permission",
      method: 'GET',
      template: `${R}/collaborators/{username}/permission`,
      path: () => '/repos/acme/app/collaborators/acme/permission',
      status: 200,
    },
    {
      name: 'a COMMENT review by the pull request author',
      method: 'POST',
      template: `${R}/pulls/{pull_number}/reviews`,
      path: () => '/repos/acme/app/pulls/1/reviews',
      body: () => ({ event: 'COMMENT', body: 'Sent to review: AGENTS.md (protected)' }),
      status: 200,
    },
    {
      name: 'REQUEST_CHANGES on its own pull request',
      method: 'POST',
      template: `${R}/pulls/{pull_number}/reviews`,
      path: () => '/repos/acme/app/pulls/1/reviews',
      body: () => ({ event: 'REQUEST_CHANGES', body: 'no' }),
      status: 422,
    },
    {
      name: 'APPROVE by the job token (its own pull request, and GitHub Actions)',
      method: 'POST',
      template: `${R}/pulls/{pull_number}/reviews`,
      path: () => '/repos/acme/app/pulls/1/reviews',
      body: () => ({ event: 'APPROVE' }),
      status: 422,
    },
    {
      name: 'REQUEST_CHANGES by a second identity',
      method: 'POST',
      template: `${R}/pulls/{pull_number}/reviews`,
      path: () => '/repos/acme/app/pulls/1/reviews',
      body: () => ({ event: 'REQUEST_CHANGES', body: 'A person decides: AGENTS.md' }),
      token: REVIEWER,
      status: 200,
    },
    {
      name: 'the reviews of a pull request',
      method: 'GET',
      template: `${R}/pulls/{pull_number}/reviews`,
      path: () => '/repos/acme/app/pulls/1/reviews',
      status: 200,
    },
    {
      name: 'a review of a pull request that does not exist',
      method: 'POST',
      template: `${R}/pulls/{pull_number}/reviews`,
      path: () => '/repos/acme/app/pulls/99/reviews',
      body: () => ({ event: 'COMMENT', body: 'x' }),
      status: 404,
    },
    {
      name: 'a completed check run with an annotation',
      method: 'POST',
      template: `${R}/check-runs`,
      path: () => '/repos/acme/app/check-runs',
      body: () => ({
        name: 'perimeter',
        head_sha: head,
        status: 'completed',
        conclusion: 'failure',
        details_url: 'https://example.com/run',
        output: {
          title: '1 violation',
          summary: 'docs/x.md outside every perimeter',
          annotations: [
            {
              path: 'docs/x.md',
              start_line: 1,
              end_line: 1,
              annotation_level: 'failure',
              message: 'outside',
            },
          ],
        },
      }),
      status: 201,
    },
    {
      name: 'a check run completed without a conclusion',
      method: 'POST',
      template: `${R}/check-runs`,
      path: () => '/repos/acme/app/check-runs',
      body: () => ({ name: 'perimeter', head_sha: head, status: 'completed' }),
      status: 422,
    },
    {
      name: 'a check run on a commit that does not exist',
      method: 'POST',
      template: `${R}/check-runs`,
      path: () => '/repos/acme/app/check-runs',
      body: () => ({ name: 'perimeter', head_sha: MISSING, conclusion: 'success' }),
      status: 422,
    },
    {
      name: 'more annotations to a check run',
      method: 'PATCH',
      template: `${R}/check-runs/{check_run_id}`,
      path: () => '/repos/acme/app/check-runs/9000001',
      body: () => ({
        output: {
          title: '2 violations',
          summary: 'two files',
          annotations: [
            { path: 'src/b.ts', start_line: 1, end_line: 1, annotation_level: 'failure', message: 'outside' },
          ],
        },
      }),
      status: 200,
    },
    {
      name: 'a check run that does not exist',
      method: 'PATCH',
      template: `${R}/check-runs/{check_run_id}`,
      path: () => '/repos/acme/app/check-runs/1',
      body: () => ({ conclusion: 'success' }),
      status: 404,
    },
    {
      name: 'check runs of a commit by name',
      method: 'GET',
      template: `${R}/commits/{ref}/check-runs`,
      path: () => '/repos/acme/app/commits/main/check-runs?check_name=perimeter&filter=all',
      status: 200,
    },
    {
      name: 'annotations of a check run',
      method: 'GET',
      template: `${R}/check-runs/{check_run_id}/annotations`,
      path: () => '/repos/acme/app/check-runs/9000001/annotations',
      status: 200,
    },
    {
      name: "the repository's branch and tag rulesets",
      method: 'GET',
      template: `${R}/rulesets`,
      path: () => '/repos/acme/app/rulesets?targets=branch,tag&includes_parents=true',
      status: 200,
    },
    {
      name: 'a tag ruleset whole',
      method: 'GET',
      template: `${R}/rulesets/{ruleset_id}`,
      path: () => `/repos/acme/app/rulesets/${rulesetId}?includes_parents=true`,
      status: 200,
    },
    {
      name: 'moving a tag a ruleset locks',
      method: 'PATCH',
      template: `${R}/git/refs/{ref}`,
      path: () => '/repos/acme/app/git/refs/tags/frozen-1',
      body: () => ({ sha: head, force: true }),
      status: 422,
    },
    {
      name: 'rules for a branch',
      method: 'GET',
      template: `${R}/rules/branches/{branch}`,
      path: () => '/repos/acme/app/rules/branches/main',
      status: 200,
    },
  ];

  it.each(cases)('$method $template: $name ($status)', async (c) => {
    for (const fault of c.faults ?? []) gh.injectFault(fault);
    const client = c.token === undefined ? api : restClient(gh.url, c.token);
    const answer = await client(c.method, c.path(), c.body?.());
    expect(answer.status, JSON.stringify(answer.body)).toBe(c.status);
    if (c.status === 204) {
      expect(answer.body).toBeUndefined();
      return;
    }
    // GitHub leaves some error statuses undocumented (e.g. 422 on POST statuses, 401 everywhere): those
    // bodies are held to its generic error schemas.
    const documented = documentedStatuses(c.template, c.method).includes(String(c.status));
    const validate = documented
      ? responseValidator(c.template, c.method, c.status)
      : responseValidator(`${R}/git/refs`, 'POST', c.status === 422 ? 422 : 409);
    const valid = validate(answer.body);
    expect(validate.errors ?? [], JSON.stringify(answer.body).slice(0, 500)).toEqual([]);
    expect(valid).toBe(true);
  });

  it('the schemas do reject a wrong shape', async () => {
    const answer = await api('GET', '/repos/acme/app/git/ref/heads/main');
    const validate = responseValidator(`${R}/git/ref/{ref}`, 'GET', 200);
    expect(validate(answer.body)).toBe(true);
    expect(validate({ ...answer.body, object: { sha: head } })).toBe(false);
    const commit = await api('GET', `/repos/acme/app/commits/${head}`);
    const validateCommit = responseValidator(`${R}/commits/{ref}`, 'GET', 200);
    const withoutSha = { ...commit.body };
    delete withoutSha.sha;
    expect(validateCommit(withoutSha)).toBe(false);
    expect(validateCommit({ ...commit.body, files: [{ filename: 'x' }] })).toBe(false);
  });
});
