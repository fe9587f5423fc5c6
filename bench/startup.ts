/**
 * Start-up: `node dist/main/index.js` run the way a runner runs it (packages/test-rigs/src/runner.ts), from process
 * start to its exit, which main reaches only once the detached gateway wrote its ready file. The stand-in
 * adds no latency. For scale: a bare `node -e ''` start, and the post step on the same job. Bundle sizes.
 */
import { execFileSync } from 'node:child_process';
import { FILES, Job, REPO_ROOT, runnerNode } from '@perimeter/test-rigs';
import { bundleSizes, distIsFresh } from './support/dist.js';
import { median, round, time } from './support/measure.js';

export interface StartupResult {
  runs: number;
  ready_ms: number;
  ready_ms_all: number[];
  post_ms: number;
  /**
   * `node -e ''` by the same node binary in the same environment as main (the runner's variables, nothing of
   * the bench process's: its NODE_EXTRA_CA_CERTS alone loads a CA bundle and made the bare start slower)
   */
  node_bare_start_ms: number;
  dist_fresh: boolean;
  bundles: Record<string, { total_bytes: number; index_js_bytes: number }>;
}

export async function runStartup(runs: number): Promise<StartupResult> {
  const ready: number[] = [];
  const post: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < runs; i++) {
    const job = await Job.create({ files: FILES, actionDir: REPO_ROOT });
    try {
      // like with like: the bare start in main's own environment, interleaved with main's runs
      const env = job.runner.baseEnv();
      bare.push(await time(async () => execFileSync(runnerNode(), ['-e', ''], { env })));
      const start = performance.now();
      const main = await job.main();
      ready.push(performance.now() - start);
      if (main.exitCode !== 0) throw new Error(`main failed: ${main.log}\n${main.stderr}`);
      post.push(await time(() => job.post()));
    } finally {
      await job.close();
    }
  }
  return {
    runs,
    ready_ms: Math.round(median(ready)),
    ready_ms_all: ready.map((n) => Math.round(n)),
    post_ms: Math.round(median(post)),
    node_bare_start_ms: round(median(bare), 1),
    dist_fresh: distIsFresh(),
    bundles: bundleSizes(),
  };
}
