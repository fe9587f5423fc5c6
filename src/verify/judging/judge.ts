import type { PushActivity } from '../../github/index.js';
import { judgeCommit } from './commit-judge.js';
import { decideFile, fileViolation } from './file-decisions.js';
import { ZERO_SHA } from '../gathering/ref-accounting.js';
import { refFindings } from './ref-findings.js';
import { receiptFindings } from './receipt-findings.js';
import { short } from './short.js';
import type {
  CommitAttribution,
  FileDecision,
  JobFacts,
  PerimeterCounts,
  Verdict,
  Violation,
} from '../types.js';

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

/**
 * The verdict on a job, without I/O: the bound branch (deleted, rewritten, held something its end does not
 * contain), each changed file and each commit as a whole (the one rule), every other ref, the ledger and the
 * attribution of commits, forged receipts and require-changes. A violation makes it `failure`; else anything
 * unchecked makes it `error`; else `success`.
 */
export function judge(facts: JobFacts): Verdict {
  const unchecked = [...facts.unchecked];
  const notes = [...facts.notes];
  const branch = boundBranchViolations(facts);
  const files = fileDecisions(facts);
  const fileFindings = fileViolations(facts, files);
  const commitFindings = wholeCommits(facts, [...branch, ...fileFindings], unchecked);
  const refs = refFindings(facts);
  unchecked.push(...ledgerGaps(facts));
  const commits = attribute(facts);
  const pushes = pushFindings(facts, commits, unchecked, notes);
  const forged = receiptFindings(facts, notes);
  const violations = [
    ...branch,
    ...fileFindings,
    ...commitFindings,
    ...refs.violations,
    ...pushes,
    ...forged,
    ...undelivered(facts, files, commits),
  ];
  const state = violations.length > 0 ? 'failure' : unchecked.length > 0 ? 'error' : 'success';
  const moves = [...(facts.branchMoves?.values() ?? [])].flatMap((history) => history.moves);
  return {
    receiptOn: receiptCommits(state, facts, violations, moves),
    state,
    branch: facts.branch,
    startHead: facts.startHead,
    endHead: facts.endHead,
    baseline: facts.baseline,
    files,
    violations,
    refChanges: refs.judged,
    commits,
    pushes: moves,
    others: refs.others,
    identity: facts.identity,
    perPerimeter: facts.ledger?.perPerimeter ?? {},
    calls: facts.ledger === null ? null : callsOf(facts.ledger.perPerimeter),
    ...(facts.stagedCommits !== undefined ? { staged: facts.stagedCommits } : {}),
    unchecked,
    notes,
  };
}

/** The bound branch deleted, its history rewritten, or holding during the job what its end does not contain. */
function boundBranchViolations(facts: JobFacts): Violation[] {
  const ref = `refs/heads/${facts.branch}`;
  const violations: Violation[] = [];
  const readOnly = facts.tokenWroteNothing;
  if (facts.startHead !== null && facts.endHead === null && readOnly === undefined) {
    violations.push({
      kind: 'branch-deleted',
      ref,
      message: `branch "${facts.branch}" was deleted during the job`,
    });
  }
  if (facts.historyRewritten === true) {
    violations.push({
      kind: 'history',
      ref,
      message: `history of "${facts.branch}" was rewritten: ${short(facts.startHead)} is not an ancestor of ${short(facts.endHead)}`,
    });
  }
  if (readOnly === undefined) violations.push(...boundBranchMoves(facts));
  return violations;
}

/** Each changed path decided: the net change, then what single commits changed and later ones undid. */
function fileDecisions(facts: JobFacts): FileDecision[] {
  return [
    ...facts.changes.map((change) => decideFile(change, facts.branch, facts.perimeters)),
    ...facts.intermediate.map((change) => ({
      ...decideFile(change, facts.branch, facts.perimeters),
      transient: true,
    })),
  ];
}

/** A violation for each refused file, with the commits that made it where they are known. */
function fileViolations(facts: JobFacts, files: readonly FileDecision[]): Violation[] {
  const madeIn = commitsBehind(facts);
  return files
    .filter((file) => !file.allowed)
    .map((file) => {
      const violation = fileViolation(file);
      const commits = madeIn(file.path);
      return commits.length > 0 ? { ...violation, madeIn: commits } : violation;
    });
}

/** Why the commits could not be attributed: no ledger, or a broken one. */
function ledgerGaps(facts: JobFacts): string[] {
  const unchecked: string[] = [];
  if (facts.ledger === null) {
    if (facts.ledgerExpected !== false)
      unchecked.push('there is no gateway ledger, so commits could not be attributed');
    else if (facts.directPushes === 'deny')
      unchecked.push(
        'direct-pushes: deny needs the gateway ledger to tell its commits from direct pushes, and a verify job trusts none',
      );
  } else if (!facts.ledger.ok)
    unchecked.push(`the gateway ledger is broken: ${facts.ledger.problem ?? 'unknown problem'}`);
  return unchecked;
}

/** Commits around the gateway under direct-pushes, and whether every new commit and move was seen. */
function pushFindings(
  facts: JobFacts,
  commits: CommitAttribution,
  unchecked: string[],
  notes: string[],
): Violation[] {
  const branchRef = `refs/heads/${facts.branch}`;
  const violations: Violation[] = [];
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
  return violations;
}

/** require-changes: a job that changed nothing on its branch had work to deliver. */
function undelivered(
  facts: JobFacts,
  files: readonly FileDecision[],
  commits: CommitAttribution,
): Violation[] {
  const newCommits = commits.gateway.length + commits.direct.length + commits.unattributed.length;
  if (facts.requireChanges !== true || files.length > 0 || newCommits > 0) return [];
  return [
    {
      kind: 'no-change',
      ref: `refs/heads/${facts.branch}`,
      message: `the job changed nothing on "${facts.branch}", and require-changes is on: it had work to deliver`,
    },
  ];
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
