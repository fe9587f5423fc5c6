import { renderReceipt, type CheckRunFacts, type Receipt, type Verdict } from '../../../src/verify/index.js';

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

/** What a check run cites, for tests that look at the other forms of the receipt. */
export const EVIDENCE: CheckRunFacts = {
  config: { file: 'perimeters.yml', ref: 'main', blobSha: 'c'.repeat(40) },
  ledger: null,
};

/** Every form of the receipt of `v`, citing EVIDENCE unless told otherwise. */
export const receiptOf = (v: Verdict, options: Partial<Parameters<typeof renderReceipt>[1]> = {}): Receipt =>
  renderReceipt(v, { evidence: EVIDENCE, ...options });
