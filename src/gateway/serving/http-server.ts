import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import pLimit, { type LimitFunction } from 'p-limit';
import {
  ANONYMOUS_CONNECTIONS,
  bodyBudgetFor,
  ByteBudget,
  CALLS_IN_FLIGHT,
  HEADERS_TIMEOUT_MS,
  IDLE_TIMEOUT_MS,
  PERIMETER_CONNECTIONS,
  REQUEST_TIMEOUT_MS,
  RETRY_AFTER_SECONDS,
  SMALL_BODY_BYTES,
  TIMEOUT_CHECK_MS,
} from './admission.js';
import { ConnectionPools } from './connection-pools.js';
import { bearerMatches, loopbackRequest } from './guard.js';

export interface Endpoint {
  secretDigest: Buffer;
  maxBodyBytes: number;
  handle(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void>;
}

export interface HttpGateway {
  server: Server;
  port: number;
  /** bytes of request bodies held right now, and the most they may hold */
  buffered(): { bytes: number; limit: number };
  /** connections held right now: without a perimeter's secret, and of each perimeter */
  connections(): ConnectionCounts;
  /** Stops accepting, lets running requests finish, then closes every connection. */
  close(): Promise<void>;
}

export interface ConnectionCounts {
  anonymous: number;
  perimeters: Record<string, number>;
}

const PARSE_ERROR = {
  jsonrpc: '2.0',
  error: { code: -32700, message: 'Parse error: the body is not valid JSON' },
  id: null,
};

const BUSY = {
  jsonrpc: '2.0',
  error: { code: -32000, message: 'Server busy: too many request bytes in flight; retry shortly' },
  id: null,
};

const FULL = {
  jsonrpc: '2.0',
  error: {
    code: -32000,
    message: `Server busy: this perimeter's connections are all in use; retry in ${RETRY_AFTER_SECONDS} s`,
  },
  id: null,
};

const REPEATED_ID = {
  jsonrpc: '2.0',
  error: { code: -32600, message: 'Invalid Request: a batch repeats a request id' },
  id: null,
};

/** What admission holds, shared by every request of the listener. */
interface Admission {
  endpoints: Map<string, Endpoint>;
  budget: ByteBudget;
  pools: ConnectionPools<Socket>;
  /** perimeter name -> its calls in flight */
  calls: Map<string, LimitFunction>;
}

/**
 * The listener: loopback Host, known route, bearer secret (from the headers, before any body byte is read),
 * the perimeter's connection share, bounded body, JSON, then the endpoint within its perimeter's share of
 * calls in flight.
 */
export async function listen(
  port: number,
  endpoints: Map<string, Endpoint>,
  log: (line: string) => void,
): Promise<HttpGateway> {
  let active = 0;
  let drained: (() => void) | null = null;
  const admission: Admission = {
    endpoints,
    budget: new ByteBudget(bodyBudgetFor([...endpoints.values()].map((e) => e.maxBodyBytes))),
    pools: new ConnectionPools({ anonymous: ANONYMOUS_CONNECTIONS, perPerimeter: PERIMETER_CONNECTIONS }),
    calls: new Map([...endpoints.keys()].map((name) => [name, pLimit(CALLS_IN_FLIGHT)])),
  };
  const { budget, pools } = admission;
  const serve = (req: IncomingMessage, res: ServerResponse, expectsContinue: boolean): void => {
    active++;
    res.on('close', () => {
      active--;
      if (active === 0) drained?.();
    });
    route(req, res, admission, expectsContinue).catch(() => {
      log('request failed before an answer');
      if (!res.headersSent)
        send(res, 500, { jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null });
      else res.destroy();
    });
  };
  const server = createServer(
    {
      requestTimeout: REQUEST_TIMEOUT_MS,
      headersTimeout: HEADERS_TIMEOUT_MS,
      connectionsCheckingInterval: TIMEOUT_CHECK_MS,
      keepAliveTimeout: IDLE_TIMEOUT_MS,
    },
    (req, res) => serve(req, res, false),
  );
  // With a listener here Node no longer answers `Expect: 100-continue` itself: the client is told to send
  // its body only once the request is admitted.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => serve(req, res, true));
  server.on('connection', (socket: Socket) => {
    for (const dropped of pools.open(socket)) dropped.destroy();
    socket.once('close', () => pools.close(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the gateway did not get a TCP port');
  return {
    server,
    port: address.port,
    buffered: () => ({ bytes: budget.inUse(), limit: budget.limit }),
    connections: () => ({
      anonymous: pools.size(null),
      perimeters: Object.fromEntries([...endpoints.keys()].map((name) => [name, pools.size(name)])),
    }),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        if (active === 0) server.closeAllConnections();
        else drained = () => server.closeAllConnections();
      }),
  };
}

async function route(
  req: IncomingMessage,
  res: ServerResponse,
  { endpoints, budget, pools, calls }: Admission,
  expectsContinue: boolean,
): Promise<void> {
  if (!loopbackRequest(req.headers.host, req.headers.origin)) return send(res, 403);
  const path = (req.url ?? '/').split('?')[0];
  if (path === '/healthz') {
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, undefined, { allow: 'GET' });
    return send(res, 200, { status: 'ok' });
  }
  const name = /^\/mcp\/([^/]+)$/.exec(path ?? '')?.[1];
  const endpoint = name === undefined ? undefined : endpoints.get(name);
  if (name === undefined || !endpoint) return send(res, 404);
  if (!bearerMatches(req.headers.authorization, endpoint.secretDigest)) return send(res, 401);
  if (!pools.claim(req.socket, name)) return refuse(req, res, 429, FULL);
  res.on('close', () => {
    // a closed socket leaves the pools by its own close event
    if (!req.socket.destroyed) for (const dropped of pools.release(req.socket)) dropped.destroy();
  });
  if (req.method !== 'POST') {
    const error = {
      jsonrpc: '2.0',
      error: { code: -32000, message: 'Method not allowed: this endpoint is stateless, POST only' },
      id: null,
    };
    return send(res, 405, error, { allow: 'POST' });
  }
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > endpoint.maxBodyBytes) return send(res, 413);
  // a large body's declared size is held up front, more only as it arrives; all of it until the answer is sent
  let held = 0;
  const room = (size: number): boolean => {
    if (size <= SMALL_BODY_BYTES || size <= held) return true;
    if (!budget.tryTake(size - held)) return false;
    held = size;
    return true;
  };
  res.on('close', () => budget.give(held));
  if (!room(declared)) return refuse(req, res, 503, BUSY);
  if (expectsContinue) res.writeContinue();
  const text = await readBody(req, endpoint.maxBodyBytes, room);
  if (text === 'busy') return refuse(req, res, 503, BUSY);
  if (text === null) return send(res, 413);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return send(res, 400, PARSE_ERROR);
  }
  if (repeatsRequestId(body)) return send(res, 400, REPEATED_ID);
  // a call whose client left while it waited its turn is not started: nobody waits for its answer, and its
  // body would otherwise stay held while more arrive
  await calls.get(name)!(() => (req.socket.destroyed ? undefined : endpoint.handle(req, res, body)));
}

