import { spawn } from 'node:child_process';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { basename, dirname } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { ACTIVITY_ENV, activityPath, ACTOR_ENV, LOCKS_ENV, NO_WORKFLOWS_ENV } from '../activity-log.js';
import { lockPatterns } from '../rules/ruleset.js';
import type { FakeRepo } from '../repo.js';
import { identify, presentedToken } from '../respond.js';
import type { ServerState } from '../stats.js';

export const HTTP_BACKEND = '/usr/lib/git-core/git-http-backend';

/** `/owner/name.git/...` */
export const GIT_PATH = /^\/([^/]+)\/([^/]+?)\.git(\/.*)$/;

function plain(
  res: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'text/plain', ...headers });
  res.end(`${text}\n`);
}

/** Answers one git smart HTTP request: Basic auth with the token as password, faults, then http-backend. */
export async function handleGit(
  state: ServerState,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
): Promise<void> {
  const [, owner, name, rest = '/'] = GIT_PATH.exec(path) ?? [];
  const key = `GIT ${req.method} /{owner}/{repo}.git${rest}`;
  state.stats.request(key, true);
  const login = identify(req, state.tokens, true);
  if (!login) {
    const message = login === undefined ? 'Authentication required' : 'Invalid username or token.';
    return plain(res, 401, message, { 'www-authenticate': 'Basic realm="GitHub"' });
  }
  const concrete = `${req.method} ${path}`;
  if (!(await state.faults.delay(key, concrete, res))) return;
  const failure = state.faults.take(['status'], key, concrete);
  if (failure?.kind === 'status') return plain(res, failure.status, failure.message ?? 'Injected failure');
  const repo = state.repos.get(`${owner}/${name}`.toLowerCase());
  if (!repo) return plain(res, 404, 'Repository not found.');
  const pushing =
    rest === '/git-receive-pack' || (rest === '/info/refs' && /service=git-receive-pack/.test(req.url ?? ''));
  if (pushing && state.contentsReadOnly.has(presentedToken(req, true) ?? ''))
    return plain(res, 403, `Permission to ${owner}/${name}.git denied to ${login}.`);
  if (req.method === 'POST' && rest === '/git-receive-pack') await state.faults.moveRefsBefore(repo, null);
  if (req.method === 'POST' && rest === '/git-upload-pack') {
    // read whole (a request is its wants and options: small) to see which protocol v2 command it asks for
    const body = await readBody(req);
    if (asksObjectInfo(body, req.headers['content-encoding']))
      return plain(res, 400, "fatal: invalid command 'object-info'");
    return serveGit(req, res, repo, rest, login, state.canWriteWorkflows, '', body);
  }
  const locks = pushing ? lockPatterns(repo.rulesets, await repo.defaultBranch()) : '';
  await serveGit(req, res, repo, rest, login, state.canWriteWorkflows, locks);
}

/**
 * Serves git smart HTTP for one repository through `git http-backend` (CGI): the request body goes to its
 * stdin, its header block becomes the response status and headers, the rest is streamed back.
 */
