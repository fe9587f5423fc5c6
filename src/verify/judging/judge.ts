import type { PushActivity } from '../../github/index.js';
import { compileGlobList } from '../../policy/index.js';
import { judgeCommit } from './commit-judge.js';
import { decideFile, fileViolation } from './file-decisions.js';
import { movedByOthersOnly } from '../gathering/others.js';
import { isInertMarker, ZERO_SHA } from '../gathering/ref-accounting.js';
import type {
  CommitAttribution,
  ForeignCheckRun,
  ForeignStatus,
  JobFacts,
  OtherChange,
  PerimeterCounts,
  RefChange,
  RefSnapshot,
  Verdict,
  Violation,
} from '../types.js';

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

/**
 * The new commits that changed a path, oldest first, each with who pushed it: the actor of the bound
 * branch's first move (in GitHub's activity list) that brought the branch to it or past it. Only where the
 * gathering looked at each commit on its own (facts.pathCommits); else none.
 */
function commitsBehind(facts: JobFacts): (path: string) => Array<{ sha: string; pusher: string | null }> {
  const order = [...(facts.newCommits?.shas ?? [])].reverse();
  const position = new Map(order.map((sha, index) => [sha, index]));
  const moves = facts.branchMoves?.get(`refs/heads/${facts.branch}`)?.moves ?? [];
  const pusher = (sha: string): string | null => {
    const at = position.get(sha)!;
    const move = moves.find((m) => (position.get(m.after) ?? -1) >= at);
    return move?.actor ?? null;
  };
  return (path) =>
    (facts.pathCommits?.get(path) ?? [])
      .filter((sha) => position.has(sha))
      .sort((a, b) => position.get(a)! - position.get(b)!)
      .map((sha) => ({ sha, pusher: pusher(sha) }));
}

/**
 * Each of this job's new commits by the one rule (judgeCommit): one perimeter may make the whole commit,
 * within its limits, no credential in its content. What the path-by-path decisions above already named is
 * not named again.
 */
function wholeCommits(facts: JobFacts, named: readonly Violation[], unchecked: string[]): Violation[] {
  const commits = facts.commitChanges;
  if (commits === undefined) {
    const ours = (facts.newCommits?.shas ?? []).filter((sha) => !facts.otherCommits.includes(sha));
    if (ours.length > 0 && facts.tokenWroteNothing === undefined && named.length === 0)
      unchecked.push(`each of the ${ours.length} new commit(s) as a whole: they were not each looked at`);
    return [];
  }
  const paths = new Set(named.flatMap((v) => (v.path === undefined ? [] : [v.path])));
  const found: Violation[] = [];
  for (const { sha, changes } of commits) {
    const judged = judgeCommit(
      { label: `commit ${short(sha)}`, changes, blob: (blob) => facts.blobs?.get(blob) },
      facts.branch,
      facts.perimeters,
    );
    unchecked.push(...judged.unchecked);
    for (const violation of judged.violations)
      if (violation.path === undefined || !paths.has(violation.path)) {
        found.push(
          violation.path === undefined ? violation : { ...violation, madeIn: [{ sha, pusher: null }] },
        );
        if (violation.path !== undefined) paths.add(violation.path);
      }
  }
  return found;
}

function attribute(facts: JobFacts): CommitAttribution {
  const shas = facts.newCommits?.shas ?? [];
  const complete = facts.newCommits?.complete ?? false;
  const theirs = new Set(facts.otherCommits);
  const ours = shas.filter((sha) => !theirs.has(sha));
  const others = shas.filter((sha) => theirs.has(sha));
  if (!facts.ledger?.ok) return { gateway: [], direct: [], others, unattributed: ours, complete };
  const made = new Set(facts.gatewayCommits);
  return {
    gateway: ours.filter((sha) => made.has(sha)),
    direct: ours.filter((sha) => !made.has(sha)),
    others,
    unattributed: [],
    complete,
  };
}

const short = (sha: string | null): string =>
  sha === null || sha === ZERO_SHA ? 'nothing' : sha.slice(0, 7);

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

/**
 * Every head the bound branch held during the job must be its start head (or, for a branch created during
 * the job, the commit it was compared with) or a new commit of its end head:
 * then every commit it ever pointed at is in the history that was examined. A deletion in between, or a head
 * the end does not contain (a force push away and back), breaks that, and is a violation of its own.
 */
