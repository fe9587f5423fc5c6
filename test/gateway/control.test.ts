/** The control endpoint post stops an isolated gateway with (src/gateway/control.ts). */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startControl, type HandOver } from '../../src/gateway/control.js';

const SECRET = 'c'.repeat(43);

describe('startControl', () => {
  let dir: string;
  let server: Server;
  let port: number;
  const calls: string[] = [];

  beforeEach(async () => {
    calls.length = 0;
    dir = mkdtempSync(join(tmpdir(), 'perimeter-control-'));
    writeFileSync(join(dir, 'ledger.jsonl'), '{"seq":1}\n');
    writeFileSync(join(dir, 'gateway.log'), 'serving\n');
    mkdirSync(join(dir, 'blobs'));
    ({ server, port } = await startControl({
      secret: SECRET,
      dir,
      stop: async () => void calls.push('stop'),
      exit: () => void calls.push('exit'),
    }));
  });

  afterEach(() => {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const stop = (authorization: string, path = '/stop'): Promise<Response> =>
    fetch(`http://127.0.0.1:${port}${path}`, { method: 'POST', headers: { authorization } });

  describe('when the secret is wrong', () => {
    it('answers 401 and neither stops nor hands anything over', async () => {
      for (const authorization of [`Bearer ${SECRET.slice(1)}x`, `Bearer ${SECRET}x`, SECRET, '']) {
        const response = await stop(authorization);
        expect(response.status).toBe(401);
        expect(await response.text()).toBe('');
      }
      expect(calls).toEqual([]);
    });
  });

  describe('when the secret is right', () => {
    it('stops the gateway, answers with every file of its directory, then exits', async () => {
      const response = await stop(`Bearer ${SECRET}`);
      expect(response.status).toBe(200);
      const { files } = (await response.json()) as HandOver;
      expect(Object.keys(files).sort()).toEqual(['gateway.log', 'ledger.jsonl']);
      expect(Buffer.from(files['ledger.jsonl'] as string, 'base64').toString()).toBe('{"seq":1}\n');
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(calls).toEqual(['stop', 'exit']);
    });

    it('serves nothing but POST /stop, and stops once', async () => {
      expect((await stop(`Bearer ${SECRET}`, '/files')).status).toBe(404);
      expect((await stop(`Bearer ${SECRET}`)).status).toBe(200);
      expect((await stop(`Bearer ${SECRET}`)).status).toBe(404);
      expect(calls.filter((c) => c === 'stop')).toEqual(['stop']);
    });
  });
});
