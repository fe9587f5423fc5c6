import type { JudgingRules } from '../types.js';
import type { ReceiptJson } from './receipt-json.js';

/**
 * Where a receipt and the verdict recomputed from GitHub disagree, field by field. Pure: the audit gathers
 * both, this names the differences in words an owner can act on.
 */
export interface Disagreement {
  field:
    | 'state'
    | 'violations'
    | 'unchecked'
    | 'files'
    | 'commits'
    | 'ledger'
    | 'config'
    | 'perimeters'
    | 'direct-pushes'
    | 'require-changes'
    | 'ignore-refs'
    | 'window';
  message: string;
}

/**
 * The workflow's own values, as the owner passes them to the audit (each optional; `perimeters` null: `all`,
 * every perimeter of the trusted file, as trust rules narrow it). A record is written by the agent's job, so
 * what it says it was told is checked against these, never taken.
 */
export type ExpectedSettings = Partial<
  Pick<
    JudgingRules,
    'configFile' | 'configRef' | 'perimeters' | 'directPushes' | 'requireChanges' | 'ignoreRefs'
  >
>;

const list = (items: string[]): string => (items.length === 0 ? 'none' : items.join(', '));
const sameSet = (a: string[], b: string[]): boolean =>
  a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');

/**
 * Where the record's settings differ from the workflow's. `all` perimeters admits any subset of the trusted
 * file's (a trust rule may narrow what a run exposes); a named list must be the record's exactly.
 */
export function compareSettings(
  recorded: ReceiptJson,
  expected: ExpectedSettings,
  defined: string[],
): Disagreement[] {
  const out: Disagreement[] = [];
  if (expected.configFile !== undefined && expected.configFile !== recorded.config.file)
    out.push({
      field: 'config',
      message: `the record names the perimeters file ${JSON.stringify(recorded.config.file)}, the workflow ${JSON.stringify(expected.configFile)}`,
    });
  if (expected.configRef !== undefined && expected.configRef !== recorded.config.ref)
    out.push({
      field: 'config',
      message: `the record says the perimeters were read at ${JSON.stringify(recorded.config.ref)}, the workflow reads them at ${JSON.stringify(expected.configRef)}`,
    });
  if (expected.perimeters !== undefined) {
    const allowed = expected.perimeters ?? defined;
    const extra = recorded.perimeters.filter((name) => !allowed.includes(name));
    if (extra.length > 0 || (expected.perimeters !== null && !sameSet(recorded.perimeters, allowed)))
      out.push({
        field: 'perimeters',
        message: `the record says the job exposed ${list(recorded.perimeters)}; the workflow exposes ${expected.perimeters === null ? `all (${list(defined)})` : list(allowed)}`,
      });
  }
  if (expected.directPushes !== undefined && expected.directPushes !== recorded.directPushes)
    out.push({
      field: 'direct-pushes',
      message: `the record says direct-pushes: ${recorded.directPushes}, the workflow sets ${expected.directPushes}`,
    });
  if (expected.requireChanges !== undefined && expected.requireChanges !== (recorded.requireChanges ?? false))
    out.push({
      field: 'require-changes',
      message: `the record says require-changes: ${recorded.requireChanges ?? false}, the workflow sets ${expected.requireChanges}`,
    });
  if (expected.ignoreRefs !== undefined && !sameSet(expected.ignoreRefs, recorded.ignoreRefs))
    out.push({
      field: 'ignore-refs',
      message: `the record ignores ${list(recorded.ignoreRefs)}; the workflow ignores ${list(expected.ignoreRefs)}`,
    });
  return out;
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
