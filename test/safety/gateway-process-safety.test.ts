/**
 * The gateway process as the action starts it (configuration on stdin): its answers hide the run's
 * own secrets, the token, the endpoint secrets and the ledger key, even in shapes no provider uses.
 */
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
import type { ChildConfig } from '../../src/gateway/child.js';
import { seedRepo, startFakeGithub, type FakeGithub } from '@perimeter/fake-github';
import { actionDir, answerOf, call, textOf } from '@perimeter/test-rigs';

const ROOT = resolve(import.meta.dirname, '../..');
const STARTS = [
  { as: 'from source', args: async () => ['--import', 'tsx', join(ROOT, 'src/gateway/entry.ts')] },
  // the committed bundle when fresh, else one built from the current sources
  { as: 'bundled', args: async () => [join(await actionDir(), 'dist/gateway/index.js')] },
];
const CONFIG_TEXT =
  'version: 1\nperimeters:\n  reader:\n    read: ["**"]\n    write: ["src/**"]\n    branches: ["main"]\n';

describe.each(STARTS)('the gateway process, $as', ({ args }) => {
  // none of these has a provider's format: only the process's own extraSecrets can hide them
  const token = `run-${randomBytes(20).toString('hex')}`;
  const endpointSecret = randomBytes(24).toString('hex');
  const ledgerKey = randomBytes(32).toString('hex');
  let dir: string;
  let fake: FakeGithub;
  let child: ChildProcess;
  let client: Client;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'perimeter-safety-child-'));
    const leak = `token ${token}\nbasic ${Buffer.from(`x-access-token:${token}`).toString('base64')}\nendpoint ${endpointSecret}\nledger ${ledgerKey}\n`;
    await seedRepo(join(dir, 'repo.git'), { 'src/leak.txt': leak });
    fake = await startFakeGithub({ repos: { 'octo/child': join(dir, 'repo.git') }, token });
    const config: ChildConfig = {
      token,
      apiUrl: fake.url,
      owner: 'octo',
      repo: 'child',
      branch: 'main',
      defaultBranch: 'main',
      configText: CONFIG_TEXT,
      configFile: 'perimeters.yml',
      perimeters: ['reader'],
      secrets: { reader: endpointSecret },
      port: 0,
      ledgerPath: join(dir, 'ledger.jsonl'),
      ledgerKey,
      readyFile: join(dir, 'ready.json'),
    };
    child = spawn(process.execPath, await args(), { stdio: ['pipe', 'ignore', 'ignore'] });
    child.stdin!.end(JSON.stringify(config));
    let exited = false;
    child.once('exit', () => (exited = true));
    while (!existsSync(config.readyFile)) {
      if (exited) throw new Error('the gateway process exited before it was ready');
      await sleep(25);
    }
    const { port } = JSON.parse(await readFile(config.readyFile, 'utf8')) as { port: number };
    client = new Client({ name: 'safety-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp/reader`), {
        requestInit: { headers: { Authorization: `Bearer ${endpointSecret}` } },
      }),
    );
  }, 600_000);

  afterAll(async () => {
    await client?.close();
    if (child && child.exitCode === null) {
      const closed = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      await closed;
    }
    await fake?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('hides its token, endpoint secret and ledger key when they appear in repository content', async () => {
    const result = await call(client, 'get_file', { path: 'src/leak.txt' });
    expect(result.isError).toBeFalsy();
    const seen = JSON.stringify(result);
    for (const secret of [token, endpointSecret, ledgerKey]) expect(seen).not.toContain(secret);
    expect(answerOf(result)?.content).toBe(
      'token [hidden: secret]\nbasic [hidden: secret]\nendpoint [hidden: secret]\nledger [hidden: secret]\n',
    );
    expect(textOf(result)).toContain('4 secret-looking value(s) hidden');
  });

  it('refuses to write its token into the repository', async () => {
    const result = await call(client, 'push_files', {
      message: 'm',
      files: [{ path: 'src/copy.txt', content: `t=${token}\n` }],
    });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result)).not.toContain(token);
  });
});