export function serveGit(
  req: IncomingMessage,
  res: ServerResponse,
  repo: FakeRepo,
  rest: string,
  actor: string,
  canWriteWorkflows: boolean,
  locks = '',
  /** the request body when the caller read it already */
  body?: Buffer,
): Promise<void> {
  // GitHub's protocol v2 capability advertisement has no `object-info` (blob sizes without the blobs):
  // git's upload-pack offered it by default until 2.44, whose commit turning it off (742f407e3c, "serve.c")
  // is "a patch that GitHub has been running for several years". This git (2.39) still offers it, so the
  // advertisement is filtered here, and a request for it refused above, as no newer git would serve it.
  const advertisement =
    rest === '/info/refs' &&
    /service=git-upload-pack/.test(req.url ?? '') &&
    /version=2/.test(String(req.headers['git-protocol'] ?? ''));
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    GIT_PROJECT_ROOT: dirname(repo.dir),
    GIT_HTTP_EXPORT_ALL: '1',
    PATH_INFO: `/${basename(repo.dir)}${rest}`,
    REMOTE_USER: actor,
    REMOTE_ADDR: '127.0.0.1',
    REQUEST_METHOD: req.method ?? 'GET',
    QUERY_STRING: url.search.replace(/^\?/, ''),
    CONTENT_TYPE: String(req.headers['content-type'] ?? ''),
    GIT_CONFIG_COUNT: '4',
    GIT_CONFIG_KEY_0: 'http.receivepack',
    GIT_CONFIG_VALUE_0: 'true',
    GIT_CONFIG_KEY_1: 'safe.directory',
    GIT_CONFIG_VALUE_1: '*',
    // GitHub serves partial clones (`--filter=blob:none`, `tree:0`):
    // https://github.blog/open-source/git/get-up-to-speed-with-partial-clone-and-shallow-clone/
    GIT_CONFIG_KEY_2: 'uploadpack.allowFilter',
    GIT_CONFIG_VALUE_2: 'true',
    // git 2.44 and later: no `object-info` (GitHub's, above); older gits ignore the key
    GIT_CONFIG_KEY_3: 'transfer.advertiseObjectInfo',
    GIT_CONFIG_VALUE_3: 'false',
    [ACTIVITY_ENV]: activityPath(repo.dir),
    [ACTOR_ENV]: actor,
    [NO_WORKFLOWS_ENV]: canWriteWorkflows ? '0' : '1',
    [LOCKS_ENV]: locks,
  };
  if (req.headers['content-length']) env.CONTENT_LENGTH = String(req.headers['content-length']);
  if (req.headers['content-encoding']) env.HTTP_CONTENT_ENCODING = String(req.headers['content-encoding']);
  if (req.headers['git-protocol']) env.GIT_PROTOCOL = String(req.headers['git-protocol']);
  delete env.GIT_DIR;
  delete env.GIT_INDEX_FILE;

  return new Promise((resolve) => {
    const child = spawn(HTTP_BACKEND, [], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let head = Buffer.alloc(0);
    let headersSent = false;
    const stderr: Buffer[] = [];
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    const held: Buffer[] = [];
    const write = (chunk: Buffer): void => void (advertisement ? held.push(chunk) : res.write(chunk));
    child.stdout.on('data', (chunk: Buffer) => {
      if (headersSent) {
        write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const end = findHeaderEnd(head);
      if (!end) return;
      const headers = head.subarray(0, end.index).toString('latin1').split(/\r?\n/);
      let status = 200;
      for (const line of headers) {
        const colon = line.indexOf(':');
        if (colon < 0) continue;
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10) || 200;
        else res.setHeader(name, value);
      }
      res.statusCode = status;
      headersSent = true;
      const rest = head.subarray(end.index + end.length);
      if (rest.length > 0) write(rest);
    });
    child.on('error', (error) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`git http-backend failed: ${error.message}\n`);
      resolve();
    });
    child.on('close', () => {
      if (held.length > 0) res.write(withoutObjectInfo(Buffer.concat(held)));
      if (!headersSent && !res.headersSent) {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.write(Buffer.concat(stderr));
      }
      res.end();
      resolve();
    });
    child.stdin.on('error', () => undefined);
    if (body) child.stdin.end(body);
    else req.pipe(child.stdin);
  });
}

function findHeaderEnd(buffer: Buffer): { index: number; length: number } | null {
  const crlf = buffer.indexOf('\r\n\r\n');
  const lf = buffer.indexOf('\n\n');
  if (crlf >= 0 && (lf < 0 || crlf < lf)) return { index: crlf, length: 4 };
  if (lf >= 0) return { index: lf, length: 2 };
  return null;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Whether a protocol v2 request's first pkt-line is `command=object-info` (git gzips large requests). */
function asksObjectInfo(body: Buffer, encoding: string | string[] | undefined): boolean {
  let text: Buffer = body;
  if (encoding === 'gzip') {
    try {
      text = gunzipSync(body);
    } catch {
      return false;
    }
  }
  return text.subarray(4, 23).toString('latin1') === 'command=object-info';
}

/** A v2 capability advertisement without its `object-info` line. */
function withoutObjectInfo(advertised: Buffer): Buffer {
  const line = Buffer.from('0010object-info\n', 'latin1');
  const at = advertised.indexOf(line);
  return at < 0
    ? advertised
    : Buffer.concat([advertised.subarray(0, at), advertised.subarray(at + line.length)]);
}
