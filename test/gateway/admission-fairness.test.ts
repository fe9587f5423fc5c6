/**
 * Fair admission, over raw sockets and real MCP clients against the running gateway: connections without a
 * secret cannot take the gateway from the agents, one perimeter's secret holder cannot take another's
 * share, and a call refused for capacity is told when to retry.
 */
import { connect, type Socket } from 'node:net';
import { setImmediate as tick } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { secretDigest } from '../../src/gateway/serving/guard.js';
import { listen, type Endpoint } from '../../src/gateway/serving/http-server.js';
import {
  ANONYMOUS_CONNECTIONS,
  CALLS_IN_FLIGHT,
  PERIMETER_CONNECTIONS,
  RETRY_AFTER_SECONDS,
} from '../../src/gateway/serving/admission.js';
import { ok, startHarness, type Harness } from '@perimeter/test-rigs';

const NAMES = ['alpha', 'beta', 'gamma'] as const;
const CONFIG = `version: 1\nperimeters:\n${NAMES.map((n) => `  ${n}:\n    read: ["**"]\n    write: ["src/**"]\n`).join('')}`;
const CALLS_PER_PERIMETER = 10;

interface Held {
  socket: Socket;
  /** everything the gateway sent, once it closed the connection */
  closed: Promise<string>;
}

function open(port: number): Promise<Held> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString('latin1')));
      const closed = new Promise<string>((done) => socket.on('close', () => done(text)));
      resolve({ socket, closed });
    });
    socket.once('error', reject);
    socket.on('error', () => undefined);
  });
}

/** A request line and the start of the headers, and no more: a connection without any secret. */
function dribbleHeaders(held: Held): void {
  held.socket.write('POST /mcp/alpha HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: a');
}

/** Whole headers with the perimeter's secret, then a few bytes of a body that never ends. */
function holdBody(held: Held, perimeter: string, secret: string): void {
  held.socket.write(
    `POST /mcp/${perimeter} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${secret}\r\n` +
      `Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n` +
      `Content-Length: 1000\r\n\r\n{"jsonrpc":"2.0",`,
  );
}

