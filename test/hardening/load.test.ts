/**
 * Load: 32 concurrent MCP clients making mixed calls against one gateway process (the secret filter on,
 * as in the action). No protocol errors, every call in the ledger exactly once, the ledger verifies, and the
 * gateway's memory stays bounded between the middle and the end of the run.
 *
 * `npm test` runs 32 x 10 calls; PERIMETER_LOAD_FULL=1 runs the 32 x 500, PERIMETER_LOAD_CALLS=N
 * runs 32 x N (an even N). SECURITY.md has the figures.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyLedger } from '../../src/ledger/index.js';
import { type FakeGithub, gitText, seedRepo, startFakeGithub } from '@perimeter/fake-github';
import type { GatewayConfig } from '../../src/gateway/assemble.js';
import type { MemoryReport } from './support/load-gateway.js';
import { realisticToken } from './support/stand.js';

const FULL = process.env.PERIMETER_LOAD_FULL === '1';
const CLIENTS = 32;
const CALLS = FULL ? 500 : Number(process.env.PERIMETER_LOAD_CALLS ?? 10);
const MIB = 1024 * 1024;
const LOAD_GATEWAY = resolve(import.meta.dirname, 'support/load-gateway.ts');

const CONFIG = `
version: 1
perimeters:
  dev:
    read: ["src/**", "README.md"]
    write: ["src/**"]
    branches: ["main"]
`;
const FILES: Record<string, string> = {
  'README.md': '# load\n',
  ...Object.fromEntries(
    Array.from({ length: 20 }, (_, i) => [`src/m${i}.ts`, `export const m${i} = ${i};\n`]),
  ),
  ...Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`docs/h${i}.md`, `hidden ${i}\n`])),
};

interface Planned {
  tool: string;
  args: Record<string, unknown>;
  /** the call carries a path no other call names: its ledger record must appear exactly once */
  tag?: string;
  expectError: boolean;
  check?: (result: CallToolResult) => void;
}

function plan(client: number, call: number, seedSha: string): Planned {
  const file = `src/m${(client + call) % 20}.ts`;
  switch (call % 10) {
    case 3:
      return { tool: 'get_files', args: { paths: [file, `docs/h${client % 5}.md`] }, expectError: false };
    case 4:
      return { tool: 'get_tree', args: { path: 'src', recursive: call % 20 === 4 }, expectError: false };
    case 5: {
      const tag = `docs/missing-${client}-${call}.md`;
      return { tool: 'get_file', args: { path: tag }, tag, expectError: true };
    }
    case 6:
      return { tool: 'list_commits', args: { per_page: 5 }, expectError: false };
    case 7:
      return { tool: 'get_commit', args: { sha: seedSha }, expectError: false };
    case 8: {
      const tag = `docs/refused-${client}-${call}.md`;
      return {
        tool: 'push_files',
        args: { message: 'refused', files: [{ path: tag, content: 'x\n' }] },
        tag,
        expectError: true,
      };
    }
    case 9:
      return call % 50 === 9 ? push(client, call) : read(file);
    default:
      return read(file);
  }
}

function read(file: string): Planned {
  return {
    tool: 'get_file',
    args: { path: file },
    expectError: false,
    check: (result) => expect((result.content[0] as { text: string }).text).toBe(FILES[file]),
  };
}

function push(client: number, call: number): Planned {
  const tag = `src/load/c${client}-n${call}.ts`;
  return {
    tool: 'push_files',
    args: { message: `load ${client} ${call}`, files: [{ path: tag, content: `${client} ${call}\n` }] },
    tag,
    expectError: false,
  };
}

class GatewayProcess {
  private readonly lines: AsyncIterator<string>;
  constructor(readonly child: ChildProcess) {
    this.lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  }
  async next<T>(): Promise<T> {
    const line = await this.lines.next();
    if (line.done) throw new Error('the load gateway exited');
    return JSON.parse(line.value) as T;
  }
  async memory(): Promise<MemoryReport> {
    this.child.kill('SIGUSR2');
    return (await this.next<{ memory: MemoryReport }>()).memory;
  }
}

