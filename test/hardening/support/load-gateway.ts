/**
 * The gateway as its own process for the load suite, so its memory is measured apart from the clients and
 * the stand-in. Like the action's gateway child (src/gateway/child.ts) it runs the secret filter over every
 * answer; unlike it, the upstream's write pacing is lifted so the stand-in, not GitHub's 80 writes a minute,
 * sets the pace. Reads one JSON document on stdin; prints `{ url }` when serving; on SIGUSR2 prints its
 * memory after a full GC; on SIGTERM closes and prints its memory and peak RSS.
 */
import { assembleGateway, type GatewayConfig } from '../../../src/gateway/assemble.js';

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
  const config = JSON.parse(text) as GatewayConfig;
  const { gateway, upstream } = await assembleGateway(
    { ...config, writesPerMinute: 1_000_000 },
    { log: (line) => void process.stderr.write(`${line}\n`) },
  );
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
