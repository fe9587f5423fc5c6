import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  GatewayStartError,
  isGatewayRunning,
  launchGateway,
  logTail,
  stopGateway,
} from '../../src/action/agent-job/gateway-process.js';
import type { ChildConfig } from '../../src/gateway/child.js';

// Stand-ins for dist/gateway/index.js: real child processes with the launch protocol's observable behaviour.
const SCRIPTS = {
  // echoes its config (token included) to its log, then dies
  crashes: `let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{console.error('config:',s);process.exit(3)});`,
  // reports its environment, writes the ready file atomically, serves until SIGTERM
  ready: `const fs=require('fs');let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const c=JSON.parse(s);
    console.log('env:'+Object.keys(process.env).join(','));
    fs.writeFileSync(c.readyFile+'.tmp',JSON.stringify({port:4321,pid:process.pid}));fs.renameSync(c.readyFile+'.tmp',c.readyFile);
    setInterval(()=>{},1000);process.on('SIGTERM',()=>process.exit(0));});`,
  // never gets ready and ignores SIGTERM
  stubborn: `process.on('SIGTERM',()=>{});require('fs').writeFileSync(__filename+'.armed','');process.stdin.resume();setInterval(()=>{},1000);`,
};

function setup(kind: keyof typeof SCRIPTS) {
  const dir = mkdtempSync(join(tmpdir(), 'perimeter-launch-'));
  const script = join(dir, 'gateway.cjs');
  writeFileSync(script, SCRIPTS[kind]);
  const config: ChildConfig = {
    token: 'ghs_secrettoken42',
    apiUrl: 'http://127.0.0.1:9',
    owner: 'o',
    repo: 'r',
    branch: 'b',
    defaultBranch: 'main',
    configText: '',
    configFile: 'perimeters.yml',
    perimeters: ['p'],
    secrets: { p: 'endpoint-secret' },
    port: 0,
    ledgerPath: join(dir, 'ledger'),
    ledgerKey: 'k'.repeat(20),
    readyFile: join(dir, 'ready.json'),
  };
  return { script, config, logPath: join(dir, 'gateway.log') };
}

describe('launchGateway', () => {
  describe('when the gateway gets ready', () => {
    it('returns its pid and port, and hands it no credential through the environment', async () => {
      const s = setup('ready');
      process.env['INPUT_GITHUB-TOKEN'] = 'ghs_secrettoken42';
      try {
        const { pid, port } = await launchGateway({ ...s, timeoutMs: 120_000, secrets: [] });
        expect(port).toBe(4321);
        expect(isGatewayRunning(pid)).toBe(true);
        expect(await stopGateway(pid, 60_000)).toBe('stopped');
        expect(isGatewayRunning(pid)).toBe(false);
        expect(readFileSync(s.logPath, 'utf8')).not.toContain('INPUT_');
      } finally {
        delete process.env['INPUT_GITHUB-TOKEN'];
      }
    });
  });

  describe('when the gateway dies before it is ready', () => {
    it('throws with the log tail, secrets scrubbed', async () => {
      const s = setup('crashes');
      const error = await launchGateway({
        ...s,
        timeoutMs: 120_000,
        secrets: ['ghs_secrettoken42', 'endpoint-secret'],
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(GatewayStartError);
      const message = (error as Error).message;
      expect(message).toContain('the gateway stopped before it was ready (exit code 3)');
      expect(message).toContain('"token":"***"');
      expect(message).not.toContain('ghs_secrettoken42');
      expect(message).not.toContain('endpoint-secret');
    });
  });

  describe('when the gateway never gets ready', () => {
    it('kills it and throws', async () => {
      const s = setup('stubborn');
      const error = await launchGateway({ ...s, timeoutMs: 300, secrets: [] }).catch((e: unknown) => e);
      expect((error as Error).message).toContain('the gateway was not ready within 0.3 s; its log is empty');
    });
  });
});

describe('stopGateway', () => {
  describe('when the process ignores SIGTERM', () => {
    it('kills it', async () => {
      const s = setup('stubborn');
      const { spawn } = await import('node:child_process');
      const child = spawn(process.execPath, [s.script], { stdio: 'ignore' });
      await new Promise((r) => child.once('spawn', r));
      while (!existsSync(`${s.script}.armed`)) await new Promise((r) => setTimeout(r, 20));
      expect(await stopGateway(child.pid ?? 0, 300)).toBe('killed');
    });
  });
  describe('when nothing runs under the pid', () => {
    it('says so', async () => {
      expect(await stopGateway(2 ** 22 + 7, 100)).toBe('not-running');
    });
  });
});

describe('logTail', () => {
  // not a provider format, with characters URL-encoding changes: only the scrubber can hide it
  const token = 'run/token+with=odd&chars-0123';
  const b64 = (text: string): string => Buffer.from(text).toString('base64');
  const written = {
    raw: token,
    'URL-encoded': encodeURIComponent(token),
    'URL-encoded, lower-case escapes': encodeURIComponent(token).replace(/%[0-9A-F]{2}/g, (e) =>
      e.toLowerCase(),
    ),
    hex: Buffer.from(token).toString('hex'),
    'base64 of a basic credential': b64(`x-access-token:${token}`),
    'base64url, shifted': Buffer.from(`ab${token}`).toString('base64url'),
  };

  it.each(Object.entries(written))('scrubs the %s form of a secret', (_form, text) => {
    const dir = mkdtempSync(join(tmpdir(), 'perimeter-tail-'));
    const log = join(dir, 'gateway.log');
    writeFileSync(log, `started\nupstream said: <${text}>\nstopped\n`);
    const tail = logTail(log, [token]);
    expect(tail).toBe('started\nupstream said: <***>\nstopped');
  });
});
