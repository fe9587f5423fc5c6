import type { Verdict } from '../../../src/verify/index.js';

export const A = 'a'.repeat(40);
export const B = 'b'.repeat(40);

/** A success verdict on agent/x (one gateway commit, nothing else), for the receipt renderers' tests. */
export function verdict(overrides: Partial<Verdict> = {}): Verdict {
  return {
    state: 'success',
    branch: 'agent/x',
    startHead: A,
    endHead: B,
    baseline: { sha: A, label: 'the start of the job' },
    files: [],
    violations: [],
    refChanges: [],
    commits: { gateway: [B], direct: [], others: [], unattributed: [], complete: true },
    pushes: [],
    others: [],
    identity: 'github-actions[bot]',
    perPerimeter: {},
    unchecked: [],
    notes: [],
    ...overrides,
  };
}