function boundBranchMoves(facts: JobFacts): Violation[] {
  const ref = `refs/heads/${facts.branch}`;
  const moves = facts.branchMoves?.get(ref)?.moves ?? [];
  const violations: Violation[] = [];
  const deletion = facts.endHead !== null ? moves.find((move) => move.after === ZERO_SHA) : undefined;
  if (deletion) {
    violations.push({
      kind: 'branch-deleted',
      ref,
      message: `branch "${facts.branch}" was deleted during the job (by ${deletion.actor ?? 'unknown'}) and created again; what it held in between was not checked`,
    });
  }
  if (facts.historyRewritten === true || facts.endHead === null || facts.newCommits?.complete !== true)
    return violations;
  const known = new Set([facts.startHead, facts.baseline?.sha, ...facts.newCommits.shas]);
  const lost = moves.find((move) => move.after !== ZERO_SHA && !known.has(move.after));
  if (lost) {
    violations.push({
      kind: 'history',
      ref,
      message: `"${facts.branch}" held ${short(lost.after)} during the job (${lost.activityType} by ${lost.actor ?? 'unknown'}), which its end head does not contain: history was rewritten and the commits in between were not checked`,
    });
  }
  return violations;
}

/** Forged statuses on one commit named one by one; more are named together (an agent may post a thousand). */
const FORGED_NAMED_ONE_BY_ONE = 3;

/**
 * A status on the receipt's context posted during the job that Perimeter did not post: someone with the job's
 * access (the agent, with the token it read from the gateway) posted a receipt of its own.
 */
function forgedReceipts(foreign: ForeignStatus[]): Violation[] {
  const bySha = new Map<string, ForeignStatus[]>();
  for (const found of foreign.filter((f) => f.inWindow))
    bySha.set(found.sha, [...(bySha.get(found.sha) ?? []), found]);
  return [...bySha].flatMap(([sha, found]) => {
    const describe = ({ status }: ForeignStatus): string =>
      `a "${status.state}" status on "${status.context}" of ${short(sha)} (id ${status.id}, by ${status.creator ?? 'unknown'}, ${status.createdAt})`;
    if (found.length <= FORGED_NAMED_ONE_BY_ONE)
      return found.map((f) => ({
        kind: 'forged-receipt' as const,
        message: `forged receipt: ${describe(f)} was posted during the job, not by Perimeter`,
      }));
    const states = [...new Set(found.map((f) => f.status.state))].join(', ');
    return [
      {
        kind: 'forged-receipt' as const,
        message: `forged receipt: ${found.length} statuses (${states}) on "${found[0]!.status.context}" of ${short(sha)} were posted during the job, not by Perimeter; the newest: ${describe(found[0]!)}`,
      },
    ];
  });
}

/** A check run named like the receipt, not Perimeter's: the agent's token can create one as github-actions. */
function forgedCheckRuns(foreign: ForeignCheckRun[]): Violation[] {
  return foreign.map(({ sha, run }) => ({
    kind: 'forged-receipt' as const,
    message: `forged receipt: a check run "${run.name}" (${run.conclusion ?? run.status}) on ${short(sha)} (id ${run.id}, app ${run.app ?? 'unknown'}, started ${run.startedAt ?? 'at no stated time'}) was created during the job or claims a later time, not by Perimeter`,
  }));
}