/**
 * A batch whose requests share an id: the SDK would run them all but answer one, and call tracking
 * (one ledger record per id) would merge them, so one call could go unrecorded.
 */
function repeatsRequestId(body: unknown): boolean {
  if (!Array.isArray(body)) return false;
  const ids = body
    .filter((m): m is { id: unknown } => m !== null && typeof m === 'object' && 'method' in m && 'id' in m)
    .map((m) => m.id);
  return new Set(ids).size !== ids.length;
}

/** Refused for capacity: the status with Retry-After, and the connection closed (its body discarded, not buffered). */
function refuse(req: IncomingMessage, res: ServerResponse, status: 429 | 503, body: unknown): void {
  req.resume();
  send(res, status, body, { 'retry-after': String(RETRY_AFTER_SECONDS), connection: 'close' });
}

/**
 * The body as text; null past the limit, 'busy' when `room(size so far)` says no (the rest is then
 * discarded, not buffered).
 */
function readBody(
  req: IncomingMessage,
  limit: number,
  room: (size: number) => boolean,
): Promise<string | null | 'busy'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit || !room(size)) {
        req.off('data', onData);
        req.resume();
        resolve(size > limit ? null : 'busy');
      } else chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('end', () => resolve(size > limit ? null : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(
  res: ServerResponse,
  status: number,
  body?: unknown,
  headers: Record<string, string> = {},
): void {
  if (body === undefined) {
    res.writeHead(status, { 'content-length': '0', ...headers }).end();
    return;
  }
  const text = JSON.stringify(body);
  res
    .writeHead(status, {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(text)),
      ...headers,
    })
    .end(text);
}
