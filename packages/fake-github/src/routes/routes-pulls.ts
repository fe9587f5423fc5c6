import { notFound, pageParams, readJson, unprocessable, validationFailed } from '../http-util.js';
import type { ApiResponse } from '../http-util.js';
import type { FakeRepo, StoredPull } from '../repo.js';
import { route } from '../router.js';
import type { Route, RouteContext } from '../router.js';
import { gitText } from '../git/git.js';
import { BODY_LIMIT, checkedText, labelJson, TITLE_LIMIT } from './routes-issues.js';
import { commitJson, fullRepository, nodeId, repoApi, htmlUrl, simpleUser } from '../shapes.js';

/**
 * GitHub lists at most 250 commits of a pull request, however many it holds.
 * https://docs.github.com/rest/pulls/pulls#list-commits-on-a-pull-request
 */
export const PULL_COMMIT_LIMIT = 250;

const pullsOf = (repo: FakeRepo): StoredPull[] => repo.pulls;

/**
 * POST /repos/{owner}/{repo}/pulls, same-repository heads only, refused as GitHub refuses: a missing title,
 * a head or base that is no branch, no commits between them, an open pull request for the same head.
 * https://docs.github.com/rest/pulls/pulls#create-a-pull-request
 */
async function createPull(ctx: RouteContext): Promise<ApiResponse> {
  const body = await readJson(ctx.req);
  if (typeof body.title !== 'string' || body.title === '')
    throw validationFailed('PullRequest', 'title', 'missing_field');
  checkedText(body.title, 'PullRequest', 'title', TITLE_LIMIT);
  if (body.body !== undefined && body.body !== null)
    checkedText(body.body, 'PullRequest', 'body', BODY_LIMIT);
  if (typeof body.head !== 'string') throw validationFailed('PullRequest', 'head', 'missing_field');
  if (typeof body.base !== 'string') throw validationFailed('PullRequest', 'base', 'missing_field');
  const head = body.head.replace(new RegExp(`^${ctx.repo.owner}:`), '');
  const headSha = await ctx.repo.refValue(`refs/heads/${head}`);
  if (!headSha) throw validationFailed('PullRequest', 'head', 'invalid');
  const baseSha = await ctx.repo.refValue(`refs/heads/${body.base}`);
  if (!baseSha) throw validationFailed('PullRequest', 'base', 'invalid');
  if (headSha === baseSha || (await ctx.repo.isAncestor(headSha, baseSha)))
    throw unprocessable('Validation Failed', {
      errors: [
        { resource: 'PullRequest', code: 'custom', message: `No commits between ${body.base} and ${head}` },
      ],
    });
  const list = pullsOf(ctx.repo);
  if (list.some((p) => p.head === head && p.base === body.base && p.state === 'open'))
    throw unprocessable('Validation Failed', {
      errors: [
        {
          resource: 'PullRequest',
          code: 'custom',
          message: `A pull request already exists for ${ctx.repo.owner}:${head}.`,
        },
      ],
    });
  const pull: StoredPull = {
    number: ctx.repo.nextIssueNumber(),
    title: body.title,
    body: typeof body.body === 'string' ? body.body : null,
    head,
    base: body.base,
    draft: body.draft === true,
    user: ctx.actor,
    labels: [],
    created_at: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    state: 'open',
    merged_at: null,
    merge_commit_sha: null,
    merged_by: null,
  };
  list.push(pull);
  return { status: 201, body: await pullJson(ctx, pull) };
}

async function getPull(ctx: RouteContext): Promise<ApiResponse> {
  const pull = pullsOf(ctx.repo).find((p) => String(p.number) === ctx.params.pull_number);
  if (!pull) throw notFound();
  return { status: 200, body: await pullJson(ctx, pull) };
}

/**
 * PATCH /repos/{owner}/{repo}/pulls/{pull_number}: title, body, base and state. A draft stays a draft: REST
 * cannot change that (GraphQL's markPullRequestReadyForReview can).
 * https://docs.github.com/rest/pulls/pulls#update-a-pull-request
 */
