import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectTarget,
  hostAllowed,
  startEgressProxy,
  type EgressDecision,
} from '../../src/gateway/serving/egress-proxy.js';

describe('hostAllowed', () => {
  const allow = ['api.anthropic.com', '*.githubcopilot.com', '127.0.0.1:8443'];
  it('allows a named host on 443, any name below a *.domain, and host:port on its port only', () => {
    expect(hostAllowed(allow, 'API.Anthropic.com.', 443)).toBe(true);
    expect(hostAllowed(allow, 'api.individual.githubcopilot.com', 443)).toBe(true);
    expect(hostAllowed(allow, '127.0.0.1', 8443)).toBe(true);
  });
  it('refuses another port, a look-alike, the bare domain of a *.domain, and anything unlisted', () => {
    expect(hostAllowed(allow, 'api.anthropic.com', 80)).toBe(false);
    expect(hostAllowed(allow, 'api.anthropic.com.evil.test', 443)).toBe(false);
    expect(hostAllowed(allow, 'evilgithubcopilot.com', 443)).toBe(false);
    expect(hostAllowed(allow, 'githubcopilot.com', 443)).toBe(false);
    expect(hostAllowed(allow, '127.0.0.1', 443)).toBe(false);
  });
});

describe('connectTarget', () => {
  it('reads host:port and [v6]:port, and nothing else', () => {
    expect(connectTarget('example.com:443')).toEqual({ host: 'example.com', port: 443 });
    expect(connectTarget('[::1]:8443')).toEqual({ host: '::1', port: 8443 });
    for (const bad of [
      'example.com',
      'a b:443',
      'example.com:0',
      'example.com:99999',
      'user@host:443',
      '-x.test:443',
    ])
      expect(connectTarget(bad)).toBeNull();
  });
});

describe('startEgressProxy', () => {
  let dir: string;
  let target: Server;
  let targetPort = 0;
  let proxyPort = 0;
  let close: () => void;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'perimeter-egress-'));
    target = createServer((socket) => socket.end('hello'));
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    targetPort = (target.address() as { port: number }).port;
    const proxy = await startEgressProxy({
      allow: [`127.0.0.1:${targetPort}`],
      recordPath: join(dir, 'egress.jsonl'),
    });
    proxyPort = proxy.port;
    close = () => proxy.server.close();
  });
  afterAll(() => {
    close();
    target.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const connectThrough = (path: string): Promise<{ status: number; body: string }> =>
    new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: proxyPort, method: 'CONNECT', path });
      req.on('connect', (res, socket, head: Buffer) => {
        let body = head.toString();
        socket.on('data', (chunk: Buffer) => (body += chunk.toString()));
        socket.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });

  it('tunnels to an allowed host and records it reached', async () => {
    expect(await connectThrough(`127.0.0.1:${targetPort}`)).toEqual({ status: 200, body: 'hello' });
  });

  it('refuses any other host with 403 and records it refused', async () => {
    expect((await connectThrough('exfiltrate.example.com:443')).status).toBe(403);
    const record = readFileSync(join(dir, 'egress.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as EgressDecision)
      .map(({ host, port, allowed }) => ({ host, port, allowed }));
    expect(record).toEqual([
      { host: '127.0.0.1', port: targetPort, allowed: true },
      { host: 'exfiltrate.example.com', port: 443, allowed: false },
    ]);
  });
});
