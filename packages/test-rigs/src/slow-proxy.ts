/**
 * A pass-through HTTP proxy in front of the stand-in that can hold a request or its answer back until the
 * client gives up: the ambiguous writes. A held answer is a change that landed although the client's
 * timeout fired; a held request is one GitHub took up only after the client had given up on it.
 */
import { createServer, request, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SlowProxy {
  url: string;
  /** The next `count` requests whose 'METHOD /path' matches `route` take effect; their answers never come. */
  holdAnswers(route: RegExp, count?: number): void;
  /** The next `count` matching requests reach the stand-in only once their client has given up. */
  holdRequests(route: RegExp, count?: number): void;
  /** Forget the holds not used yet. */
  clearHolds(): void;
  /** Requests held, or whose answer was held, by 'METHOD /path'. */
  held: string[];
  /** Calls `listener` with 'METHOD /path' whenever a request or its answer starts being held. */
  onHold(listener: (request: string) => void): void;
  stop(): Promise<void>;
}

type Hold = { what: 'answer' | 'request'; route: RegExp; remaining: number };

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startSlowProxy(target: string): Promise<SlowProxy> {
  const { hostname, port } = new URL(target);
  const holds: Hold[] = [];
  const held: string[] = [];
  const listeners: Array<(request: string) => void> = [];
  const holding = (line: string): void => {
    held.push(line);
    for (const listener of listeners) listener(line);
  };
  /** Sends the request on; the stand-in's answer, status and headers and body, or 502 when it is out of reach. */
  const forward = (req: IncomingMessage, body: Buffer) =>
    new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((resolve) => {
      const headers: IncomingHttpHeaders = { ...req.headers, host: `${hostname}:${port}` };
      const sent = request({ hostname, port, method: req.method, path: req.url, headers }, (answer) => {
        bodyOf(answer).then(
          (data) => resolve({ status: answer.statusCode ?? 502, headers: answer.headers, body: data }),
          () => resolve({ status: 502, headers: {}, body: Buffer.alloc(0) }),
        );
      });
      sent.on('error', () => resolve({ status: 502, headers: {}, body: Buffer.alloc(0) }));
      sent.end(body);
    });
  const server = createServer((req, res) => {
    const line = `${req.method} ${req.url}`;
    const hold = holds.find((h) => h.remaining > 0 && h.route.test(line));
    if (hold) hold.remaining -= 1;
    void (async () => {
      const body = await bodyOf(req);
      if (hold?.what === 'request') {
        res.once('close', () => void forward(req, body));
        return holding(line);
      }
      const answer = await forward(req, body);
      if (hold?.what === 'answer') return holding(line);
      if (!res.destroyed) res.writeHead(answer.status, answer.headers).end(answer.body);
    })().catch(() => {
      if (!res.headersSent) res.writeHead(502).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    holdAnswers(route, count = 1) {
      holds.push({ what: 'answer', route, remaining: count });
    },
    holdRequests(route, count = 1) {
      holds.push({ what: 'request', route, remaining: count });
    },
    clearHolds() {
      holds.splice(0);
    },
    held,
    onHold(listener) {
      listeners.push(listener);
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
