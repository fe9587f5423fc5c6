import { describe, expect, it } from 'vitest';
import { type Verdict } from '../../src/verify/index.js';

import { receiptOf, verdict as aVerdict } from '../verify/support/verdict.js';

const verdict = (perPerimeter: Verdict['perPerimeter']): Verdict =>
  aVerdict({ branch: 'main', perPerimeter });

describe('the receipt summary', () => {
  it('counts secrets hidden and credential writes refused per perimeter', () => {
    const { summary } = receiptOf(
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
