/**
 * The gateway as its own process for the load suite, so its memory is measured apart from the clients and
 * the stand-in. Like the action's gateway child (src/gateway/child.ts) it runs the secret filter over every
 * answer; unlike it, the upstream's write pacing is lifted so the stand-in, not GitHub's 80 writes a minute,
 * sets the pace. Reads one JSON document on stdin; prints `{ url }` when serving; on SIGUSR2 prints its
 * memory after a full GC; on SIGTERM closes and prints its memory and peak RSS.
 */
import { startGateway } from '../../../src/gateway/index.js';
import { createOctokitUpstream } from '../../../src/github/octokit-upstream.js';
import { compilePerimeter, parseConfig } from '../../../src/policy/index.js';
import { createSecretFilter } from '../../../src/safety/index.js';

export interface LoadGatewayConfig {
  token: string;
  apiUrl: string;
  owner: string;
  repo: string;
  branch: string;
  configText: string;
  secrets: Record<string, string>;
  ledgerPath: string;
  ledgerKey: string;
}

export interface MemoryReport {
  rssBytes: number;
  heapUsedBytes: number;
  maxRssBytes: number;
}

function memory(): MemoryReport {
  (globalThis as { gc?: () => void }).gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  return { rssBytes: rss, heapUsedBytes: heapUsed, maxRssBytes: process.resourceUsage().maxRSS * 1024 };
}

async function main(): Promise<void> {
  let text = '';
  for await (const chunk of process.stdin) text += String(chunk);
  const config = JSON.parse(text) as LoadGatewayConfig;
  const upstream = createOctokitUpstream({
    token: config.token,
    owner: config.owner,
    repo: config.repo,
    baseUrl: config.apiUrl,
    writesPerMinute: 1_000_000,
  });
  const gateway = await startGateway({
    upstream,
    branch: config.branch,
    perimeters: parseConfig(config.configText).perimeters.map((spec) => compilePerimeter(spec)),
    secrets: config.secrets,
    ledger: { path: config.ledgerPath, key: config.ledgerKey },
    filter: createSecretFilter({
      extraSecrets: [config.token, config.ledgerKey, ...Object.values(config.secrets)],
    }),
    log: (line) => void process.stderr.write(`${line}\n`),
  });
  process.stdout.write(`${JSON.stringify({ url: gateway.url })}\n`);
  process.on('SIGUSR2', () => void process.stdout.write(`${JSON.stringify({ memory: memory() })}\n`));
  process.on('SIGTERM', () => {
    void gateway.close().then(() => {
      process.stdout.write(`${JSON.stringify({ memory: memory(), upstream: upstream.stats() })}\n`, () =>
        process.exit(0),
      );
    });
  });
}

void main();
