/**
 * A pass-through HTTP proxy in front of the stand-in that can hold answers back: the request reaches the
 * stand-in whole and takes effect there, but its answer comes late. That is the ambiguous write: the
 * client's timeout fires, yet the change landed.
 */
import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SlowProxy {
  url: string;
  /** Hold the answers of the next `count` requests whose 'METHOD /path' matches `route` for `ms`. */
  holdAnswers(route: RegExp, ms: number, count?: number): void;
  /** Forget the holds not used yet. */
  clearHolds(): void;
  /** Requests whose answer was held and which reached the stand-in, by 'METHOD /path'. */
  held: string[];
  stop(): Promise<void>;
}

export async function startSlowProxy(target: string): Promise<SlowProxy> {
  const { hostname, port } = new URL(target);
  const holds: Array<{ route: RegExp; ms: number; remaining: number }> = [];
  const held: string[] = [];
  const server = createServer((req, res) => {
    const line = `${req.method} ${req.url}`;
    const hold = holds.find((h) => h.remaining > 0 && h.route.test(line));
    if (hold) hold.remaining -= 1;
    const headers: IncomingHttpHeaders = { ...req.headers, host: `${hostname}:${port}` };
    const forward = request({ hostname, port, method: req.method, path: req.url, headers }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (c: Buffer) => chunks.push(c));
      answer.on('end', () => {
        if (hold) held.push(line);
        setTimeout(() => {
          if (res.destroyed) return;
          res.writeHead(answer.statusCode ?? 502, answer.headers).end(Buffer.concat(chunks));
        }, hold?.ms ?? 0);
      });
    });
    forward.on('error', () => {
      if (!res.headersSent) res.writeHead(502).end();
    });
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    holdAnswers(route, ms, count = 1) {
      holds.push({ route, ms, remaining: count });
    },
    clearHolds() {
      holds.splice(0);
    },
    held,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
