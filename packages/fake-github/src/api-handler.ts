import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fullRefName } from './faults.js';
import { HttpError } from './http-util.js';
import type { ApiResponse } from './http-util.js';
import {
  encodeBody,
  errorBody,
  authenticated,
  NOT_ACCESSIBLE,
  presentedToken,
  RATE_LIMITED,
  SECONDARY_LIMITED,
  send,
  sendEncoded,
} from './respond.js';
import { matchRoute } from './router.js';
import type { ServerState } from './stats.js';

function activityLag(state: ServerState, key: string, concrete: string): number {
  if (key !== 'GET /repos/{owner}/{repo}/activity') return 0;
  const lag = state.faults.take(['activity-lag'], key, concrete);
  return lag?.kind === 'activity-lag' ? lag.ms : 0;
}

/** Answers one REST request: auth, faults, the rate limit, the route, then ETag / 304. */
export async function handleApi(
  state: ServerState,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  const method = req.method ?? 'GET';
  const found = matchRoute(state.routes, method, url.pathname);
  const isRateLimit = method === 'GET' && url.pathname === '/rate_limit';
  const key = found?.route.key ?? (isRateLimit ? 'GET /rate_limit' : `${method} (unknown route)`);
  const concrete = `${method} ${url.pathname}`;
  state.stats.request(key, false);
  const login = authenticated(req, res, state.tokens);
  if (login === null) return;

  if (!(await state.faults.delay(key, concrete, res))) return;
  const injected = state.faults.take(['status', 'rate-limit', 'secondary-limit'], key, concrete);
  if (injected) {
    state.budget.spend();
    state.stats.spent();
    const headers = state.budget.headers();
    if (injected.kind === 'status') {
      return send(
        res,
        injected.status,
        errorBody(injected.status, injected.message ?? 'Server Error'),
        headers,
      );
    }
    if (injected.kind === 'rate-limit') {
      return send(res, 403, errorBody(403, RATE_LIMITED), {
        ...headers,
        'x-ratelimit-remaining': '0',
        'x-ratelimit-used': String(state.budget.limit),
        'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000 + (injected.retryAfter ?? 1))),
      });
    }
    if (injected.kind === 'secondary-limit') {
      const status = injected.status ?? 403;
      return send(res, status, errorBody(status, SECONDARY_LIMITED), {
        ...headers,
        'retry-after': String(injected.retryAfter ?? 1),
      });
    }
  }

  if (isRateLimit) {
    const core = state.budget.snapshot();
    const search = { limit: 30, used: 0, remaining: 30, reset: core.reset };
    const graphql = state.graphqlBudget.snapshot();
    return send(res, 200, { resources: { core, search, graphql }, rate: core }, state.budget.headers());
  }
  if (!found) return send(res, 404, errorBody(404, 'Not Found'), state.budget.headers());
  if (
    method !== 'GET' &&
    /^\w+ \/repos\/\{owner\}\/\{repo\}\/((git|contents)\/|pulls\/\{pull_number\}\/merge$)/.test(
      found.route.key,
    ) &&
    state.contentsReadOnly.has(presentedToken(req, false) ?? '')
  )
    return send(res, 403, errorBody(403, NOT_ACCESSIBLE), state.budget.headers());

  const checks = /\/check-(runs|suites)(\/|$)/.test(found.route.key)
    ? state.checks.get(presentedToken(req, false) ?? '')
    : undefined;
  if (checks === 'none' || (checks === 'read' && method !== 'GET'))
    return send(res, 403, errorBody(403, NOT_ACCESSIBLE), state.budget.headers());
  // https://docs.github.com/rest/commits/statuses: posting needs statuses: write, reading statuses: read
  const statuses = /\/(statuses\/\{sha\}|commits\/\{ref\+?\}\/status(es)?)$/.test(found.route.key)
    ? state.statuses.get(presentedToken(req, false) ?? '')
    : undefined;
  if (statuses === 'none' || (statuses === 'read' && method !== 'GET'))
    return send(res, 403, errorBody(403, NOT_ACCESSIBLE), state.budget.headers());
  // Pull requests and their reviews need pull-requests (read to GET), REST's runs, jobs and artifacts need
  // actions: https://docs.github.com/rest/authentication/permissions-required-for-github-apps. A merge is
  // contents' (above).
  const scoped =
    /\/pulls(\/|$)/.test(found.route.key) && !found.route.key.endsWith('/merge')
      ? state.pullRequests.get(presentedToken(req, false) ?? '')
      : /\/actions\//.test(found.route.key)
        ? state.actions.get(presentedToken(req, false) ?? '')
        : undefined;
  if (scoped === 'none' || (scoped === 'read' && method !== 'GET'))
    return send(res, 403, errorBody(403, NOT_ACCESSIBLE), state.budget.headers());

  if (state.writes && method !== 'GET') {
    const admitted = state.writes.admit();
    if (!admitted.ok) {
      return send(res, 403, errorBody(403, SECONDARY_LIMITED), {
        ...state.budget.headers(),
        'retry-after': String(admitted.retryAfter),
      });
    }
  }
  const refuseSpent = (): boolean => {
    if (!state.budget.trySpend()) {
      send(res, 403, errorBody(403, RATE_LIMITED), {
        ...state.budget.headers(),
        'x-ratelimit-remaining': '0',
      });
      return true;
    }
    state.stats.spent();
    return false;
  };
  // A conditional GET is answered first: a 304 costs nothing, anything else is charged afterwards.
  const conditional = method === 'GET' && req.headers['if-none-match'] !== undefined;
  if (!conditional && refuseSpent()) return;

  const repo = state.repos.get(`${found.params.owner}/${found.params.repo}`.toLowerCase());
  let answer: ApiResponse;
  try {
    if (!repo) throw new HttpError(404, 'Not Found');
    answer = await found.route.handler({
      req,
      url,
      params: found.params,
      repo,
      base: state.baseUrl,
      actor: login,
      app: state.apps.forLogin(login),
      admin: state.adminTokens.has(presentedToken(req, false) ?? ''),
      canWriteWorkflows: state.canWriteWorkflows,
      permissions: {
        issues: state.issues.get(presentedToken(req, false) ?? '') ?? 'write',
        pullRequests: state.pullRequests.get(presentedToken(req, false) ?? '') ?? 'write',
      },
      activityLagMs: activityLag(state, key, concrete),
      beforeRefWrite: (ref) => state.faults.moveRefsBefore(repo, fullRefName(ref)),
    });
  } catch (error) {
    if (error instanceof HttpError)
      answer = { status: error.status, body: error.body(), headers: error.headers };
    else {
      process.stderr.write(
        `fake-github: ${key} failed: ${error instanceof Error ? error.stack : String(error)}\n`,
      );
      answer = { status: 500, body: errorBody(500, 'Server Error') };
    }
  }

  if (state.faults.take(['lose-answer'], key, concrete))
    return send(res, 502, errorBody(502, 'Server Error'), state.budget.headers());
  const data = encodeBody(answer.body);
  const headers: Record<string, string> = { ...answer.headers };
  if (method === 'GET' && answer.status === 200) {
    const tag = createHash('sha1').update(data).digest('hex');
    headers.etag = `W/"${tag}"`;
    const presented = String(req.headers['if-none-match'] ?? '')
      .split(',')
      .map((t) => t.trim().replace(/^W\//, ''));
    if (presented.includes(`"${tag}"`)) {
      state.stats.notModified();
      return send(res, 304, undefined, { ...state.budget.headers(), ...headers });
    }
  }
  if (conditional && refuseSpent()) return;
  sendEncoded(res, answer.status, data, Buffer.isBuffer(answer.body), {
    ...state.budget.headers(),
    ...headers,
  });
}
