/**
 * Gateway speed: a warm get_file through the gateway process (as the action starts it, content filter on)
 * against a direct Octokit call to the stand-in for the same bytes (GET blob, no cache: what a client
 * without the gateway does), and against the one request the gateway's warm read still makes (the branch
 * head, conditional: a 304). Then throughput at several concurrencies, and the gateway's resident memory.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getOctokit } from '@actions/github';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { REPO_ROOT } from '@perimeter/test-rigs';
import { answerOf, callTool, OWNER, REPO, startStandIn, BRANCH } from './support/stand-in.js';
import { startGatewayChild } from './support/gateway-child.js';
import { percentile, round, sample } from './support/measure.js';
import { fileText } from './economy/repo-model.js';

export interface SpeedOptions {
  samples: number;
  /** how long each concurrency level runs */
  secondsPerLevel: number;
  concurrency: number[];
}

export interface SpeedResult {
  file_bytes: number;
  samples: number;
  gateway_ms: { p50: number; p99: number };
  direct_blob_ms: { p50: number; p99: number };
  direct_ref_304_ms: { p50: number; p99: number };
  p50_overhead_ms: number;
  /**
   * The same get_file through a plain MCP SDK server doing the same upstream work (bench/support/
   * plain-mcp-server.ts: stateless SDK server, the conditional ref check, the text from its cache)
   */
  plain_mcp_ms: { p50: number; p99: number };
  /** gateway p50 minus plain p50: what the gateway adds to an MCP server doing the same upstream work */
  p50_overhead_vs_plain_ms: number;
  /** gateway p50 / plain p50 */
  ratio_vs_plain: number;
  /** CPU per warm get_file of the plain server's process, beside gateway_cpu_ms_per_call */
  plain_cpu_ms_per_call: number;
  /** gateway p50 minus the p50 of the one request its warm read makes */
  p50_own_cost_ms: number;
  /** CPU time the gateway process spent per warm get_file (from /proc; not inflated by a busy machine) */
  gateway_cpu_ms_per_call: number;
  /**
   * CPU time of the bench process per warm get_file through the gateway: the MCP client, and the stand-in
   * answering the ref check; and per direct conditional GET ref (the Octokit client and the stand-in)
   */
  client_cpu_ms_per_call: { gateway: number; direct_ref_304: number };
  /** the same once the gateway has served `calls_served` calls (after the throughput runs) */
  gateway_cpu_ms_per_call_later: number;
  calls_served: number;
  /** what ran: the bundle, or the sources when dist/ is stale */
  entry: string;
  throughput: Array<{
    concurrency: number;
    calls: number;
    failed: number;
    calls_per_s: number;
    p50_ms: number;
    p99_ms: number;
  }>;
  rss_mb: number;
  upstream_requests_per_warm_read: number;
}

const CONFIG =
  'version: 1\nperimeters:\n  reader:\n    read: ["**"]\n    write: ["src/**"]\n    branches: ["main"]\n';