async function updatePull(ctx: RouteContext): Promise<ApiResponse> {
  const pull = pullsOf(ctx.repo).find((p) => String(p.number) === ctx.params.pull_number);
  if (!pull) throw notFound();
  const body = await readJson(ctx.req);
  if (body.title !== undefined) {
    const title = checkedText(body.title, 'PullRequest', 'title', TITLE_LIMIT);
    if (title === '') throw validationFailed('PullRequest', 'title', 'missing_field');
  }
  if (body.body !== undefined && body.body !== null)
    checkedText(body.body, 'PullRequest', 'body', BODY_LIMIT);
  if (body.base !== undefined) {
    if (typeof body.base !== 'string' || !(await ctx.repo.refValue(`refs/heads/${body.base}`)))
      throw validationFailed('PullRequest', 'base', 'invalid');
  }
  if (body.state !== undefined && body.state !== 'open' && body.state !== 'closed')
    throw validationFailed('PullRequest', 'state', 'invalid');
  if (pull.merged_at !== null && body.state === 'open')
    throw unprocessable('Validation Failed', {
      errors: [
        {
          resource: 'PullRequest',
          code: 'custom',
          message: 'state cannot be changed. The pull request has been merged.',
        },
      ],
    });
  if (typeof body.title === 'string') pull.title = body.title;
  if (body.body !== undefined) pull.body = typeof body.body === 'string' ? body.body : null;
  if (typeof body.base === 'string') pull.base = body.base;
  if (body.state === 'open' || body.state === 'closed') pull.state = body.state;
  pull.updated_at = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  return { status: 200, body: await pullJson(ctx, pull) };
}

/** The commits of a pull request: head's, not base's, oldest first (the base and head branches as they are now). */
async function pullCommitShas(ctx: RouteContext, pull: StoredPull): Promise<string[]> {
  const [base, head] = await Promise.all([
    ctx.repo.refValue(`refs/heads/${pull.base}`),
    ctx.repo.refValue(`refs/heads/${pull.head}`),
  ]);
  if (!base || !head) return [];
  const listed = await gitText(ctx.repo.dir, ['rev-list', '--reverse', '--topo-order', `${base}..${head}`]);
  return listed.split('\n').filter(Boolean);
}

/** GET /repos/{owner}/{repo}/pulls/{pull_number}/commits: pages of the first 250 commits, never more. */
async function listPullCommits(ctx: RouteContext): Promise<ApiResponse> {
  const pull = pullsOf(ctx.repo).find((p) => String(p.number) === ctx.params.pull_number);
  if (!pull) throw notFound();
  const { perPage, page } = pageParams(ctx.url);
  const shas = (await pullCommitShas(ctx, pull)).slice(0, PULL_COMMIT_LIMIT);
  const commits = await Promise.all(
    shas.slice((page - 1) * perPage, page * perPage).map((sha) => ctx.repo.readCommit(sha)),
  );
  return { status: 200, body: commits.map((c) => commitJson(ctx.base, ctx.repo, c!)) };
}

