import { createHash, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { activate, fullRefName, parseFault, routeMatches } from './faults.js';
import type { ActiveFault, Fault } from './faults.js';
import { serveGit } from './git-http.js';
import { DOCS, HttpError, readJson } from './http-util.js';
import type { ApiResponse } from './http-util.js';
import { FakeRepo } from './repo.js';
import { matchRoute } from './router.js';
import type { Route, RouteContext } from './router.js';
import { commitRouteLast, commitRoutes } from './routes-commits.js';
import { TREE_ENTRY_LIMIT, treeRoutes } from './routes-git-data.js';
import { miscRoutes } from './routes-misc.js';
import { refRoutes } from './routes-refs.js';
import { commitToBare } from './seed.js';

export interface FakeGithubOptions {
  /** default 0 = a free port on 127.0.0.1 */
  port?: number;
  /** the token REST calls and git must present; default 'test-token' */
  token?: string;
  /** 'owner/name' -> path of a bare git repository (created empty when missing) */
  repos: Record<string, string>;
  /** 'owner/name' of repositories reported as private */
  private?: string[];
  /** core REST budget per hour, default 5000 */
  rateLimit?: number;
  /** login the token belongs to, default 'github-actions[bot]' */
  actor?: string;
  /** more tokens, each with the login it belongs to (for pushes by someone else) */
  extraTokens?: Record<string, string>;
  /** entries of a recursive tree answer before `truncated: true`; GitHub's 100,000 by default */
  treeEntryLimit?: number;
}

export interface FakeStats {
  /** REST requests received (including 304s and refusals) */
  total: number;
  /** REST requests answered 304 Not Modified */
  notModified: number;
  /** REST requests counted against the rate limit */
  spent: number;
  /** git smart HTTP requests */
  git: number;
  /** per route: 'GET /repos/{owner}/{repo}/git/trees/{sha}', 'GIT POST /{owner}/{repo}.git/git-receive-pack', ... */
  byRoute: Record<string, number>;
}

export interface FakeGithub {
  /** http://127.0.0.1:PORT ; REST at the root, git at `${url}/owner/name.git` */
  url: string;
  port: number;
  stats(): FakeStats;
  resetStats(): void;
  injectFault(fault: Fault): void;
  clearFaults(): void;
  stop(): Promise<void>;
}

const GIT_PATH = /^\/([^/]+)\/([^/]+?)\.git(\/.*)$/;

export async function startFakeGithub(options: FakeGithubOptions): Promise<FakeGithub> {
  const token = options.token ?? 'test-token';
  const actor = options.actor ?? 'github-actions[bot]';
  const tokens = new Map<string, string>([[token, actor], ...Object.entries(options.extraTokens ?? {})]);
  const limit = options.rateLimit ?? 5000;
  const routes: Route[] = [
    ...refRoutes,
    ...treeRoutes(options.treeEntryLimit ?? TREE_ENTRY_LIMIT),
    ...commitRoutes,
    ...miscRoutes,
    commitRouteLast,
  ];
  const repos = new Map<string, FakeRepo>();
  let nextId = 1000;
  for (const [name, dir] of Object.entries(options.repos)) {
    repos.set(
      name.toLowerCase(),
      await FakeRepo.open(name, dir, (options.private ?? []).includes(name), nextId++),
    );
  }

  let stats: FakeStats = { total: 0, notModified: 0, spent: 0, git: 0, byRoute: {} };
  let faults: ActiveFault[] = [];
  const budget = { used: 0, reset: Math.floor(Date.now() / 1000) + 3600 };

  const rateHeaders = (): Record<string, string> => {
    const now = Math.floor(Date.now() / 1000);
    if (now >= budget.reset) Object.assign(budget, { used: 0, reset: now + 3600 });
    return {
      'x-ratelimit-limit': String(limit),
      'x-ratelimit-remaining': String(Math.max(0, limit - budget.used)),
      'x-ratelimit-used': String(budget.used),
      'x-ratelimit-reset': String(budget.reset),
      'x-ratelimit-resource': 'core',
    };
  };

  const takeFault = (kinds: string[], key: string, concrete: string): ActiveFault | null => {
    const fault = faults.find(
      (f) =>
        kinds.includes(f.kind) && f.remaining > 0 && 'route' in f && routeMatches(f.route, key, concrete),
    );
    const unscoped =
      fault ?? faults.find((f) => kinds.includes(f.kind) && f.remaining > 0 && !('route' in f));
    if (!unscoped) return null;
    unscoped.remaining -= 1;
    faults = faults.filter((f) => f.remaining > 0);
    return unscoped;
  };

  const moveRefsBeforeWrite = async (repo: FakeRepo, ref: string | null): Promise<void> => {
    const due = faults.filter(
      (f) =>
        f.kind === 'move-ref' &&
        f.repo.toLowerCase() === repo.fullName.toLowerCase() &&
        (ref === null || fullRefName(f.ref) === ref),
    );
    faults = faults.filter((f) => !due.includes(f));
    for (const fault of due) {
      if (fault.kind !== 'move-ref') continue;
      const target = fullRefName(fault.ref);
      const moverActor = fault.actor ?? 'octocat';
      if (fault.toSha) {
        await repo.moveRef(target, await repo.refValue(target), fault.toSha, moverActor);
      } else {
        await commitToBare(
          repo.dir,
          target.replace(/^refs\/heads\//, ''),
          fault.files ?? {},
          fault.message ?? 'Concurrent change',
          { actor: moverActor },
        );
      }
    }
  };

  const send = (
    res: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string>,
  ): void => {
    const data = Buffer.isBuffer(body)
      ? body
      : body === undefined
        ? Buffer.alloc(0)
        : Buffer.from(JSON.stringify(body));
    const contentType = Buffer.isBuffer(body)
      ? 'application/octet-stream'
      : 'application/json; charset=utf-8';
    res.writeHead(status, {
      'content-type': contentType,
      'x-github-media-type': 'github.v3; format=json',
      'x-github-request-id': randomUUID(),
      ...headers,
    });
    res.end(status === 204 || status === 304 ? undefined : data);
  };

  const errorBody = (status: number, message: string): Record<string, unknown> => ({
    message,
    documentation_url: DOCS,
    status: String(status),
  });

  const identify = (req: IncomingMessage, git: boolean): string | null | undefined => {
    const header = String(req.headers.authorization ?? '');
    if (header === '') return undefined;
    const [scheme, value = ''] = header.split(/\s+/, 2);
    let presented = '';
    if (/^basic$/i.test(scheme!)) {
      const decoded = Buffer.from(value, 'base64').toString('utf8');
      presented = decoded.slice(decoded.indexOf(':') + 1);
    } else if (!git && /^(token|bearer)$/i.test(scheme!)) {
      presented = value;
    }
    return tokens.get(presented) ?? null;
  };

  const handleControl = async (req: IncomingMessage, res: ServerResponse, path: string): Promise<void> => {
    const json = (status: number, body: unknown): void => send(res, status, body, {});
    try {
      if (path === '/_fake/stats' && req.method === 'GET') return json(200, stats);
      if (path === '/_fake/stats' && req.method === 'DELETE') {
        stats = { total: 0, notModified: 0, spent: 0, git: 0, byRoute: {} };
        return json(204, undefined);
      }
      if (path === '/_fake/faults' && req.method === 'GET')
        return json(
          200,
          faults.map((f) => ({
            ...f,
            route: f.kind !== 'move-ref' && f.route ? String(f.route) : undefined,
          })),
        );
      if (path === '/_fake/faults' && req.method === 'POST') {
        const fault = parseFault(await readJson(req));
        faults.push(activate(fault));
        return json(201, { ok: true });
      }
      if (path === '/_fake/faults' && req.method === 'DELETE') {
        faults = [];
        return json(204, undefined);
      }
      json(404, { message: `no control route ${req.method} ${path}` });
    } catch (error) {
      json(400, { message: error instanceof Error ? error.message : String(error) });
    }
  };

  const handleGit = async (
    req: IncomingMessage,
    res: ServerResponse,
    match: RegExpExecArray,
  ): Promise<void> => {
    const [, owner, name, rest] = match;
    const key = `GIT ${req.method} /{owner}/{repo}.git${rest!.replace(/\?.*$/, '')}`;
    stats.git += 1;
    stats.byRoute[key] = (stats.byRoute[key] ?? 0) + 1;
    const login = identify(req, true);
    if (!login) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="GitHub"', 'content-type': 'text/plain' });
      res.end(login === undefined ? 'Authentication required\n' : 'Invalid username or token.\n');
      return;
    }
    const concrete = `${req.method} ${req.url}`;
    const delay = takeFault(['latency'], key, concrete);
    if (delay?.kind === 'latency') await sleep(delay.ms);
    const failure = takeFault(['status'], key, concrete);
    if (failure?.kind === 'status') {
      res.writeHead(failure.status, { 'content-type': 'text/plain' });
      res.end(`${failure.message ?? 'Injected failure'}\n`);
      return;
    }
    const repo = repos.get(`${owner}/${name}`.toLowerCase());
    if (!repo) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('Repository not found.\n');
      return;
    }
    if (req.method === 'POST' && rest!.startsWith('/git-receive-pack')) await moveRefsBeforeWrite(repo, null);
    await serveGit(req, res, repo, rest!.replace(/\?.*$/, ''), login);
  };

  const handleApi = async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> => {
    const method = req.method ?? 'GET';
    const found = matchRoute(routes, method, url.pathname);
    const key =
      found?.route.key ?? (url.pathname === '/rate_limit' ? 'GET /rate_limit' : `${method} (unknown route)`);
    const concrete = `${method} ${url.pathname}`;
    stats.total += 1;
    stats.byRoute[key] = (stats.byRoute[key] ?? 0) + 1;
    const login = identify(req, false);
    if (!login)
      return send(
        res,
        401,
        errorBody(401, login === undefined ? 'Requires authentication' : 'Bad credentials'),
        {},
      );

    const delay = takeFault(['latency'], key, concrete);
    if (delay?.kind === 'latency') await sleep(delay.ms);
    const injected = takeFault(['status', 'rate-limit', 'secondary-limit'], key, concrete);
    if (injected) {
      stats.spent += 1;
      budget.used += 1;
      const headers = rateHeaders();
      if (injected.kind === 'status')
        return send(
          res,
          injected.status,
          errorBody(injected.status, injected.message ?? 'Server Error'),
          headers,
        );
      if (injected.kind === 'rate-limit') {
        const reset = Math.ceil(Date.now() / 1000 + (injected.retryAfter ?? 1));
        return send(
          res,
          403,
          errorBody(
            403,
            `API rate limit exceeded for installation. If you reach out to GitHub Support for help, please include the request ID.`,
          ),
          {
            ...headers,
            'x-ratelimit-remaining': '0',
            'x-ratelimit-used': String(limit),
            'x-ratelimit-reset': String(reset),
          },
        );
      }
      if (injected.kind === 'secondary-limit') {
        const status = injected.status ?? 403;
        return send(
          res,
          status,
          errorBody(
            status,
            'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
          ),
          {
            ...headers,
            'retry-after': String(injected.retryAfter ?? 1),
          },
        );
      }
    }

    if (url.pathname === '/rate_limit' && method === 'GET') {
      const h = rateHeaders();
      const core = {
        limit,
        used: budget.used,
        remaining: Number(h['x-ratelimit-remaining']),
        reset: budget.reset,
      };
      const search = { limit: 30, used: 0, remaining: 30, reset: budget.reset };
      return send(res, 200, { resources: { core, search }, rate: core }, h);
    }
    if (!found) return send(res, 404, errorBody(404, 'Not Found'), rateHeaders());

    const repo = repos.get(`${found.params.owner}/${found.params.repo}`.toLowerCase());
    const spent = (): boolean => {
      rateHeaders();
      if (budget.used >= limit) return true;
      budget.used += 1;
      stats.spent += 1;
      return false;
    };
    const conditional = method === 'GET' && req.headers['if-none-match'] !== undefined;
    if (!conditional && spent()) return sendRateLimited(res);
    let answer: ApiResponse;
    try {
      if (!repo) throw new HttpError(404, 'Not Found');
      const ctx: RouteContext = {
        req,
        url,
        params: found.params,
        repo,
        base: baseUrl,
        actor: login,
        beforeRefWrite: (ref) => moveRefsBeforeWrite(repo, fullRefName(ref)),
      };
      answer = await found.route.handler(ctx);
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
    const body = answer.body;
    const headers: Record<string, string> = { ...answer.headers };
    if (method === 'GET' && answer.status === 200) {
      const data = Buffer.isBuffer(body) ? body : Buffer.from(JSON.stringify(body));
      const etag = `W/"${createHash('sha256').update(data).digest('hex').slice(0, 40)}"`;
      headers.etag = etag;
      const presented = String(req.headers['if-none-match'] ?? '')
        .split(',')
        .map((t) => t.trim().replace(/^W\//, ''));
      if (presented.includes(etag.replace(/^W\//, ''))) {
        stats.notModified += 1;
        return send(res, 304, undefined, { ...rateHeaders(), ...headers });
      }
    }
    if (conditional && spent()) return sendRateLimited(res);
    send(res, answer.status, body, { ...rateHeaders(), ...headers });
  };

  const sendRateLimited = (res: ServerResponse): void => {
    send(
      res,
      403,
      errorBody(
        403,
        'API rate limit exceeded for installation. If you reach out to GitHub Support for help, please include the request ID.',
      ),
      {
        ...rateHeaders(),
        'x-ratelimit-remaining': '0',
      },
    );
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', baseUrl);
    const work = url.pathname.startsWith('/_fake/')
      ? handleControl(req, res, url.pathname)
      : GIT_PATH.test(url.pathname)
        ? handleGit(req, res, GIT_PATH.exec(url.pathname)!)
        : handleApi(req, res, url);
    work.catch((error: unknown) => {
      process.stderr.write(`fake-github: ${error instanceof Error ? error.stack : String(error)}\n`);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end();
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const baseUrl = `http://127.0.0.1:${port}`;

  return {
    url: baseUrl,
    port,
    stats: () => structuredClone(stats),
    resetStats: () => {
      stats = { total: 0, notModified: 0, spent: 0, git: 0, byRoute: {} };
    },
    injectFault: (fault) => {
      faults.push(activate(fault));
    },
    clearFaults: () => {
      faults = [];
    },
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      for (const repo of repos.values()) repo.close();
    },
  };
}