export async function runGatewaySpeed(options: SpeedOptions): Promise<SpeedResult> {
  const files: Record<string, string> = {};
  for (let i = 0; i < 200; i++)
    files[`src/module${i % 10}/file${i}.ts`] = fileText(`src/module${i % 10}/file${i}.ts`, 0, 60);
  const target = 'src/module3/file3.ts';
  const standIn = await startStandIn({ files });
  const gateway = await startGatewayChild(standIn, CONFIG, ['reader']);
  const plain = await startPlainServer(standIn);
  try {
    const client = await gateway.connect('reader');
    const plainClient = new Client({ name: 'perimeter-bench', version: '1.0.0' });
    await plainClient.connect(new StreamableHTTPClientTransport(new URL(`${plain.url}/mcp`)));
    const plainFirst = await callTool(plainClient, 'get_file', { path: target });
    const octokit = getOctokit(standIn.token, { baseUrl: standIn.fake.url });
    const repo = { owner: OWNER, repo: REPO };
    const first = await callTool(client, 'get_file', { path: target });
    const { sha, content } = answerOf(first) as { sha: string; content: string };
    const ref = await octokit.request('GET /repos/{owner}/{repo}/git/ref/{ref}', {
      ...repo,
      ref: `heads/${BRANCH}`,
    });
    const etag = ref.headers.etag!;

    const stats = (times: number[]) => ({
      p50: round(percentile(times, 50)),
      p99: round(percentile(times, 99)),
    });
    // interleaved rounds, so drifting machine load falls on both sides alike
    const gatewayTimes: number[] = [];
    const blobTimes: number[] = [];
    const refTimes: number[] = [];
    const plainTimes: number[] = [];
    let plainCpu = 0;
    const rounds = 5;
    const per = Math.ceil(options.samples / rounds);
    let gatewayCpu = 0;
    let gatewayCalls = 0;
    let clientCpu = 0;
    let refCpu = 0;
    const ownCpuMs = (): number => {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1000;
    };
    for (let r = 0; r < rounds; r++) {
      const warmup = r === 0 ? 10 : 2;
      const cpu = gateway.cpuMs();
      const own = ownCpuMs();
      gatewayTimes.push(...(await sample(() => callTool(client, 'get_file', { path: target }), per, warmup)));
      clientCpu += ownCpuMs() - own;
      gatewayCpu += gateway.cpuMs() - cpu;
      gatewayCalls += per + warmup;
      const plainCpuBefore = plain.cpuMs();
      plainTimes.push(
        ...(await sample(() => callTool(plainClient, 'get_file', { path: target }), per, warmup)),
      );
      plainCpu += plain.cpuMs() - plainCpuBefore;
      blobTimes.push(
        ...(await sample(
          () => octokit.request('GET /repos/{owner}/{repo}/git/blobs/{file_sha}', { ...repo, file_sha: sha }),
          per,
          r === 0 ? 10 : 2,
        )),
      );
      const ownBeforeRef = ownCpuMs();
      refTimes.push(
        ...(await sample(
          () =>
            octokit
              .request('GET /repos/{owner}/{repo}/git/ref/{ref}', {
                ...repo,
                ref: `heads/${BRANCH}`,
                headers: { 'if-none-match': etag },
              })
              .catch((e: { status?: number }) => {
                if (e.status !== 304) throw e;
              }),
          per,
          r === 0 ? 10 : 2,
        )),
      );
      refCpu += ownCpuMs() - ownBeforeRef;
    }
    const perRead = await measureRequests(standIn, () => callTool(client, 'get_file', { path: target }));

    const throughput: SpeedResult['throughput'] = [];
    const paths = Object.keys(files).slice(0, 20);
    for (const path of paths) await callTool(client, 'get_file', { path });
    for (const concurrency of options.concurrency) {
      const latencies: number[] = [];
      let failed = 0;
      let next = 0;
      const start = performance.now();
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (performance.now() - start < options.secondsPerLevel * 1000) {
            const path = paths[next++ % paths.length]!;
            const t = performance.now();
            try {
              const result = await callTool(client, 'get_file', { path });
              if (result.isError) throw new Error(`get_file ${path} failed`);
              latencies.push(performance.now() - t);
            } catch {
              failed++;
            }
          }
        }),
      );
      const seconds = (performance.now() - start) / 1000;
      throughput.push({
        concurrency,
        calls: latencies.length,
        failed,
        calls_per_s: round(latencies.length / seconds, 1),
        p50_ms: round(percentile(latencies, 50)),
        p99_ms: round(percentile(latencies, 99)),
      });
    }
    let served = 2 + gatewayCalls + paths.length + throughput.reduce((n, t) => n + t.calls + t.failed, 0);
    const laterCpu = gateway.cpuMs();
    for (let i = 0; i < options.samples; i++) await callTool(client, 'get_file', { path: target });
    const laterPerCall = (gateway.cpuMs() - laterCpu) / options.samples;
    served += options.samples;
    const gatewayStats = stats(gatewayTimes);
    const plainStats = stats(plainTimes);
    const plainText = (plainFirst.content as Array<{ text: string }>)[0]!.text;
    if (!plainText.includes(content.slice(0, 200)))
      throw new Error('the plain MCP server answered different text than the gateway');
    await plainClient.close();
    const blobStats = stats(blobTimes);
    const refStats = stats(refTimes);
    return {
      file_bytes: Buffer.byteLength(content),
      samples: gatewayTimes.length,
      gateway_ms: gatewayStats,
      direct_blob_ms: blobStats,
      direct_ref_304_ms: refStats,
      p50_overhead_ms: round(gatewayStats.p50 - blobStats.p50),
      plain_mcp_ms: plainStats,
      p50_overhead_vs_plain_ms: round(gatewayStats.p50 - plainStats.p50),
      ratio_vs_plain: round(gatewayStats.p50 / plainStats.p50),
      plain_cpu_ms_per_call: round(plainCpu / gatewayCalls),
      p50_own_cost_ms: round(gatewayStats.p50 - refStats.p50),
      gateway_cpu_ms_per_call: round(gatewayCpu / gatewayCalls),
      client_cpu_ms_per_call: {
        gateway: round(clientCpu / gatewayCalls),
        direct_ref_304: round(refCpu / gatewayCalls),
      },
      gateway_cpu_ms_per_call_later: round(laterPerCall),
      calls_served: served,
      entry: gateway.entry,
      throughput,
      rss_mb: round(gateway.rssBytes() / 2 ** 20, 1),
      upstream_requests_per_warm_read: perRead,
    };
  } finally {
    await gateway.stop();
    await plain.stop();
    await standIn.close();
  }
}

/** The plain MCP server (bench/support/plain-mcp-server.ts) as its own process, like the gateway. */
async function startPlainServer(standIn: Awaited<ReturnType<typeof startStandIn>>) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(REPO_ROOT, 'bench', 'support', 'plain-mcp-server.ts')],
    {
      cwd: REPO_ROOT,
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  child.stdin.end(
    JSON.stringify({
      token: standIn.token,
      apiUrl: standIn.fake.url,
      owner: OWNER,
      repo: REPO,
      branch: BRANCH,
    }),
  );
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('\n')) resolve(Number(out.trim()));
    });
    child.once('exit', () => reject(new Error('the plain MCP server did not start')));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    cpuMs(): number {
      const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
    },
    async stop(): Promise<void> {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function measureRequests(
  standIn: Awaited<ReturnType<typeof startStandIn>>,
  run: () => Promise<unknown>,
): Promise<number> {
  const before = standIn.fake.stats().total;
  await run();
  return standIn.fake.stats().total - before;
}
