/**
 * `npm run bench` (full, a few minutes) and `npm run bench -- --quick` (about a minute): every figure in
 * one process against the GitHub stand-in; writes bench/results.json and the table in BENCHMARKS.md.
 * `--only=economy,verify` runs some sections; `--no-write` prints without writing. Figures, not tests:
 * nothing here fails on a slow machine, but the target column says what was met.
 */
import os from 'node:os';
import { runBigRepos } from './big-repos.js';
import { runContentSafety } from './content-safety.js';
import { runEconomy } from './economy/economy.js';
import { type JobsRow, realHistories, runHistoryJobs, runJobs, runMixedJobs } from './jobs.js';
import { FULL_SESSION, QUICK_SESSION } from './economy/session-script.js';
import { runGatewaySpeed } from './gateway-speed.js';
import { runPolicy } from './policy.js';
import { runRealHistory } from './real-history.js';
import { runHistorySession } from './history-session.js';
import { runStartup } from './startup.js';
import { describeMachine } from './support/machine.js';
import { writeResults, writeTable } from './support/report.js';
import { evaluateTargets, renderTable } from './support/summary.js';
import { runVerifyScale, type VerifyCase } from './verify-scale.js';
import { runWorkspace } from './workspace.js';
import { runSearch } from './search.js';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const write = !args.includes('--no-write');
const only = args
  .find((a) => a.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',');
const wanted = (section: string): boolean => !only || only.includes(section);

function verifyCases(files: number): VerifyCase[] {
  const cases: VerifyCase[] = [
    { files, changed: 10, spread: 'few' },
    { files, changed: 10, spread: 'many' },
  ];
  if (!quick) cases.push({ files, changed: 1000, spread: 'few' }, { files, changed: 1000, spread: 'many' });
  return cases;
}

const began = performance.now();
const log = (line: string): void =>
  console.log(`[bench ${((performance.now() - began) / 1000).toFixed(0)}s] ${line}`);
const results: Record<string, unknown> = {
  mode: quick ? 'quick' : 'full',
  machine: { ...describeMachine(), loadavg_start: os.loadavg().map((n) => Math.round(n * 10) / 10) },
};

if (wanted('policy')) {
  log('policy: 100,000 paths against 50 globs');
  results.policy = runPolicy(quick ? 3 : 7);
}
if (wanted('economy')) {
  log('economy: scripted session through the gateway, naive baselines, floor');
  results.economy = await runEconomy(
    quick
      ? { repo: { files: 1000, historyCommits: 12 }, session: QUICK_SESSION }
      : { repo: { files: 3000, historyCommits: 30 }, session: FULL_SESSION },
  );
}
if (wanted('jobs')) {
  log('jobs: agent jobs an hour, verification included, the built action as a runner runs it');
  const history: JobsRow[] = [];
  for (const real of realHistories()) {
    const rows = await runHistoryJobs(real);
    if (rows === null) log(`jobs: no rows for ${real.name}, no repository at ${real.source}`);
    history.push(...(rows ?? []), ...((rows && (await runMixedJobs(real))) ?? []));
  }
  results.jobs = [
    ...(await runJobs(
      quick
        ? { repo: { files: 1000, historyCommits: 12 }, session: QUICK_SESSION }
        : { repo: { files: 3000, historyCommits: 30 }, session: FULL_SESSION },
    )),
    ...history,
  ];
}
if (wanted('gateway')) {
  log('gateway: warm get_file latency, throughput, memory');
  results.gateway = await runGatewaySpeed(
    quick
      ? { samples: 20, secondsPerLevel: 2, concurrency: [1, 8, 32] }
      : { samples: 200, secondsPerLevel: 10, concurrency: [1, 8, 32] },
  );
}
if (wanted('safety')) {
  log('safety: content filter on a warm 100 KB get_file');
  results.safety = await runContentSafety(quick ? 8 : 30);
}
if (wanted('verify')) {
  log('verify: verifyJob at 1,000 to 100,000 files');
  const { rows, seed_ms } = await runVerifyScale(
    quick ? [1000, 10000, 100000] : [1000, 10000, 100000],
    (files) => (quick && files >= 100000 ? [{ files, changed: 10, spread: 'few' }] : verifyCases(files)),
  );
  results.verify = rows;
  results.verify_seed_ms = seed_ms;
}
if (wanted('big')) {
  log('big: the first call at 40,000 and 100,000 files, with the tree caps on');
  results.big = await runBigRepos(quick ? [40000] : [40000, 100000]);
}
if (wanted('workspace')) {
  log('workspace: hand a perimeter its directory at 2,000 to 100,000 files, against a shallow clone');
  results.workspace = await runWorkspace(quick ? [2000] : [2000, 40000, 100000]);
}
if (wanted('search')) {
  log('search: one search over 2,000 to 100,000 readable files, against get_files over all of them');
  results.search = await runSearch(quick ? [2000] : [2000, 40000, 100000]);
}
if (wanted('history')) {
  log('history: the history of a real project (PERIMETER_HISTORY_REPO)');
  results.history = await runRealHistory();
  if (results.history === null) log('history: skipped, no repository at PERIMETER_HISTORY_REPO');
  else results.history_session = await runHistorySession();
}
if (wanted('startup')) {
  log('startup: node dist/main/index.js to gateway ready');
  results.startup = await runStartup(quick ? 1 : 5);
}
(results.machine as Record<string, unknown>).loadavg_end = os.loadavg().map((n) => Math.round(n * 10) / 10);
results.duration_s = Math.round((performance.now() - began) / 1000);
results.targets = evaluateTargets(results);

const markdown = renderTable(results);
console.log(`\n${markdown}\n`);
if (write && !only) {
  writeResults(results);
  writeTable(markdown);
  log('wrote bench/results.json and the table in BENCHMARKS.md');
} else if (write) {
  log('--only: nothing written (results.json holds whole runs only)');
}
process.exit(0);
