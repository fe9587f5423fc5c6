import type { CallRecord } from '../ledger/index.js';
import { toolNature, type Perimeter } from '../policy/index.js';
import type { Refusal } from './replay-judge.js';

/**
 * `perimeter replay --ledger`: a run's recorded calls judged by the path rules of two configs. Only what
 * the rules alone decide is judged: which perimeter and tool exist, the files the tools that serve content
 * read (get_file, get_files, search, blame, diff: the catalogue's `serves: 'content'`) and the paths the
 * writing tools write (push_files). Tree listings and history depend on what the repository held, so they are
 * shown and not judged. Free of I/O.
 */
/** The fields of a ledger's call record (src/ledger/record.ts) that replay judges, and its number. */
export type LedgerCall = Pick<CallRecord, 'perimeter' | 'tool' | 'paths' | 'decision'> & { seq: number };

export type CallState = 'allowed' | 'refused' | 'not judged';

export interface CallVerdict {
  state: CallState;
  refused: Refusal[];
}

export interface CallChange {
  seq: number;
  perimeter: string;
  tool: string;
  /** What the gateway decided during the run (it also refuses for content, limits and upstream state). */
  recorded: string;
  before: CallVerdict;
  after: CallVerdict;
}

const WITHHELD = '[withheld]';

/**
 * Calls from a ledger's JSONL text (the chain is `perimeter verify-ledger`'s to check: replay asks what a
 * proposal would change, not whether the record is genuine); lifecycle records are skipped.
 */
export function parseLedgerCalls(text: string): LedgerCall[] {
  const calls: LedgerCall[] = [];
  for (const [i, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(line) as Record<string, unknown>;
    } catch {
      throw new Error(`ledger line ${i + 1} is not JSON`);
    }
    if (record.event !== 'call') continue;
    const { perimeter, tool, paths, decision, seq } = record;
    if (typeof perimeter !== 'string' || typeof tool !== 'string' || !Array.isArray(paths))
      throw new Error(`ledger line ${i + 1}: a call record needs perimeter, tool and paths`);
    calls.push({
      seq: typeof seq === 'number' ? seq : i + 1,
      perimeter,
      tool,
      paths: paths.filter((p): p is string => typeof p === 'string'),
      decision: decision === 'allowed' || decision === 'refused' ? decision : 'failed',
    });
  }
  return calls;
}

export function judgeCall(call: LedgerCall, perimeters: ReadonlyMap<string, Perimeter>): CallVerdict {
  const perimeter = perimeters.get(call.perimeter);
  const all = (rule: string) => ({ state: 'refused' as const, refused: [{ path: call.tool, rule }] });
  if (perimeter === undefined) return all(`no perimeter ${JSON.stringify(call.perimeter)}`);
  if (!perimeter.tools.has(call.tool as never)) return all(`no ${call.tool} tool in ${perimeter.name}`);
  const nature = toolNature(call.tool);
  const judged = nature !== undefined && (nature.writes || nature.serves === 'content');
  // Paths that carried a secret were withheld from the ledger: nothing to judge them by.
  if (!judged || call.paths.includes(WITHHELD)) return { state: 'not judged', refused: [] };
  const writes = nature.writes;
  const refused: Refusal[] = [];
  for (const path of call.paths) {
    const decision = writes ? perimeter.canWrite(path) : perimeter.canRead(path);
    if (!decision.allowed) refused.push({ path, rule: decision.rule });
  }
  return { state: refused.length === 0 ? 'allowed' : 'refused', refused };
}

const key = (verdict: CallVerdict) =>
  `${verdict.state}:${verdict.refused.map((r) => `${r.path}\n${r.rule}`).join('\n')}`;

/** Every call the two configs judge differently. */
export function compareCalls(
  calls: readonly LedgerCall[],
  base: ReadonlyMap<string, Perimeter>,
  proposed: ReadonlyMap<string, Perimeter>,
): CallChange[] {
  const changes: CallChange[] = [];
  for (const call of calls) {
    const before = judgeCall(call, base);
    const after = judgeCall(call, proposed);
    if (key(before) === key(after)) continue;
    changes.push({
      seq: call.seq,
      perimeter: call.perimeter,
      tool: call.tool,
      recorded: call.decision,
      before,
      after,
    });
  }
  return changes;
}
