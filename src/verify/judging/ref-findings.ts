import type { PushActivity } from '../../github/index.js';
import { compileGlobList } from '../../policy/index.js';
import { movedByOthersOnly } from '../gathering/others.js';
import { isInertMarker } from '../gathering/ref-accounting.js';
import type { JobFacts, OtherChange, RefChange, RefSnapshot, Violation } from '../types.js';
import { short } from './short.js';

/** Refs created, moved or deleted between two snapshots, sorted by name. */
export function compareSnapshots(start: RefSnapshot, end: RefSnapshot): RefChange[] {
  const changes: RefChange[] = [];
  for (const ref of [...new Set([...Object.keys(start), ...Object.keys(end)])].sort()) {
    const before = start[ref] ?? null;
    const after = end[ref] ?? null;
    if (before === after) continue;
    const kind = before === null ? 'created' : after === null ? 'deleted' : 'moved';
    changes.push({ ref, kind, before, after });
  }
  return changes;
}

function describeMoves(moves: PushActivity[]): string {
  const shown = moves
    .slice(0, 5)
    .map(
      (move) =>
        `${move.activityType} by ${move.actor ?? 'unknown'}, ${short(move.before)} → ${short(move.after)}`,
    );
  return moves.length > shown.length
    ? `${shown.join('; ')}; ${moves.length - shown.length} more`
    : shown.join('; ');
}

/** Every other ref changed during the job: someone else's (listed), or this job's (a violation). */
export function refFindings(facts: JobFacts): {
  violations: Violation[];
  others: OtherChange[];
  judged: RefChange[];
} {
  const branchRef = `refs/heads/${facts.branch}`;
  const readOnly = facts.tokenWroteNothing;
  const violations: Violation[] = [];
  const inert = (ref: string): boolean => {
    const moves = facts.branchMoves?.get(ref)?.moves ?? [];
    const change = facts.refChanges.find((c) => c.ref === ref);
    const held = [...moves.flatMap((m) => [m.before, m.after]), change?.before, change?.after];
    return isInertMarker(
      ref,
      held.filter((sha): sha is string => typeof sha === 'string'),
      facts.start,
    );
  };
  const ignored = compileGlobList(facts.ignoreRefs);
  const others: OtherChange[] = [];
  /** Someone else's change (listed), or null: this job's, to be judged. */
  const otherChange = (ref: string): OtherChange | null => {
    const moves = facts.branchMoves?.get(ref)?.moves ?? [];
    const actors = [...new Set(moves.map((move) => move.actor ?? 'unknown'))];
    if (readOnly !== undefined) return { ref, actors, why: "this job's token may not write the repository" };
    if (ref.startsWith('refs/heads/') && movedByOthersOnly(moves, facts.identity))
      return { ref, actors, why: 'moved by others only' };
    const glob = ignored.find(ref);
    return glob === null ? null : { ref, actors, why: `ignore-refs: ${glob}` };
  };
  /** Why a change by this job's identity is judged though another workflow may have made it. */
  const sameIdentity = (ref: string): string => {
    const moves = facts.branchMoves?.get(ref)?.moves ?? [];
    if (!ref.startsWith('refs/heads/'))
      return ` (GitHub records no actor for refs outside refs/heads; name it in ignore-refs if another workflow changes it)`;
    if (facts.identity !== null && moves.some((move) => move.actor === facts.identity))
      return ` (by ${facts.identity}, the identity of this job's token: another workflow with the same token cannot be told apart; name it in ignore-refs if one changes it)`;
    return '';
  };
  const bound = facts.refChanges.find((change) => change.ref === branchRef);
  if (bound !== undefined && readOnly !== undefined) others.push(otherChange(branchRef)!);
  const judged = facts.refChanges.filter((change) => change.ref !== branchRef && !inert(change.ref));
  for (const change of judged) {
    const other = otherChange(change.ref);
    if (other) {
      others.push(other);
      continue;
    }
    violations.push({
      kind: 'ref',
      ref: change.ref,
      message: `${change.ref} was ${change.kind} during the job (${short(change.before)} → ${short(change.after)}); only "${facts.branch}" may change${sameIdentity(change.ref)}`,
    });
  }

  for (const [ref, history] of facts.branchMoves ?? []) {
    if (ref === branchRef || inert(ref) || facts.refChanges.some((change) => change.ref === ref)) continue;
    const other = otherChange(ref);
    if (other) {
      others.push(other);
      continue;
    }
    violations.push({
      kind: 'ref',
      ref,
      message: `${ref} was changed during the job and changed back (${describeMoves(history.moves)}); only "${facts.branch}" may change${sameIdentity(ref)}`,
    });
  }
  return { violations, others, judged };
}
