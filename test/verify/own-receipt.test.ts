import { describe, expect, it } from 'vitest';
import type { CheckRunRecord, StatusRecord } from '../../src/github/upstream.js';
import { MAX_DESCRIPTION, ownCheckRunIds, ownReceiptIds } from '../../src/verify/index.js';

const status = (over: Partial<StatusRecord>): StatusRecord => ({
  id: 1,
  state: 'failure',
  context: 'perimeter',
  description: '1 violation: docs/roadmap.md',
  targetUrl: null,
  creator: 'github-actions[bot]',
  createdAt: '2026-12-01T10:00:07Z',
  ...over,
});

const record = {
  context: 'perimeter',
  state: 'failure',
  description: '1 violation: docs/roadmap.md',
  endedAt: '2026-12-01T10:00:07.620Z',
};

describe("the verify job's own receipt, found for an audit", () => {
  it('is the status with the verdict word for word, from the second of the end snapshot on', () => {
    const statuses = [
      status({ id: 1 }),
      status({ id: 2, createdAt: '2026-12-01T10:00:09Z' }),
      // before the end snapshot's second: the agent's, however alike
      status({ id: 3, createdAt: '2026-12-01T10:00:06Z' }),
      // another verdict, another context, another state
      status({ id: 4, description: 'All changes inside the perimeters', state: 'success' }),
      status({ id: 5, context: 'perimeter/other' }),
      status({ id: 6, state: 'error' }),
    ];
    expect(ownReceiptIds(statuses, record)).toEqual([1, 2]);
  });

  it('compares with the description as posted: clipped to what GitHub keeps', () => {
    const long = `2 violations: ${'docs/a-very-long-name/'.repeat(10)}`;
    const posted = status({ description: `${long.slice(0, MAX_DESCRIPTION - 1)}…` });
    expect(posted.description!.length).toBe(MAX_DESCRIPTION);
    expect(ownReceiptIds([posted], { ...record, description: long })).toEqual([1]);
  });
});

describe("the verify job's own check run, found for an audit", () => {
  const run = (over: Partial<CheckRunRecord>): CheckRunRecord => ({
    id: 9,
    name: 'perimeter',
    status: 'completed',
    conclusion: 'failure',
    title: '1 violation: docs/roadmap.md',
    startedAt: '2026-12-01T10:00:08Z',
    completedAt: '2026-12-01T10:00:08Z',
    app: 'github-actions',
    ...over,
  });

  it('is the run with the verdict as its title and conclusion, started from the end snapshot on', () => {
    const runs = [
      run({ id: 1 }),
      run({ id: 2, startedAt: '2026-12-01T10:00:06Z' }),
      run({ id: 3, conclusion: 'success' }),
      run({ id: 4, title: 'All changes inside the perimeters' }),
      run({ id: 5, name: 'perimeter/other' }),
      run({ id: 6, startedAt: null }),
    ];
    expect(ownCheckRunIds(runs, record)).toEqual([1]);
  });

  it('takes an error verdict as the failure it is posted as', () => {
    expect(ownCheckRunIds([run({ id: 7 })], { ...record, state: 'error' })).toEqual([7]);
  });
});
