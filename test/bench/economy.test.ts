/**
 * The request-economy session of `npm run bench` on a tiny repository: upstream request COUNTS (the
 * stand-in's accounting), which are deterministic, against issue 6's targets. No timings.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { runEconomy, type EconomyResult } from '../../bench/economy/economy.js';

let result: EconomyResult;

beforeAll(async () => {
  result = await runEconomy({
    repo: { files: 60, historyCommits: 3 },
    session: { singleReads: 8, workingSet: 3, batches: 1, batchSize: 4, pushSizes: [1, 10, 50] },
    naive: false,
  });
}, 120_000);

describe('the scripted agent session through the gateway', () => {
  it('pushes 1, 10 or 50 files with at most 5 upstream requests', () => {
    expect(Object.keys(result.push_files_requests).sort()).toEqual(['1', '10', '50']);
    for (const requests of Object.values(result.push_files_requests)) expect(requests).toBeLessThanOrEqual(5);
  });

  it('answers a warm repeated read with at most 1 upstream request', () => {
    expect(result.warm_repeat_reads.count).toBeGreaterThan(0);
    expect(result.warm_repeat_reads.max).toBeLessThanOrEqual(1);
  });

  it('never spends fewer requests than the computed floor', () => {
    for (const step of result.steps) expect(step.perimeter, step.step).toBeGreaterThanOrEqual(step.floor);
  });

  // Known miss, see BENCHMARKS.md: list_commits and get_commit diff trees where one commit lookup would do,
  // and a read after the gateway's own push fetches the new tree and the blobs it just wrote.
  it.fails('stays within 1.25 times the floor', () => {
    expect(result.session.perimeter).toBeLessThanOrEqual(1.25 * result.session.floor);
  });
});
