import type { ReceiptJson } from './receipt-json.js';

/**
 * Where a receipt and the verdict recomputed from GitHub disagree, field by field. Pure: the audit gathers
 * both, this names the differences in words an owner can act on.
 */
export interface Disagreement {
  field: 'state' | 'violations' | 'unchecked' | 'files' | 'commits' | 'ledger';
  message: string;
}

const violationKey = (v: ReceiptJson['violations'][number]) => `${v.kind} ${v.path ?? v.ref ?? v.message}`;
const fileKey = (f: ReceiptJson['files'][number]) =>
  `${f.path} ${f.kind} ${f.allowed ? 'allowed' : 'refused'}`;

function missing<T>(from: T[], inside: T[], key: (t: T) => string): T[] {
  const keys = new Set(inside.map(key));
  return from.filter((item) => !keys.has(key(item)));
}

export function compareReceipts(recorded: ReceiptJson, recomputed: ReceiptJson): Disagreement[] {
  const out: Disagreement[] = [];
  if (recorded.state !== recomputed.state)
    out.push({
      field: 'state',
      message: `the receipt says ${recorded.state}, GitHub shows ${recomputed.state}: ${recomputed.description}`,
    });
  for (const v of missing(recomputed.violations, recorded.violations, violationKey))
    out.push({ field: 'violations', message: `not in the receipt: ${v.message}` });
  for (const v of missing(recorded.violations, recomputed.violations, violationKey))
    out.push({ field: 'violations', message: `in the receipt, not shown by GitHub: ${v.message}` });
  for (const u of missing(recomputed.unchecked, recorded.unchecked, (s) => s))
    out.push({ field: 'unchecked', message: `not checked now: ${u}` });
  for (const f of missing(recomputed.files, recorded.files, fileKey))
    out.push({
      field: 'files',
      message: `${f.path}: ${f.kind}, ${f.allowed ? 'allowed' : 'refused'} (${f.rule}), which the receipt does not say`,
    });
  for (const f of missing(recorded.files, recomputed.files, fileKey))
    out.push({
      field: 'files',
      message: `${f.path}: the receipt says ${f.kind}, ${f.allowed ? 'allowed' : 'refused'}; GitHub does not show that`,
    });
  for (const kind of ['gateway', 'direct', 'others', 'unattributed'] as const) {
    const a = [...recorded.commits[kind]].sort().join(',');
    const b = [...recomputed.commits[kind]].sort().join(',');
    if (a !== b)
      out.push({
        field: 'commits',
        message: `${kind} commits: the receipt lists ${recorded.commits[kind].length}, GitHub shows ${recomputed.commits[kind].length}`,
      });
  }
  const [l, r] = [recorded.ledger, recomputed.ledger];
  if (l.ok !== r.ok || l.records !== r.records || l.head !== r.head)
    out.push({
      field: 'ledger',
      message: `the receipt says the ledger ${l.ok ? 'verified' : 'did not verify'} with ${l.records} records ending at ${l.head?.slice(0, 12) ?? 'none'}; the record's ledger ${r.ok ? 'verifies' : `does not (${r.problem ?? 'unknown'})`} with ${r.records} ending at ${r.head?.slice(0, 12) ?? 'none'}`,
    });
  return out;
}
