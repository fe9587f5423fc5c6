import { describe, expect, it } from 'vitest';
import {
  parseReceiptJson,
  receiptJson,
  ReceiptFormatError,
  type ReceiptContext,
  type Verdict,
} from '../../src/verify/index.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);

const verdict: Verdict = {
  state: 'failure',
  branch: 'agent/work',
  startHead: A,
  endHead: B,
  baseline: { sha: A, label: 'the start of the job' },
  files: [{ path: 'docs/x.md', kind: 'modified', allowed: false, rule: 'outside every write glob' }],
  violations: [{ kind: 'path', message: 'docs/x.md is outside every write glob', path: 'docs/x.md' }],
  refChanges: [],
  commits: { gateway: [], others: [], direct: [B], unattributed: [], complete: true },
  pushes: [],
  others: [],
  identity: 'github-actions[bot]',
  perPerimeter: {},
  unchecked: [],
  notes: ['a note'],
};

const context: ReceiptContext = {
  repository: 'octo/widgets',
  context: 'perimeter',
  run: { id: '1', attempt: '1', job: 'implement', url: null },
  config: { file: 'perimeters.yml', ref: 'main', text: 'version: 1\n' },
  perimeters: ['implementer'],
  directPushes: 'check',
  ignoreRefs: [],
  window: { startedAt: '2026-12-01T10:00:00.000Z', endedAt: '2026-12-01T10:05:00.000Z' },
  refs: { start: { 'refs/heads/agent/work': A }, end: { 'refs/heads/agent/work': B } },
  ledger: { ok: true, commits: [], records: 3, head: 'f'.repeat(64), perPerimeter: {} },
  ledgerIncluded: true,
};

describe('the JSON receipt', () => {
  it('carries the verdict and the facts an audit needs, and reads back the same', () => {
    const json = receiptJson(verdict, context);
    expect(json).toMatchObject({
      schema: 'perimeter-receipt',
      version: 1,
      state: 'failure',
      violations: [{ kind: 'path', path: 'docs/x.md' }],
      // the config named by git's own blob SHA: `printf 'version: 1\n' | git hash-object --stdin`
      config: { file: 'perimeters.yml', ref: 'main', blobSha: 'b82551848c644f63b8517a7bdf8be9a992e6f4da' },
      heads: { start: A, end: B },
      ledger: { included: true, ok: true, problem: null, records: 3, head: 'f'.repeat(64) },
    });
    expect(parseReceiptJson(JSON.stringify(json))).toEqual(json);
  });

  describe('when the text is not a receipt this version reads', () => {
    const good = receiptJson(verdict, context);
    it.each([
      ['not JSON', '{', /receipt.json: not JSON/],
      [
        'another version',
        JSON.stringify({ ...good, version: 2 }),
        /receipt version 2, this perimeter reads version 1/,
      ],
      ['an unknown state', JSON.stringify({ ...good, state: 'fine' }), /state: /],
      ['an extra field', JSON.stringify({ ...good, trusted: true }), /not a Perimeter receipt/],
      [
        'a bad head',
        JSON.stringify({ ...good, heads: { start: 'x', end: B } }),
        /heads.start: a 40-character commit SHA/,
      ],
    ])('throws for %s, naming the field', (_, text, message) => {
      expect(() => parseReceiptJson(text)).toThrow(ReceiptFormatError);
      expect(() => parseReceiptJson(text)).toThrow(message);
    });
  });
});