async function pullJson(ctx: RouteContext, pull: StoredPull): Promise<Record<string, unknown>> {
  const api = repoApi(ctx.base, ctx.repo);
  const html = `${htmlUrl(ctx.base, ctx.repo)}/pull/${pull.number}`;
  const defaultBranch = await ctx.repo.defaultBranch();
  // the pull request's `repository` schema (not full-repository): it asks has_downloads and a string token
  const repository = {
    ...fullRepository(ctx.base, ctx.repo, defaultBranch),
    has_downloads: true,
    temp_clone_token: '',
  };
  const side = async (branch: string) => ({
    label: `${ctx.repo.owner}:${branch}`,
    ref: branch,
    sha: (await ctx.repo.refValue(`refs/heads/${branch}`)) ?? '0'.repeat(40),
    user: simpleUser(ctx.base, ctx.repo.owner),
    repo: repository,
  });
  const link = (href: string) => ({ href });
  return {
    url: `${api}/pulls/${pull.number}`,
    id: ctx.repo.id * 1000 + pull.number,
    node_id: nodeId('PullRequest', `${ctx.repo.id}/${pull.number}`),
    html_url: html,
    diff_url: `${html}.diff`,
    patch_url: `${html}.patch`,
    issue_url: `${api}/issues/${pull.number}`,
    commits_url: `${api}/pulls/${pull.number}/commits`,
    review_comments_url: `${api}/pulls/${pull.number}/comments`,
    review_comment_url: `${api}/pulls/comments{/number}`,
    comments_url: `${api}/issues/${pull.number}/comments`,
    statuses_url: `${api}/statuses/${(await side(pull.head)).sha}`,
    number: pull.number,
    state: pull.state,
    locked: false,
    title: pull.title,
    user: simpleUser(ctx.base, pull.user),
    body: pull.body,
    // pull-request-simple's labels have a string description (an issue's may be null)
    labels: pull.labels.map((name) => ({ ...labelJson(ctx, name), description: '' })),
    milestone: null,
    active_lock_reason: null,
    created_at: pull.created_at,
    updated_at: pull.merged_at ?? pull.updated_at ?? pull.created_at,
    closed_at: pull.merged_at,
    merged_at: pull.merged_at,
    merge_commit_sha: pull.merge_commit_sha,
    assignee: null,
    assignees: [],
    requested_reviewers: [],
    requested_teams: [],
    head: await side(pull.head),
    base: await side(pull.base),
    _links: {
      self: link(`${api}/pulls/${pull.number}`),
      html: link(html),
      issue: link(`${api}/issues/${pull.number}`),
      comments: link(`${api}/issues/${pull.number}/comments`),
      review_comments: link(`${api}/pulls/${pull.number}/comments`),
      review_comment: link(`${api}/pulls/comments{/number}`),
      commits: link(`${api}/pulls/${pull.number}/commits`),
      statuses: link(`${api}/statuses/${(await side(pull.head)).sha}`),
    },
    author_association: 'CONTRIBUTOR',
    auto_merge: null,
    draft: pull.draft,
    merged: pull.merged_at !== null,
    mergeable: null,
    rebaseable: null,
    mergeable_state: 'unknown',
    merged_by: pull.merged_by === null ? null : simpleUser(ctx.base, pull.merged_by),
    comments: 0,
    review_comments: 0,
    maintainer_can_modify: false,
    commits: (await pullCommitShas(ctx, pull)).length,
    additions: 0,
    deletions: 0,
    changed_files: 0,
  };
}

/** Fields of a full pull request that GitHub's list (pull-request-simple) leaves out. */
const FULL_ONLY = [
  'merged',
  'mergeable',
  'rebaseable',
  'mergeable_state',
  'merged_by',
  'comments',
  'review_comments',
  'maintainer_can_modify',
  'commits',
  'additions',
  'deletions',
  'changed_files',
];

/**
 * GET /repos/{owner}/{repo}/pulls: `state` open (the default), closed or all, newest first, paged (at most 100 a
 * page, 30 by default), each as GitHub's pull-request-simple.
 * https://docs.github.com/rest/pulls/pulls#list-pull-requests
 */
async function listPulls(ctx: RouteContext): Promise<ApiResponse> {
  const state = ctx.url.searchParams.get('state') ?? 'open';
  if (!['open', 'closed', 'all'].includes(state)) throw validationFailed('PullRequest', 'state', 'invalid');
  const { perPage, page } = pageParams(ctx.url);
  // `head` is `user:ref-name` (or `organization:ref-name`); `base` a branch name
  const head = ctx.url.searchParams.get('head');
  const base = ctx.url.searchParams.get('base');
  const matching = [...pullsOf(ctx.repo)]
    .filter((pull) => state === 'all' || pull.state === state)
    .filter((pull) => head === null || head === `${ctx.repo.owner}:${pull.head}`)
    .filter((pull) => base === null || base === pull.base)
    .sort((a, b) => b.number - a.number)
    .slice((page - 1) * perPage, page * perPage);
  const body = await Promise.all(
    matching.map(async (pull) => {
      const full = await pullJson(ctx, pull);
      for (const key of FULL_ONLY) delete full[key];
      return full;
    }),
  );
  return { status: 200, body };
}

export const pullRoutes: Route[] = [
  route('POST', '/repos/{owner}/{repo}/pulls', createPull),
  route('GET', '/repos/{owner}/{repo}/pulls', listPulls),
  route('GET', '/repos/{owner}/{repo}/pulls/{pull_number}', getPull),
  route('PATCH', '/repos/{owner}/{repo}/pulls/{pull_number}', updatePull),
  route('GET', '/repos/{owner}/{repo}/pulls/{pull_number}/commits', listPullCommits),
];
