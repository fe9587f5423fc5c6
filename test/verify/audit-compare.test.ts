import { describe, expect, it } from 'vitest';
import { compareReceipts, receiptJson, type ReceiptJson, type Verdict } from '../../src/verify/index.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const verdict: Verdict = {
  state: 'failure',
  branch: 'agent/work',
  startHead: A,
  endHead: B,
  baseline: null,
  files: [{ path: 'docs/x.md', kind: 'modified', allowed: false, rule: 'outside every write glob' }],
  violations: [{ kind: 'path', message: 'docs/x.md is outside', path: 'docs/x.md' }],
  refChanges: [],
  commits: { gateway: [], others: [], direct: [B], unattributed: [], complete: true },
  pushes: [],
  others: [],
  identity: null,
  perPerimeter: {},
  unchecked: [],
  notes: [],
};
const recomputed: ReceiptJson = receiptJson(verdict, {
  repository: 'octo/widgets',
  context: 'perimeter',
  run: { id: '1', attempt: '1', job: 'implement', url: null },
  config: { file: 'perimeters.yml', ref: 'main', text: 'version: 1\n' },
  perimeters: ['implementer'],
  directPushes: 'check',
  ignoreRefs: [],
  window: { startedAt: '2026-12-01T10:00:00.000Z', endedAt: '2026-12-01T10:05:00.000Z' },
  refs: { start: {}, end: {} },
  ledger: { ok: true, commits: [], records: 4, head: 'f'.repeat(64), perPerimeter: {} },
  ledgerIncluded: true,
});

describe('compareReceipts', () => {
  it('finds nothing between a receipt and itself', () => {
    expect(compareReceipts(recomputed, structuredClone(recomputed))).toEqual([]);
  });

  describe('when the receipt says less than GitHub shows', () => {
    it('names each field that differs', () => {
      const forged: ReceiptJson = {
        ...recomputed,
        state: 'success',
        violations: [],
        files: [],
        commits: { ...recomputed.commits, direct: [] },
        ledger: { ...recomputed.ledger, records: 3 },
      };
      expect(compareReceipts(forged, recomputed).map((d) => d.field)).toEqual([
        'state',
        'violations',
        'files',
        'commits',
        'ledger',
      ]);
    });

    it('names what could not be checked now', () => {
      const now = { ...recomputed, unchecked: ['the activity list'] };
      expect(compareReceipts(recomputed, now)).toEqual([
        { field: 'unchecked', message: 'not checked now: the activity list' },
      ]);
    });
  });
});
