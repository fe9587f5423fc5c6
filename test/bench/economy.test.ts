/**
 * The request-economy session of `npm run bench` (the full one: 3,000 files, 30 commits of history, 76 calls):
 * upstream request COUNTS (the stand-in's accounting), which are deterministic, against issue 6's targets.
 * No timings; the naive baselines are not replayed here.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { runEconomy, type EconomyResult } from '../../bench/economy/economy.js';
import { FULL_SESSION } from '../../bench/economy/session-script.js';

let result: EconomyResult;

beforeAll(async () => {
  result = await runEconomy({
    repo: { files: 3000, historyCommits: 30 },
    session: FULL_SESSION,
    naive: false,
  });
}, 180_000);

describe('the scripted agent session through the gateway', () => {
  it('pushes 1, 5, 10 or 50 files with at most 3 upstream requests (issue 13)', () => {
    expect(Object.keys(result.push_files_requests).sort()).toEqual(['1', '10', '5', '50']);
    for (const requests of Object.values(result.push_files_requests)) expect(requests).toBeLessThanOrEqual(3);
  });

  it('answers a warm repeated read with at most 1 upstream request', () => {
    expect(result.warm_repeat_reads.count).toBeGreaterThan(0);
    expect(result.warm_repeat_reads.max).toBeLessThanOrEqual(1);
  });

  it('never spends fewer requests than the computed floor, in all or in charged requests', () => {
    for (const step of result.steps) {
      expect(step.perimeter, step.step).toBeGreaterThanOrEqual(step.floor);
      expect(step.perimeter - step.not_modified, step.step).toBeGreaterThanOrEqual(
        step.floor - step.floor_free_ref_checks,
      );
    }
  });

  it('stays within 1.25 times the floor in all requests, 304s included', () => {
    expect(result.session.perimeter).toBeLessThanOrEqual(1.25 * result.session.floor);
  });

  it('stays within 1.2 times the floor in charged requests, REST and GraphQL together (304s excluded)', () => {
    // Measured 5 against 5: the pushes; trees, history and get_tree's sizes come over git.
    const charged = result.session.perimeter - result.session.perimeter_not_modified;
    expect(charged).toBeLessThanOrEqual(1.2 * result.session.floor_charged);
  });
});