export function judge(facts: JobFacts): Verdict {
  const branchRef = `refs/heads/${facts.branch}`;
  const violations: Violation[] = [];
  const unchecked = [...facts.unchecked];
  const notes = [...facts.notes];

  const readOnly = facts.tokenWroteNothing;
  if (facts.startHead !== null && facts.endHead === null && readOnly === undefined) {
    violations.push({
      kind: 'branch-deleted',
      ref: branchRef,
      message: `branch "${facts.branch}" was deleted during the job`,
    });
  }
  if (facts.historyRewritten === true) {
    violations.push({
      kind: 'history',
      ref: branchRef,
      message: `history of "${facts.branch}" was rewritten: ${short(facts.startHead)} is not an ancestor of ${short(facts.endHead)}`,
    });
  }

  if (readOnly === undefined) violations.push(...boundBranchMoves(facts));

  const files = [
    ...facts.changes.map((change) => decideFile(change, facts.branch, facts.perimeters)),
    ...facts.intermediate.map((change) => ({
      ...decideFile(change, facts.branch, facts.perimeters),
      transient: true,
    })),
  ];
  const madeIn = commitsBehind(facts);
  for (const file of files)
    if (!file.allowed) {
      const violation = fileViolation(file);
      const commits = madeIn(file.path);
      violations.push(commits.length > 0 ? { ...violation, madeIn: commits } : violation);
    }

  violations.push(...wholeCommits(facts, violations, unchecked));

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
  const refChanges = facts.refChanges.filter((change) => change.ref !== branchRef && !inert(change.ref));
  for (const change of refChanges) {
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

  if (facts.ledger === null) {
    if (facts.ledgerExpected !== false)
      unchecked.push('there is no gateway ledger, so commits could not be attributed');
    else if (facts.directPushes === 'deny')
      unchecked.push(
        'direct-pushes: deny needs the gateway ledger to tell its commits from direct pushes, and a verify job trusts none',
      );
  } else if (!facts.ledger.ok)
    unchecked.push(`the gateway ledger is broken: ${facts.ledger.problem ?? 'unknown problem'}`);

  const commits = attribute(facts);
  if (facts.directPushes === 'deny' && commits.direct.length > 0) {
    violations.push({
      kind: 'direct-push',
      ref: branchRef,
      message: `${commits.direct.length} commit(s) reached "${facts.branch}" without the gateway (direct-pushes: deny): ${commits.direct.map(short).join(', ')}`,
    });
  }
  if (facts.newCommits === null && facts.endHead !== facts.startHead)
    unchecked.push('the new commits could not be listed');
  else if (facts.newCommits !== null && !facts.newCommits.complete)
    unchecked.push('not every new commit could be listed, so not each one was examined');
  if (facts.branchMoves === null && !unchecked.some((item) => item.includes('activity list')))
    unchecked.push("the branch moves during the job: GitHub's activity list was not read");
  if (commits.direct.length > 0 && facts.directPushes === 'check') {
    notes.push(
      `${commits.direct.length} commit(s) were pushed without the gateway (allowed by direct-pushes: check)`,
    );
  }

  violations.push(...forgedReceipts(facts.foreignStatuses ?? []));
  violations.push(...forgedCheckRuns(facts.foreignCheckRuns ?? []));
  for (const { sha, status } of (facts.foreignStatuses ?? []).filter((f) => !f.inWindow))
    notes.push(
      `a "${status.state}" status on "${status.context}" of ${short(sha)} was posted after the job ended (id ${status.id}, by ${status.creator ?? 'unknown'}, ${status.createdAt}): not the job's, and not this receipt`,
    );

  const newCommits = commits.gateway.length + commits.direct.length + commits.unattributed.length;
  if (facts.requireChanges === true && files.length === 0 && newCommits === 0)
    violations.push({
      kind: 'no-change',
      ref: branchRef,
      message: `the job changed nothing on "${facts.branch}", and require-changes is on: it had work to deliver`,
    });
  const state = violations.length > 0 ? 'failure' : unchecked.length > 0 ? 'error' : 'success';
  const pushes = [...(facts.branchMoves?.values() ?? [])].flatMap((history) => history.moves);
  return {
    receiptOn: receiptCommits(state, facts, violations, pushes),
    state,
    branch: facts.branch,
    startHead: facts.startHead,
    endHead: facts.endHead,
    baseline: facts.baseline,
    files,
    violations,
    refChanges,
    commits,
    pushes,
    others,
    identity: facts.identity,
    perPerimeter: facts.ledger?.perPerimeter ?? {},
    calls: facts.ledger === null ? null : callsOf(facts.ledger.perPerimeter),
    ...(facts.stagedCommits !== undefined ? { staged: facts.stagedCommits } : {}),
    unchecked,
    notes,
  };
}

function callsOf(perPerimeter: Record<string, PerimeterCounts>): NonNullable<Verdict['calls']> {
  const counts = Object.values(perPerimeter);
  return {
    answered: counts.reduce((n, c) => n + c.calls, 0),
    refused: counts.reduce((n, c) => n + c.refusals, 0),
  };
}

/**
 * Where the receipt goes: the bound branch's head; and, unless it is a success, every commit a ref the
 * verdict names held during the job (a branch created, forced back or deleted keeps no head a reviewer
 * could otherwise see judged) and every commit a forged receipt was found on, so a `failure` outranks it.
 */
function receiptCommits(
  state: Verdict['state'],
  facts: JobFacts,
  violations: readonly Violation[],
  pushes: readonly PushActivity[],
): string[] {
  const head = facts.endHead ?? facts.startHead;
  if (state === 'success') return head === null ? [] : [head];
  const named = new Set(violations.map((v) => v.ref).filter((ref): ref is string => ref !== undefined));
  const held = [
    ...pushes.filter((move) => named.has(move.ref)).flatMap((move) => [move.after, move.before]),
    ...facts.refChanges.filter((change) => named.has(change.ref)).map((change) => change.after),
  ];
  const forged = [
    ...(facts.foreignStatuses ?? []).filter((found) => found.inWindow).map((found) => found.sha),
    ...(facts.foreignCheckRuns ?? []).map((found) => found.sha),
  ];
  return [...new Set([head, ...held, ...forged].filter((sha): sha is string => !!sha && sha !== ZERO_SHA))];
}
