import {
  isSha,
  linkHeader,
  missing,
  pageParams,
  readJson,
  unprocessable,
  validationFailed,
} from '../http-util.js';
import type { ApiResponse } from '../http-util.js';
import type { FakeRepo, StoredStatus } from '../repo.js';
import { route } from '../router.js';
import type { Route, RouteContext } from '../router.js';
import { minimalRepository, repoApi, statusJson } from '../shapes.js';

const STATES = ['error', 'failure', 'pending', 'success'];

/**
 * "There is a limit of 1000 statuses per `sha` and `context` within a repository. Attempts to create more than
 * 1000 statuses will result in a validation error" (https://docs.github.com/rest/commits/statuses#create-a-commit-status);
 * the error's words are those GitHub answers (https://github.com/screwdriver-cd/screwdriver/issues/387,
 * https://github.com/palantir/policy-bot/issues/470).
 */
export const STATUS_LIMIT = 1000;
const LIMIT_REACHED = 'This SHA and context has reached the maximum number of statuses.';

const countOf = (repo: FakeRepo, sha: string, context: string): number =>
  repo.statuses.reduce((n, s) => (s.sha === sha && s.context === context ? n + 1 : n), 0);

const githubTime = (): string => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

/**
 * Adds `count` statuses of one context to a commit at once, as if created one after another through the API
 * (for tests that need many, e.g. near the limit); the limit holds here too.
 */
export function seedStatuses(
  repo: FakeRepo,
  status: { sha: string; context: string; state: string; creator: string; creatorApp: number | null },
  count: number,
): void {
  if (!isSha(status.sha))
    throw new Error(`sha: expected a full commit SHA, got ${JSON.stringify(status.sha)}`);
  if (!STATES.includes(status.state)) throw new Error(`state: expected one of ${STATES.join(', ')}`);
  if (!Number.isSafeInteger(count) || count < 0)
    throw new Error(`count: expected a whole number, got ${count}`);
  const held = countOf(repo, status.sha, status.context);
  if (held + count > STATUS_LIMIT)
    throw new Error(
      `${status.context} on ${status.sha} would hold ${held + count} statuses; GitHub keeps ${STATUS_LIMIT}`,
    );
  const now = githubTime();
  for (let i = 0; i < count; i++)
    repo.statuses.push({
      ...status,
      id: repo.statuses.length + 1,
      description: null,
      target_url: null,
      created_at: now,
      updated_at: now,
    });
}

async function createStatus(ctx: RouteContext): Promise<ApiResponse> {
  const body = await readJson(ctx.req);
  const sha = ctx.params.sha!;
  if (!isSha(sha) || !(await ctx.repo.readCommit(sha)))
    throw unprocessable(`No commit found for SHA: ${sha}`);
  if (typeof body.state !== 'string' || !STATES.includes(body.state)) {
    throw validationFailed('Status', 'state', 'custom', `state is not included in the list`);
  }
  if (body.description !== undefined && body.description !== null && typeof body.description !== 'string') {
    throw validationFailed('Status', 'description', 'invalid');
  }
  if (typeof body.description === 'string' && body.description.length > 140) {
    throw validationFailed(
      'Status',
      'description',
      'custom',
      'description is too long (maximum is 140 characters)',
    );
  }
  const context = typeof body.context === 'string' && body.context !== '' ? body.context : 'default';
  if (countOf(ctx.repo, sha, context) >= STATUS_LIMIT)
    throw unprocessable('Validation Failed', {
      errors: [{ resource: 'Status', code: 'custom', message: LIMIT_REACHED }],
    });
  const now = githubTime();
  const status: StoredStatus = {
    id: ctx.repo.statuses.length + 1,
    sha,
    state: body.state,
    description: typeof body.description === 'string' ? body.description : null,
    target_url: typeof body.target_url === 'string' ? body.target_url : null,
    context,
    creator: ctx.actor,
    creatorApp: ctx.app?.id ?? null,
    created_at: now,
    updated_at: now,
  };
  ctx.repo.statuses.push(status);
  return { status: 201, body: statusJson(ctx.base, ctx.repo, status, true) };
}

/**
 * Statuses of a commit, newest first, each with its `id`, `creator` and `created_at` as GitHub lists them
 * (https://docs.github.com/rest/commits/statuses#list-commit-statuses-for-a-reference); the verify job tells
 * its own from forged ones by id and time.
 */
async function statusesFor(ctx: RouteContext): Promise<{ sha: string; list: typeof ctx.repo.statuses }> {
  const sha = await ctx.repo.resolveCommit(ctx.params.ref!);
  if (!sha) throw await missing(ctx.repo);
  return { sha, list: ctx.repo.statuses.filter((s) => s.sha === sha).reverse() };
}

async function listStatuses(ctx: RouteContext): Promise<ApiResponse> {
  const { list } = await statusesFor(ctx);
  const { perPage, page } = pageParams(ctx.url);
  const lastPage = Math.max(1, Math.ceil(list.length / perPage));
  const link = linkHeader(ctx.url, page, page < lastPage, lastPage);
  const body = list
    .slice((page - 1) * perPage, page * perPage)
    .map((s) => statusJson(ctx.base, ctx.repo, s, true));
  return { status: 200, body, headers: link ? { link } : {} };
}

async function combinedStatus(ctx: RouteContext): Promise<ApiResponse> {
  const { sha, list } = await statusesFor(ctx);
  const latest = new Map<string, (typeof list)[number]>();
  for (const status of list) if (!latest.has(status.context)) latest.set(status.context, status);
  const states = [...latest.values()].map((s) => s.state);
  const state = states.some((s) => s === 'error' || s === 'failure')
    ? 'failure'
    : states.length === 0 || states.includes('pending')
      ? 'pending'
      : 'success';
  const api = repoApi(ctx.base, ctx.repo);
  return {
    status: 200,
    body: {
      state,
      statuses: [...latest.values()].map((s) => statusJson(ctx.base, ctx.repo, s, false)),
      sha,
      total_count: latest.size,
      repository: minimalRepository(ctx.base, ctx.repo),
      commit_url: `${api}/commits/${sha}`,
      url: `${api}/commits/${sha}/status`,
    },
  };
}

export const statusRoutes: Route[] = [
  route('POST', '/repos/{owner}/{repo}/statuses/{sha}', createStatus),
  route('GET', '/repos/{owner}/{repo}/commits/{ref+}/statuses', listStatuses),
  route('GET', '/repos/{owner}/{repo}/commits/{ref+}/status', combinedStatus),
];
