/**
 * The gateway as the action runs it: `node dist/gateway/index.js` with its configuration on stdin, ready
 * once it wrote the ready file. For figures that belong to the gateway process alone (latency, memory).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ChildConfig } from '../../src/gateway/child.js';
import { REPO_ROOT } from '@perimeter/test-rigs';
import { DIST, distIsFresh } from './dist.js';
import { BRANCH, OWNER, REPO, type StandIn } from './stand-in.js';

/** USER_HZ: 100 on Linux */
const CLOCK_TICKS = 100;

export interface GatewayChild {
  pid: number;
  /** what ran: 'dist/gateway/index.js' or 'src/gateway/entry.ts' (when dist/ is stale) */
  entry: string;
  url: string;
  connect(perimeter: string): Promise<Client>;
  /** resident memory of the gateway process, from /proc */
  rssBytes(): number;
  /** CPU time (user + system) the gateway process used so far, from /proc, in ms */
  cpuMs(): number;
  stop(): Promise<void>;
}

export async function startGatewayChild(
  standIn: StandIn,
  configText: string,
  perimeters: string[],
  options: { extraNodeArgs?: string[] } = {},
): Promise<GatewayChild> {
  const dir = mkdtempSync(join(tmpdir(), 'perimeter-bench-child-'));
  const readyFile = join(dir, 'ready.json');
  const secrets = Object.fromEntries(perimeters.map((p) => [p, randomBytes(24).toString('base64url')]));
  const nodeArgs = [
    ...(process.env.BENCH_GATEWAY_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
    ...(options.extraNodeArgs ?? []),
  ];
  // the bundle when it matches the sources; else the sources themselves, so figures follow the code
  const entry = distIsFresh()
    ? [join(DIST, 'gateway', 'index.js')]
    : ['--import', 'tsx', join(REPO_ROOT, 'src', 'gateway', 'entry.ts')];
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, ...entry], {
    cwd: REPO_ROOT,
    stdio: ['pipe', 'ignore', process.env.BENCH_GATEWAY_STDERR ? 'inherit' : 'ignore'],
  });
  const config: ChildConfig = {
    token: standIn.token,
    apiUrl: standIn.fake.url,
    owner: OWNER,
    repo: REPO,
    branch: BRANCH,
    defaultBranch: BRANCH,
    configText,
    configFile: 'perimeters.yml',
    perimeters,
    secrets,
    port: 0,
    ledgerPath: join(dir, 'ledger.jsonl'),
    ledgerKey: randomBytes(32).toString('hex'),
    readyFile,
  };
  child.stdin!.end(JSON.stringify(config));
  const deadline = Date.now() + 30_000;
  while (!existsSync(readyFile)) {
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error('the gateway process did not start');
    await sleep(10);
  }
  const { port } = JSON.parse(readFileSync(readyFile, 'utf8')) as { port: number };
  const url = `http://127.0.0.1:${port}`;
  const clients: Client[] = [];
  return {
    pid: child.pid!,
    entry: entry.length === 1 ? 'dist/gateway/index.js' : 'src/gateway/entry.ts',
    url,
    async connect(perimeter) {
      const client = new Client({ name: 'perimeter-bench', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${url}/mcp/${perimeter}`), {
          requestInit: { headers: { Authorization: `Bearer ${secrets[perimeter]}` } },
        }),
      );
      clients.push(client);
      return client;
    },
    rssBytes() {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
    },
    cpuMs() {
      const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime and stime are fields 14 and 15 of stat; after the command name they are the 12th and 13th
      return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
    },
    async stop() {
      await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
