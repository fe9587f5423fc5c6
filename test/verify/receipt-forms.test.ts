import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CHECK_RUN_ANNOTATIONS_PER_REQUEST,
  MAX_ANNOTATIONS,
  MAX_CHECK_RUN_ANNOTATIONS,
  MAX_CHECK_RUN_TEXT,
  MAX_DESCRIPTION,
  renderErrorReceipt,
  renderNotice,
  type Receipt,
  type Verdict,
} from '../../src/verify/index.js';
import { receiptOf, verdict } from './support/verdict.js';

/** What every form of every receipt keeps to, whatever the verdict holds. */
function expectWithinLimits(receipt: Receipt): void {
  const { status, checkRun, annotations } = receipt;
  expect([...status.description].length).toBeLessThanOrEqual(MAX_DESCRIPTION);
  expect(status.description).not.toMatch(/[\r\n\u2028\u2029\u202a-\u202e]/);
  expect(annotations.length).toBeLessThanOrEqual(MAX_ANNOTATIONS);
  const { run, more } = checkRun;
  // the check run says what the status says
  expect(run.name).toBe(status.context);
  expect(run.title).toBe(status.description);
  expect(run.conclusion).toBe(status.state === 'success' ? 'success' : 'failure');
  expect(run.detailsUrl).toBe(status.targetUrl);
  expect(run.summary.length).toBeLessThanOrEqual(MAX_CHECK_RUN_TEXT);
  expect((run.text ?? '').length).toBeLessThanOrEqual(MAX_CHECK_RUN_TEXT);
  const batches = [run.annotations, ...more];
  for (const batch of batches) expect(batch.length).toBeLessThanOrEqual(CHECK_RUN_ANNOTATIONS_PER_REQUEST);
  expect(batches.flat().length).toBeLessThanOrEqual(MAX_CHECK_RUN_ANNOTATIONS);
}

const text = fc.string({ unit: 'binary', maxLength: 400 });

describe('the receipt pipeline', () => {
  it('keeps every form within its limit and the check run saying what the status says (property)', () => {
    const violation = fc.record({
      kind: fc.constantFrom('path' as const, 'symlink' as const, 'ref' as const),
      path: fc.option(text, { nil: undefined }),
      message: text,
    });
    fc.assert(
      fc.property(
        fc.constantFrom('success' as const, 'failure' as const, 'error' as const),
        fc.array(violation, { maxLength: 700 }),
        fc.array(text, { maxLength: 3 }),
        fc.option(fc.webUrl(), { nil: undefined }),
        (state, violations, unchecked, runUrl) => {
          const v: Verdict = verdict({ state, violations, unchecked });
          expectWithinLimits(receiptOf(v, { runUrl, context: 'perimeter/impl' }));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('renders an error receipt in every form, never a success', () => {
    fc.assert(
      fc.property(text, (reason) => {
        const receipt = renderErrorReceipt(reason, { runUrl: 'https://x/run/1', context: 'perimeter' });
        expectWithinLimits(receipt);
        expect(receipt.status.state).toBe('error');
        expect(receipt.checkRun.run.conclusion).toBe('failure');
        expect(receipt.summary).toContain('The receipt is an error, never a success.');
      }),
      { numRuns: 100 },
    );
  });

  it('renders a notice in the state it is given, the same in every form', () => {
    const receipt = renderNotice(
      { state: 'success', heading: 'Perimeter apply: success', description: 'applied', body: 'applied' },
      { context: 'perimeter/apply' },
    );
    expectWithinLimits(receipt);
    expect(receipt.status).toEqual({ state: 'success', context: 'perimeter/apply', description: 'applied' });
    expect(receipt.checkRun.run.conclusion).toBe('success');
  });

  it('cuts a long reason to one line of 140 characters in the status and the check run title', () => {
    const receipt = renderErrorReceipt(`a\nb${'x'.repeat(500)}`, {});
    expect(receipt.status.description.startsWith('Not verified: a\\u000ab')).toBe(true);
    expect([...receipt.status.description].length).toBe(MAX_DESCRIPTION);
  });
});
