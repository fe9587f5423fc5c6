/**
 * Resource bounds of the listener, over raw sockets against the running gateway: request bodies held open
 * share one byte budget (past it: 503 at once, nothing buffered). Connection pools: admission-fairness.test.ts.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, startHarness, type Harness } from '@perimeter/test-rigs';

const CONFIG = 'version: 1\nperimeters:\n  impl:\n    read: ["**"]\n    write: ["src/**"]\n';

function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Sends headers declaring `length` bytes and the first few of them; resolves with whatever comes back first. */
function holdBody(socket: Socket, secret: string, length: number): Promise<string> {
  const answer = new Promise<string>((resolve) => {
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      if (text.includes('\r\n\r\n')) resolve(text);
    });
    socket.on('close', () => resolve(text));
  });
  socket.write(
    `POST /mcp/impl HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${secret}\r\n` +
      `Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n` +
      `Content-Length: ${length}\r\n\r\n{"jsonrpc":"2.0",`,
  );
  return answer;
}

describe('the listener under held-open bodies', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ files: { 'src/a.ts': 'a\n' }, config: CONFIG });
  });
  afterAll(async () => h.close());

  it('holds at most its byte budget, answers 503 past it, and serves again once they go', async () => {
    const { limit } = h.gateway.buffered();
    const length = Math.floor(limit / 2) - 1; // just under the body limit (a push of 10 MiB, base64)
    const held = [await open(h.gateway.port), await open(h.gateway.port)];
    const pending = held.map((socket) => holdBody(socket, h.secrets.impl!, length));
    // wait until both are counted (their headers parsed), without any timing
    for (let i = 0; h.gateway.buffered().bytes < 2 * length && i < 1000; i++)
      await ok(await h.connect('impl'), 'get_tree');
    expect(h.gateway.buffered().bytes).toBe(2 * length);

    const refused: string[] = [];
    for (let i = 0; i < 38; i++) {
      const socket = await open(h.gateway.port);
      refused.push(await holdBody(socket, h.secrets.impl!, length));
      socket.destroy();
    }
    expect(refused.every((answer) => answer.startsWith('HTTP/1.1 503'))).toBe(true);
    expect(refused[0]).toMatch(/retry-after: 1/i);
    expect(h.gateway.buffered().bytes).toBe(2 * length);
    // ordinary calls (small bodies) do not draw on the budget: still served meanwhile
    expect(
      (await ok<{ content: string }>(await h.connect('impl'), 'get_file', { path: 'src/a.ts' })).content,
    ).toBe('a\n');
    console.log(
      `held bodies: ${(h.gateway.buffered().bytes / 2 ** 20).toFixed(1)} MiB of a ${(limit / 2 ** 20).toFixed(1)} MiB budget; 38 more answered 503`,
    );

    for (const socket of held) socket.destroy();
    await Promise.all(pending);
    const client = await h.connect('impl');
    for (let i = 0; h.gateway.buffered().bytes > 0 && i < 1000; i++) await ok(client, 'get_tree');
    expect(h.gateway.buffered().bytes).toBe(0);
    expect((await ok<{ content: string }>(client, 'get_file', { path: 'src/a.ts' })).content).toBe('a\n');
  });
});
