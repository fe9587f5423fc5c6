import { githubNow } from '../actions/actions-jobs.js';
import type { AppIdentity } from '../apps.js';
import {
  HttpError,
  linkHeader,
  missing,
  notFound,
  pageParams,
  readJson,
  unprocessable,
  validationFailed,
} from '../http-util.js';
import type { ApiResponse } from '../http-util.js';
import type { FakeRepo, StoredCheckRun } from '../repo.js';
import { annotationsOf, optionalText, outcome, outputOf, STATUSES, time } from '../check-run-input.js';
import { route } from '../router.js';
import type { Route, RouteContext } from '../router.js';
import { htmlUrl, nodeId, repoApi, simpleUser } from '../shapes.js';

/** The `app` of a check run: the App whose installation token created it, with its real id. */
function appJson(base: string, app: AppIdentity): Record<string, unknown> {
  const created = '2018-07-30T09:30:17Z';
  return {
    id: app.id,
    slug: app.slug,
    node_id: nodeId('Integration', app.slug),
    owner: simpleUser(base, 'github'),
    name: app.name,
    description: '',
    external_url: `${base}/apps/${app.slug}`,
    html_url: `${base}/apps/${app.slug}`,
    created_at: created,
    updated_at: created,
    permissions: { checks: 'write', contents: 'write', metadata: 'read', statuses: 'write' },
    events: ['check_run', 'push'],
  };
}

export function checkRunJson(base: string, repo: FakeRepo, run: StoredCheckRun): Record<string, unknown> {
  const api = repoApi(base, repo);
  return {
    id: run.id,
    node_id: nodeId('CheckRun', run.id),
    head_sha: run.headSha,
    external_id: run.externalId ?? '',
    url: `${api}/check-runs/${run.id}`,
    html_url: `${htmlUrl(base, repo)}/runs/${run.id}`,
    details_url: run.detailsUrl,
    status: run.status,
    conclusion: run.conclusion,
    started_at: run.startedAt,
    completed_at: run.completedAt,
    output: {
      ...run.output,
      annotations_count: run.annotations.length,
      annotations_url: `${api}/check-runs/${run.id}/annotations`,
    },
    name: run.name,
    check_suite: { id: 1 },
    app: appJson(base, run.app),
    pull_requests: [],
  };
}

/**
 * Only an app's installation token (a GITHUB_TOKEN is github-actions') may write check runs: "OAuth apps and
 * authenticated users are not able to create a check suite" (https://docs.github.com/rest/checks/runs).
 */
function appOf(ctx: RouteContext): AppIdentity {
  if (!ctx.app) throw new HttpError(403, 'You must authenticate via a GitHub App.');
  return ctx.app;
}

async function createCheckRun(ctx: RouteContext): Promise<ApiResponse> {
  const app = appOf(ctx);
  const body = await readJson(ctx.req);
  if (typeof body.name !== 'string' || body.name === '')
    throw validationFailed('CheckRun', 'name', 'missing_field');
  const sha = body.head_sha;
  if (typeof sha !== 'string' || sha === '') throw validationFailed('CheckRun', 'head_sha', 'missing_field');
  if (!/^[0-9a-f]{40}$/.test(sha) || !(await ctx.repo.readCommit(sha)))
    throw unprocessable(`No commit found for SHA: ${sha}`);
  const { status, conclusion } = outcome(body, null);
  const output = outputOf(body);
  const now = githubNow();
  const run: StoredCheckRun = {
    id: 9_000_001 + ctx.repo.checkRuns.length,
    headSha: sha,
    name: body.name,
    status,
    conclusion,
    detailsUrl: optionalText(body, 'details_url'),
    externalId: optionalText(body, 'external_id'),
    startedAt: time(body, 'started_at') ?? now,
    completedAt: status === 'completed' ? (time(body, 'completed_at') ?? now) : null,
    output: {
      title: output ? optionalText(output, 'title') : null,
      summary: output ? optionalText(output, 'summary') : null,
      text: output ? optionalText(output, 'text') : null,
    },
    annotations: output ? annotationsOf(output) : [],
    app,
  };
  ctx.repo.checkRuns.push(run);
  return { status: 201, body: checkRunJson(ctx.base, ctx.repo, run) };
}

function findRun(ctx: RouteContext): StoredCheckRun {
  const run = ctx.repo.checkRuns.find((r) => String(r.id) === ctx.params.check_run_id);
  if (!run) throw notFound();
  return run;
}

/**
 * An update by the App that created the run, told by its id (a slug may be renamed, an id never is);
 * annotations are appended, the rest replaced when given.
 */
