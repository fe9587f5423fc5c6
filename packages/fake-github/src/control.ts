import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseFault } from './faults.js';
import { readJson } from './http-util.js';
import { send } from './respond.js';
import type { ServerState } from './stats.js';
import type { JobConclusion, JobStart } from './actions/actions-jobs.js';
import type { FakeRepo } from './repo.js';

function repoOf(state: ServerState, name: unknown): FakeRepo {
  const repo = typeof name === 'string' ? state.repos.get(name.toLowerCase()) : undefined;
  if (!repo) throw new Error(`repo: expected one of ${[...state.repos.keys()].join(', ')}`);
  return repo;
}

function jobStart(body: Record<string, unknown>): JobStart {
  const { runId, name, runnerName, runAttempt } = body;
  if (typeof runId !== 'number' || typeof name !== 'string' || typeof runnerName !== 'string')
    throw new Error('expected {repo, runId: number, name: string, runnerName: string, runAttempt?: number}');
  return { runId, name, runnerName, ...(typeof runAttempt === 'number' ? { runAttempt } : {}) };
}

/**
 * The control surface, apart from the GitHub one and without auth (loopback only):
 * GET/DELETE /_fake/stats, GET/POST/DELETE /_fake/faults, POST /_fake/actions/jobs (a job's runtime token),
 * DELETE /_fake/actions/jobs/{jobBackendId} (the job ended), and workflow jobs for the Actions jobs API:
 * POST /_fake/workflow-jobs `{repo, runId, name, runnerName, runAttempt?}` records one as started (answers it,
 * with its id), POST /_fake/workflow-jobs/{id}/complete `{repo, conclusion}` completes it.
 */
export async function handleControl(
  state: ServerState,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  startJob: (job: { repository: string; runId: number; runAttempt?: number; job: string }) => unknown,
): Promise<void> {
  const route = `${req.method} ${path}`;
  try {
    const ending = /^DELETE \/_fake\/actions\/jobs\/([\w-]+)$/.exec(route);
    if (ending) {
      return state.artifacts.runtime.endJob(ending[1]!)
        ? send(res, 204, undefined)
        : send(res, 404, { message: `no job ${ending[1]}` });
    }
    switch (route) {
      case 'POST /_fake/actions/jobs': {
        const body = await readJson(req);
        const runId = Number(body.run_id);
        if (
          typeof body.repository !== 'string' ||
          typeof body.job !== 'string' ||
          !Number.isSafeInteger(runId)
        )
          throw new Error('expected {repository, run_id, job, run_attempt?}');
        return send(
          res,
          201,
          startJob({
            repository: body.repository,
            runId,
            runAttempt: Number(body.run_attempt ?? 1) || 1,
            job: body.job,
          }),
        );
      }
      case 'GET /_fake/stats':
        return send(res, 200, state.stats.snapshot());
      case 'DELETE /_fake/stats':
        state.stats.reset();
        return send(res, 204, undefined);
      case 'GET /_fake/faults':
        return send(res, 200, state.faults.list());
      case 'POST /_fake/faults':
        state.faults.add(parseFault(await readJson(req)));
        return send(res, 201, { ok: true });
      case 'DELETE /_fake/faults':
        state.faults.clear();
        return send(res, 204, undefined);
      case 'POST /_fake/workflow-jobs': {
        const body = await readJson(req);
        return send(res, 201, repoOf(state, body.repo).jobs.start(jobStart(body)));
      }
      default:
        {
          const complete = /^POST \/_fake\/workflow-jobs\/(\d+)\/complete$/.exec(route);
          if (complete) {
            const body = await readJson(req);
            if (typeof body.conclusion !== 'string') throw new Error('conclusion: expected a string');
            const job = repoOf(state, body.repo).jobs.complete(
              Number(complete[1]),
              body.conclusion as JobConclusion,
            );
            return send(res, 200, job);
          }
        }
        return send(res, 404, {
          message: `no control route ${route}; try GET /_fake/stats or POST /_fake/faults`,
        });
    }
  } catch (error) {
    send(res, 400, { message: error instanceof Error ? error.message : String(error) });
  }
}
