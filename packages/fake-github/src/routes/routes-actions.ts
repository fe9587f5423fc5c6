import type { JobRecord } from '../actions/actions-jobs.js';
import { linkHeader, notFound, pageParams, unprocessable } from '../http-util.js';
import type { ApiResponse } from '../http-util.js';
import { route } from '../router.js';
import type { Route, RouteContext } from '../router.js';
import { htmlUrl, nodeId, repoApi } from '../shapes.js';

/** A job as GET /repos/{o}/{r}/actions/jobs/{job_id} answers it. */
function jobJson(ctx: RouteContext, job: JobRecord): Record<string, unknown> {
  const api = repoApi(ctx.base, ctx.repo);
  return {
    id: job.id,
    run_id: job.runId,
    run_url: `${api}/actions/runs/${job.runId}`,
    run_attempt: job.runAttempt,
    node_id: nodeId('CheckRun', job.id),
    head_sha: job.headSha,
    url: `${api}/actions/jobs/${job.id}`,
    html_url: `${htmlUrl(ctx.base, ctx.repo)}/actions/runs/${job.runId}/job/${job.id}`,
    status: job.status,
    conclusion: job.conclusion,
    created_at: job.createdAt,
    started_at: job.startedAt,
    completed_at: job.completedAt,
    name: job.name,
    steps: job.steps.map((step) => ({
      name: step.name,
      status: step.status,
      conclusion: step.conclusion,
      number: step.number,
      started_at: step.startedAt,
      completed_at: step.completedAt,
    })),
    check_run_url: `${api}/check-runs/${job.id}`,
    labels: ['ubuntu-latest'],
    runner_id: 1,
    runner_name: job.runnerName,
    runner_group_id: 0,
    runner_group_name: 'GitHub Actions',
    workflow_name: job.workflowName,
    head_branch: job.headBranch,
  };
}

function id(value: string | undefined): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n <= 0) throw notFound();
  return n;
}

/**
 * `filter=latest` (the default) lists the jobs of the latest attempt, `filter=all` those of every attempt.
 * https://docs.github.com/rest/actions/workflow-jobs#list-jobs-for-a-workflow-run
 */
async function listRunJobs(ctx: RouteContext): Promise<ApiResponse> {
  const runId = id(ctx.params.run_id);
  const filter = ctx.url.searchParams.get('filter') ?? 'latest';
  if (filter !== 'latest' && filter !== 'all')
    throw unprocessable('Validation Failed', { errors: ['filter must be one of: latest, all'] });
  const all = ctx.repo.jobs.ofRun(runId);
  if (all.length === 0) throw notFound();
  const latest = Math.max(...all.map((j) => j.runAttempt));
  const jobs = filter === 'all' ? all : all.filter((j) => j.runAttempt === latest);
  const { perPage, page } = pageParams(ctx.url);
  const lastPage = Math.max(1, Math.ceil(jobs.length / perPage));
  const link = linkHeader(ctx.url, page, page < lastPage, lastPage);
  return {
    status: 200,
    body: {
      total_count: jobs.length,
      jobs: jobs.slice((page - 1) * perPage, page * perPage).map((j) => jobJson(ctx, j)),
    },
    headers: link ? { link } : {},
  };
}

/** https://docs.github.com/rest/actions/workflow-jobs#get-a-job-for-a-workflow-run */
async function getJob(ctx: RouteContext): Promise<ApiResponse> {
  const job = ctx.repo.jobs.get(id(ctx.params.job_id));
  if (!job) throw notFound();
  return { status: 200, body: jobJson(ctx, job) };
}

export const actionsRoutes: Route[] = [
  route('GET', '/repos/{owner}/{repo}/actions/runs/{run_id}/jobs', listRunJobs),
  route('GET', '/repos/{owner}/{repo}/actions/jobs/{job_id}', getJob),
];