describe(`the gateway under load (${CLIENTS} clients x ${CALLS} calls)`, { timeout: 900_000 }, () => {
  let dir = '';
  let fake: FakeGithub;
  let repoDir = '';
  let gateway: GatewayProcess;
  let config: GatewayConfig & { secrets: Record<string, string> };
  let url = '';
  let seedSha = '';
  const clients: Client[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'perimeter-load-'));
    repoDir = join(dir, 'repo.git');
    seedSha = await seedRepo(repoDir, FILES);
    const token = realisticToken();
    fake = await startFakeGithub({ repos: { 'octo/load': repoDir }, token, rateLimit: 1_000_000 });
    config = {
      token,
      apiUrl: fake.url,
      owner: 'octo',
      repo: 'load',
      branch: 'main',
      defaultBranch: 'main',
      configText: CONFIG,
      configFile: 'perimeters.yml',
      secrets: { dev: randomBytes(24).toString('base64url') },
      ledgerPath: join(dir, 'ledger.jsonl'),
      ledgerKey: randomBytes(32).toString('hex'),
    };
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', LOAD_GATEWAY], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    child.stdin!.end(JSON.stringify(config));
    gateway = new GatewayProcess(child);
    url = (await gateway.next<{ url: string }>()).url;
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    if (gateway.child.exitCode === null) gateway.child.kill('SIGKILL');
    await fake.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('answers every call without a protocol error, records each once, and stays bounded in memory', async () => {
    for (let c = 0; c < CLIENTS; c++) {
      const client = new Client({ name: `load-${c}`, version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${url}/mcp/dev`), {
          requestInit: { headers: { Authorization: `Bearer ${config.secrets.dev}` } },
        }),
      );
      clients.push(client);
    }
    const protocolErrors: string[] = [];
    const wrongOutcomes: string[] = [];
    const expectedTools = new Map<string, number>();
    const tags: string[] = [];

    const runCalls = (from: number, to: number): Promise<void[]> =>
      Promise.all(
        clients.map(async (client, c) => {
          for (let j = from; j < to; j++) {
            const planned = plan(c, j, seedSha);
            expectedTools.set(planned.tool, (expectedTools.get(planned.tool) ?? 0) + 1);
            if (planned.tag) tags.push(planned.tag);
            try {
              // no 60 s SDK request timeout for a call queued behind 31 others on a busy machine
              const result = (await client.callTool(
                { name: planned.tool, arguments: planned.args },
                undefined,
                { timeout: 600_000 },
              )) as CallToolResult;
              if (Boolean(result.isError) !== planned.expectError) {
                wrongOutcomes.push(
                  `${planned.tool} ${JSON.stringify(planned.args)}: ${JSON.stringify(result.content)}`,
                );
              } else planned.check?.(result);
            } catch (error) {
              protocolErrors.push(`${planned.tool}: ${(error as Error).message}`);
            }
          }
        }),
      );

    const started = Date.now();
    await runCalls(0, Math.floor(CALLS / 2));
    const middle = await gateway.memory();
    await runCalls(Math.floor(CALLS / 2), CALLS);
    const end = await gateway.memory();
    const seconds = (Date.now() - started) / 1000;
    gateway.child.kill('SIGTERM');
    const final = await gateway.next<{
      memory: MemoryReport;
      upstream: { requests: number; notModified: number };
    }>();

    expect(protocolErrors).toEqual([]);
    expect(wrongOutcomes.slice(0, 5)).toEqual([]);

    const total = CLIENTS * CALLS;
    const verified = await verifyLedger(config.ledgerPath, config.ledgerKey);
    expect(verified).toMatchObject({ ok: true, records: total + 2 });
    const records = (await readFile(config.ledgerPath, 'utf8'))
      .trimEnd()
      .split('\n')
      .map(
        (line) => JSON.parse(line) as { event: string; tool?: string; paths?: string[]; decision?: string },
      );
    const calls = records.filter((r) => r.event === 'call');
    const recordedTools = new Map<string, number>();
    for (const r of calls) recordedTools.set(r.tool!, (recordedTools.get(r.tool!) ?? 0) + 1);
    expect(Object.fromEntries(recordedTools)).toEqual(Object.fromEntries(expectedTools));
    const seen = new Map<string, number>();
    for (const r of calls)
      for (const p of r.paths ?? []) if (tags.includes(p)) seen.set(p, (seen.get(p) ?? 0) + 1);
    expect(tags.filter((t) => seen.get(t) !== 1)).toEqual([]);

    const pushes = tags.filter((t) => t.startsWith('src/load/'));
    const log = await gitText(repoDir, ['log', '--format=%s', 'main']);
    for (const tag of pushes) {
      const [, c, n] = /c(\d+)-n(\d+)/.exec(tag)!;
      expect(log.split('\n').filter((s) => s === `load ${c} ${n}`)).toHaveLength(1);
    }

    // bounded: what the second half adds to the live heap is small next to the blob cache's 64 MiB cap
    expect(end.heapUsedBytes - middle.heapUsedBytes).toBeLessThan(48 * MIB);
    expect(final.memory.maxRssBytes).toBeLessThan(512 * MIB);
    console.log(
      `load: ${CLIENTS} clients x ${CALLS} calls = ${total} calls (${pushes.length} pushes) in ${seconds.toFixed(1)} s ` +
        `(${(total / seconds).toFixed(0)} calls/s); gateway heap ${(middle.heapUsedBytes / MIB).toFixed(1)} -> ` +
        `${(end.heapUsedBytes / MIB).toFixed(1)} MiB, RSS ${(end.rssBytes / MIB).toFixed(1)} MiB, peak RSS ` +
        `${(final.memory.maxRssBytes / MIB).toFixed(1)} MiB; upstream requests ${final.upstream.requests} ` +
        `(${final.upstream.notModified} not modified)`,
    );
  }, 900_000);
});