/** Until the gateway counts what the test opened; the bound is only a safety net, never a timing. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; !done() && i < 100_000; i++) await tick();
  expect(done()).toBe(true);
}

describe('admission', () => {
  let h: Harness;
  let held: Held[] = [];
  beforeAll(async () => {
    h = await startHarness({ files: { 'src/a.ts': 'a\n' }, config: CONFIG });
  });
  afterEach(async () => {
    for (const { socket } of held) socket.destroy();
    await Promise.all(held.map((c) => c.closed));
    held = [];
    await until(() => Object.values(h.gateway.connections().perimeters).every((n) => n === 0));
  });
  afterAll(async () => h.close());

  describe('when 100 connections without a secret dribble headers and 50 hold bodies of one perimeter', () => {
    it('still serves calls of every perimeter, those of the holders’ perimeter included', async () => {
      const dribblers = await Promise.all(Array.from({ length: 100 }, () => open(h.gateway.port)));
      const holders = await Promise.all(Array.from({ length: 50 }, () => open(h.gateway.port)));
      held = [...dribblers, ...holders];
      dribblers.forEach(dribbleHeaders);
      holders.forEach((c) => holdBody(c, 'alpha', h.secrets.alpha!));
      await until(() => {
        const counts = h.gateway.connections();
        return counts.anonymous === 100 && counts.perimeters.alpha === 50;
      });

      const answers = await Promise.all(
        NAMES.flatMap((name) =>
          Array.from({ length: CALLS_PER_PERIMETER }, async () => {
            const client = await h.connect(name);
            const answer = await ok<{ content: string }>(client, 'get_file', { path: 'src/a.ts' });
            await client.close();
            return `${name}:${answer.content}`;
          }),
        ),
      );

      expect(answers.sort()).toEqual(NAMES.flatMap((n) => Array(CALLS_PER_PERIMETER).fill(`${n}:a\n`)));
      // the bodies were held all along, not cut to make room
      expect(h.gateway.connections().perimeters.alpha).toBe(50);
      expect(await Promise.race([...holders.map((c) => c.closed), tick('open')])).toBe('open');
    });
  });

  describe(`when more than ${ANONYMOUS_CONNECTIONS} connections show no secret`, () => {
    it('drops the oldest of them and serves the newest', async () => {
      held = await Promise.all(
        Array.from({ length: ANONYMOUS_CONNECTIONS + 10 }, () => open(h.gateway.port)),
      );
      held.forEach(dribbleHeaders);
      const dropped = await Promise.all(held.slice(0, 10).map((c) => c.closed));
      expect(dropped).toEqual(Array(10).fill(''));
      expect(h.gateway.connections().anonymous).toBe(ANONYMOUS_CONNECTIONS);
      expect(
        (await ok<{ content: string }>(await h.connect('beta'), 'get_file', { path: 'src/a.ts' })).content,
      ).toBe('a\n');
    });
  });

  describe(`when ${PERIMETER_CONNECTIONS} connections of one perimeter are all busy`, () => {
    it('answers 429 with Retry-After to that perimeter and serves the others', async () => {
      held = await Promise.all(Array.from({ length: PERIMETER_CONNECTIONS }, () => open(h.gateway.port)));
      held.forEach((c) => holdBody(c, 'beta', h.secrets.beta!));
      await until(() => h.gateway.connections().perimeters.beta === PERIMETER_CONNECTIONS);

      const refused = await fetch(`${h.gateway.url}/mcp/beta`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${h.secrets.beta}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe(String(RETRY_AFTER_SECONDS));
      expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(
        /retry in 1 s/,
      );
      expect(
        (await ok<{ content: string }>(await h.connect('gamma'), 'get_file', { path: 'src/a.ts' })).content,
      ).toBe('a\n');

      for (const c of held.slice(0, 1)) c.socket.destroy();
      await until(() => h.gateway.connections().perimeters.beta! < PERIMETER_CONNECTIONS);
      expect(
        (await ok<{ content: string }>(await h.connect('beta'), 'get_file', { path: 'src/a.ts' })).content,
      ).toBe('a\n');
    });
  });

  describe('when a call says Expect: 100-continue', () => {
    it('is told to continue only once its secret is checked', async () => {
      const [anonymous, holder] = [await open(h.gateway.port), await open(h.gateway.port)];
      held = [anonymous, holder];
      const head = (secret: string): string =>
        `POST /mcp/gamma HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${secret}\r\n` +
        `Content-Type: application/json\r\nContent-Length: 10\r\nExpect: 100-continue\r\n\r\n`;
      const first = (c: Held): Promise<string> =>
        new Promise((resolve) => c.socket.once('data', (chunk) => resolve(chunk.toString('latin1'))));
      const wrong = first(anonymous);
      anonymous.socket.write(head('x'.repeat(43)));
      expect(await wrong).toMatch(/^HTTP\/1.1 401/);
      const right = first(holder);
      holder.socket.write(head(h.secrets.gamma!));
      expect(await right).toMatch(/^HTTP\/1.1 100 Continue/);
    });
  });
});

describe('calls in flight', () => {
  describe(`when one perimeter has more than ${CALLS_IN_FLIGHT} calls at once`, () => {
    it(`answers ${CALLS_IN_FLIGHT} of them at a time and another perimeter's call meanwhile`, async () => {
      const secret = (name: string): string => `${name}-`.repeat(16);
      const inFlight = { alpha: 0, beta: 0 };
      let most = 0;
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const endpoint = (name: 'alpha' | 'beta'): Endpoint => ({
        secretDigest: secretDigest(secret(name)),
        maxBodyBytes: 1024,
        async handle(_req, res) {
          inFlight[name]++;
          most = Math.max(most, inFlight.alpha);
          if (name === 'alpha') await released;
          inFlight[name]--;
          res.writeHead(200, { 'content-length': '2' }).end('ok');
        },
      });
      const gateway = await listen(
        0,
        new Map([
          ['alpha', endpoint('alpha')],
          ['beta', endpoint('beta')],
        ]),
        () => undefined,
      );
      const post = (name: string): Promise<number> =>
        fetch(`http://127.0.0.1:${gateway.port}/mcp/${name}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${secret(name)}`, 'content-type': 'application/json' },
          body: '{}',
        }).then((r) => r.status);
      try {
        const alpha = Array.from({ length: CALLS_IN_FLIGHT + 4 }, () => post('alpha'));
        await until(
          () =>
            gateway.connections().perimeters.alpha === CALLS_IN_FLIGHT + 4 &&
            inFlight.alpha === CALLS_IN_FLIGHT,
        );
        expect(await post('beta')).toBe(200);
        expect(most).toBe(CALLS_IN_FLIGHT);
        release();
        expect(await Promise.all(alpha)).toEqual(Array(CALLS_IN_FLIGHT + 4).fill(200));
        expect(most).toBe(CALLS_IN_FLIGHT);
      } finally {
        release();
        await gateway.close();
      }
    });
  });
});
