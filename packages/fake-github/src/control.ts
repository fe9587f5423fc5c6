import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseFault } from './faults.js';
import { readJson } from './http-util.js';
import { send } from './respond.js';
import type { ServerState } from './stats.js';

/**
 * The control surface, apart from the GitHub one and without auth (loopback only):
 * GET/DELETE /_fake/stats, GET/POST/DELETE /_fake/faults.
 */
export async function handleControl(
  state: ServerState,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
): Promise<void> {
  const route = `${req.method} ${path}`;
  try {
    switch (route) {
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
