import { describe, expect, it } from 'vitest';
import type { StatusRecord } from '../../src/github/upstream.js';
import { MAX_DESCRIPTION, ownReceiptIds } from '../../src/verify/index.js';

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
