import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseFault } from './faults.js';
import { readJson } from './http-util.js';
import { send } from './respond.js';
import type { ServerState } from './stats.js';

/**
 * The control surface, apart from the GitHub one and without auth (loopback only):
 * GET/DELETE /_fake/stats, GET/POST/DELETE /_fake/faults, POST /_fake/actions/jobs (a job's runtime token),
 * DELETE /_fake/actions/jobs/{jobBackendId} (the job ended).
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
      default:
        return send(res, 404, {
          message: `no control route ${route}; try GET /_fake/stats or POST /_fake/faults`,
        });
    }
  } catch (error) {
    send(res, 400, { message: error instanceof Error ? error.message : String(error) });
  }
}
