import { describe, expect, it } from 'vitest';
import { renderReceipt, type Verdict } from '../../src/verify/index.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);

function verdict(perPerimeter: Verdict['perPerimeter']): Verdict {
  return {
    state: 'success',
    branch: 'main',
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
    perPerimeter,
    unchecked: [],
    notes: [],
  };
}

describe('the receipt summary', () => {
  it('counts secrets hidden and credential writes refused per perimeter', () => {
    const { summary } = renderReceipt(
      verdict({
        impl: { calls: 9, refusals: 3, hidden: 5, credentialRefusals: 2 },
        docs: { calls: 1, refusals: 0 },
      }),
      {},
    );
    expect(summary).toContain(
      '| Perimeter | Calls | Refusals | Secrets hidden | Credential writes refused |',
    );
    expect(summary).toContain('| <code>impl</code> | 9 | 3 | 5 | 2 |');
    expect(summary).toContain('| <code>docs</code> | 1 | 0 | 0 | 0 |');
  });
});
