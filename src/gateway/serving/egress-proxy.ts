import { appendFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect, isIP } from 'node:net';

/**
 * The agent's way out (`isolation: user`): the agent's user reaches the gateway and this proxy only (main's packet filter), and
 * this proxy, in the gateway's process and so out of the agent's reach, lets through the hosts the workflow
 * names (input `agent-egress`). HTTPS only, as `CONNECT host:443`; the host is matched as the client names it,
 * so the proxy resolves it, never the agent. Every host asked for, reached or refused, is a line of the egress
 * record (JSONL in the gateway's directory, handed to post with the ledger), which post sums up in the receipt.
 */
export interface EgressDecision {
  host: string;
  port: number;
  allowed: boolean;
  time: string;
}

/** The record's file name in the gateway's directory. */
export const EGRESS_RECORD = 'egress.jsonl';

/**
 * Whether `host:port` is allowed: a pattern is `api.anthropic.com` (that name, port 443), `*.githubcopilot.com`
 * (any name below it, port 443), or either with `:port` for another port.
 */
export function hostAllowed(allow: readonly string[], host: string, port: number): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return allow.some((entry) => {
    const at = /^(.*?)(?::(\d+))?$/.exec(entry.toLowerCase()) as RegExpExecArray;
    const pattern = at[1] as string;
    if (port !== (at[2] === undefined ? 443 : Number(at[2]))) return false;
    return pattern.startsWith('*.') ? name.endsWith(pattern.slice(1)) : name === pattern;
  });
}

/** `host:port` from a CONNECT request's target; null when it is no such thing. */
export function connectTarget(target: string): { host: string; port: number } | null {
  const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(target);
  if (!match) return null;
  const host = (match[1] as string).replace(/^\[|\]$/g, '');
  const port = Number(match[2]);
  if (
    port < 1 ||
    port > 65_535 ||
    (isIP(host) === 0 &&
      !/^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*\.?$/.test(host))
  )
    return null;
  return { host, port };
}

/** At most this many decisions are recorded one by one; the rest only counted, so the record stays small. */
const MAX_RECORDED = 10_000;

export function startEgressProxy(options: {
  allow: readonly string[];
  /** the egress record's path */
  recordPath: string;
}): Promise<{ port: number; server: Server }> {
  let recorded = 0;
  const record = (host: string, port: number, allowed: boolean): void => {
    if (++recorded > MAX_RECORDED) return;
    const line: EgressDecision = { host, port, allowed, time: new Date().toISOString() };
    appendFileSync(options.recordPath, `${JSON.stringify(line)}\n`, { mode: 0o600 });
  };
  const server = createServer((req, res) => {
    // plain HTTP is not carried (a proxy that forwards requests would see and could leak their headers)
    let host = '';
    try {
      host = new URL(req.url ?? '').hostname;
    } catch {
      // not a proxy request at all
    }
    if (host !== '') record(host, 80, false);
    res.writeHead(403, { 'content-type': 'text/plain' }).end('perimeter egress: HTTPS (CONNECT) only\n');
  });
  server.on('connect', (req, socket, head) => {
    socket.on('error', () => undefined);
    const target = connectTarget(req.url ?? '');
    if (target === null) {
      socket.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      return;
    }
    const allowed = hostAllowed(options.allow, target.host, target.port);
    record(target.host, target.port, allowed);
    if (!allowed) {
      socket.end(
        `HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\n\r\nperimeter egress: ${target.host}:${target.port} is not in agent-egress\n`,
      );
      return;
    }
    const upstream = connect(target.port, target.host, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => socket.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'));
    socket.on('close', () => upstream.destroy());
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve({ port: typeof address === 'object' && address ? address.port : 0, server });
    });
  });
}