async function updateCheckRun(ctx: RouteContext): Promise<ApiResponse> {
  const app = appOf(ctx);
  const run = findRun(ctx);
  if (run.app.id !== app.id)
    throw new HttpError(403, `Invalid app_id \`${app.id}\` - check run can only be modified by its creator.`);
  const body = await readJson(ctx.req);
  if (body.name !== undefined && (typeof body.name !== 'string' || body.name === ''))
    throw validationFailed('CheckRun', 'name', 'invalid');
  const { status, conclusion } = outcome(body, run);
  const output = outputOf(body);
  const added = output ? annotationsOf(output) : [];
  const texts = output
    ? {
        title: optionalText(output, 'title'),
        summary: optionalText(output, 'summary'),
        text: optionalText(output, 'text'),
      }
    : null;
  const detailsUrl = optionalText(body, 'details_url');
  const startedAt = time(body, 'started_at');
  const completedAt = time(body, 'completed_at');
  // validated in full before anything changes: a refused update changes nothing
  if (typeof body.name === 'string') run.name = body.name;
  if (detailsUrl !== null) run.detailsUrl = detailsUrl;
  if (startedAt !== null) run.startedAt = startedAt;
  if (status === 'completed' && run.completedAt === null) run.completedAt = completedAt ?? githubNow();
  run.status = status;
  run.conclusion = conclusion;
  if (texts) run.output = { ...texts, text: texts.text ?? run.output.text };
  run.annotations.push(...added);
  return { status: 200, body: checkRunJson(ctx.base, ctx.repo, run) };
}

/**
 * Check runs of a commit, newest first: `check_name` and `status` filter; `filter=latest` (the default) keeps
 * the newest run of each name, `all` keeps every one. https://docs.github.com/rest/checks/runs#list-check-runs-for-a-git-reference
 */
async function listCheckRuns(ctx: RouteContext): Promise<ApiResponse> {
  const sha = await ctx.repo.resolveCommit(ctx.params.ref!);
  if (!sha) throw await missing(ctx.repo);
  const name = ctx.url.searchParams.get('check_name');
  const status = ctx.url.searchParams.get('status');
  const filter = ctx.url.searchParams.get('filter') ?? 'latest';
  if (filter !== 'latest' && filter !== 'all') throw validationFailed('CheckRun', 'filter', 'invalid');
  if (status !== null && !STATUSES.includes(status)) throw validationFailed('CheckRun', 'status', 'invalid');
  let runs = ctx.repo.checkRuns
    .filter((run) => run.headSha === sha && (name === null || run.name === name))
    .filter((run) => status === null || run.status === status)
    .reverse();
  if (filter === 'latest') {
    // "filters check runs by their completed_at timestamp": the newest completion of each name wins
    const completed = (run: StoredCheckRun): number => Date.parse(run.completedAt ?? '') || Infinity;
    runs = [...runs].sort((a, b) => completed(b) - completed(a) || b.id - a.id);
    const seen = new Set<string>();
    runs = runs.filter(
      (run) => !seen.has(`${run.app.id}\0${run.name}`) && seen.add(`${run.app.id}\0${run.name}`),
    );
  }
  const { perPage, page } = pageParams(ctx.url);
  const lastPage = Math.max(1, Math.ceil(runs.length / perPage));
  const link = linkHeader(ctx.url, page, page < lastPage, lastPage);
  return {
    status: 200,
    body: {
      total_count: runs.length,
      check_runs: runs
        .slice((page - 1) * perPage, page * perPage)
        .map((run) => checkRunJson(ctx.base, ctx.repo, run)),
    },
    headers: link ? { link } : {},
  };
}

async function getCheckRun(ctx: RouteContext): Promise<ApiResponse> {
  return { status: 200, body: checkRunJson(ctx.base, ctx.repo, findRun(ctx)) };
}

async function listAnnotations(ctx: RouteContext): Promise<ApiResponse> {
  const run = findRun(ctx);
  const { perPage, page } = pageParams(ctx.url);
  const lastPage = Math.max(1, Math.ceil(run.annotations.length / perPage));
  const link = linkHeader(ctx.url, page, page < lastPage, lastPage);
  return {
    status: 200,
    body: run.annotations.slice((page - 1) * perPage, page * perPage).map((a) => ({
      path: a.path,
      start_line: a.start_line,
      end_line: a.end_line,
      start_column: a.start_column ?? null,
      end_column: a.end_column ?? null,
      annotation_level: a.annotation_level,
      title: a.title ?? null,
      message: a.message,
      raw_details: a.raw_details ?? null,
      blob_href: `${htmlUrl(ctx.base, ctx.repo)}/blob/${run.headSha}/${String(a.path)}`,
    })),
    headers: link ? { link } : {},
  };
}

export const checkRoutes: Route[] = [
  route('POST', '/repos/{owner}/{repo}/check-runs', createCheckRun),
  route('PATCH', '/repos/{owner}/{repo}/check-runs/{check_run_id}', updateCheckRun),
  route('GET', '/repos/{owner}/{repo}/check-runs/{check_run_id}', getCheckRun),
  route('GET', '/repos/{owner}/{repo}/check-runs/{check_run_id}/annotations', listAnnotations),
  route('GET', '/repos/{owner}/{repo}/commits/{ref+}/check-runs', listCheckRuns),
];
