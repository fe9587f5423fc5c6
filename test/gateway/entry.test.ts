import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLedgerFacts } from '../../src/verify/index.js';
import type { ChildConfig } from '../../src/gateway/child.js';
import { secretForms } from '../../src/safety/secret-forms.js';
import { seedRepo, startFakeGithub, type FakeGithub } from '@perimeter/fake-github';
import { fakeToken, ok } from '@perimeter/test-rigs';

const ENTRY = resolve(import.meta.dirname, '../../src/gateway/entry.ts');
const CONFIG_TEXT = `version: 1
perimeters:
  implementer:
    read: ["src/**"]
    write: ["src/**"]
    branches: ["main"]
`;

function startChild(input: string): {
  child: ChildProcess;
  exited: Promise<{ code: number | null; log: string }>;
} {
  const child = spawn(process.execPath, ['--import', 'tsx', ENTRY], { stdio: ['pipe', 'pipe', 'pipe'] });
  const log: Buffer[] = [];
  child.stdout!.on('data', (c: Buffer) => log.push(c));
  child.stderr!.on('data', (c: Buffer) => log.push(c));
  child.stdin!.end(input);
  const exited = new Promise<{ code: number | null; log: string }>((done) =>
    child.on('close', (code) => done({ code, log: Buffer.concat(log).toString('utf8') })),
  );
  return { child, exited };
}

async function waitForFile(path: string, exited: Promise<unknown>): Promise<boolean> {
  let done = false;
  void exited.then(() => (done = true));
  while (!existsSync(path)) {
    if (done) return false;
    await sleep(25);
  }
  return true;
}

describe('the gateway process entry', () => {
  let dir: string;
  let fake: FakeGithub;
  const token = fakeToken();
  let config: ChildConfig;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'perimeter-entry-'));
    await seedRepo(join(dir, 'repo.git'), { 'src/a.ts': 'a\n', 'secret.txt': 's\n' });
    fake = await startFakeGithub({ repos: { 'octo/entry': join(dir, 'repo.git') }, token });
    config = {
      token,
      apiUrl: fake.url,
      owner: 'octo',
      repo: 'entry',
      branch: 'main',
      defaultBranch: 'main',
      configText: CONFIG_TEXT,
      configFile: 'perimeters.yml',
      perimeters: ['implementer'],
      secrets: { implementer: randomBytes(24).toString('hex') },
      port: 0,
      ledgerPath: join(dir, 'ledger.jsonl'),
      ledgerKey: randomBytes(32).toString('hex'),
      readyFile: join(dir, 'ready.json'),
    };
  });
  afterAll(async () => {
    await fake.stop();
    await rm(dir, { recursive: true, force: true });
  });

  describe('when given a valid configuration on stdin', () => {
    it('serves, writes { port, pid } to the ready file, and stops cleanly on SIGTERM', async () => {
      const { child, exited } = startChild(JSON.stringify(config));
      expect(await waitForFile(config.readyFile, exited)).toBe(true);
      const ready = JSON.parse(await readFile(config.readyFile, 'utf8')) as { port: number; pid: number };
      expect(ready.pid).toBe(child.pid);

      const client = new Client({ name: 'entry-test', version: '1' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${ready.port}/mcp/implementer`), {
          requestInit: { headers: { Authorization: `Bearer ${config.secrets.implementer}` } },
        }),
      );
      const pushed = await ok<{ commit: string }>(client, 'push_files', {
        message: 'from the child',
        files: [{ path: 'src/b.ts', content: 'b\n' }],
      });
      await client.close();

      child.kill('SIGTERM');
      const { code, log } = await exited;
      expect(code).toBe(0);
      const facts = await readLedgerFacts(config.ledgerPath, config.ledgerKey);
      expect(facts).toMatchObject({ ok: true, commits: [pushed.commit] });
      expect(log).toMatch(/serving octo\/entry@main/);
      for (const form of [...secretForms([token]), config.ledgerKey, config.secrets.implementer!])
        expect(log).not.toContain(form);
    });
  });

  describe('when the configuration is wrong', () => {
    const fails = async (input: string, expected: RegExp): Promise<string> => {
      const readyFile = join(dir, `never-${randomBytes(4).toString('hex')}.json`);
      const { exited } = startChild(input.replace(config.readyFile, readyFile));
      const { code, log } = await exited;
      expect(code).toBe(1);
      expect(existsSync(readyFile)).toBe(false);
      expect(log).toMatch(expected);
      expect(log).not.toContain(token);
      return log;
    };

    it('exits 1 without a ready file, saying why, and never echoing the token', async () => {
      await fails('not json', /not one JSON document/);
      await fails(JSON.stringify({ ...config, port: 'eighty' }), /port/);
      await fails(
        JSON.stringify({ ...config, perimeters: ['nobody'] }),
        /no perimeter named "nobody" in perimeters.yml; it defines "implementer"/,
      );
      await fails(JSON.stringify({ ...config, extra: token }), /Unrecognized key/);
    });
  });
});
