import type { CommitInfo, RepoReads } from '../github/index.js';
import { diffTrees } from './gathering/diff-trees.js';
import {
  diffEachCommit,
  intermediateChanges,
  listCommitsAbove,
  listNewCommits,
  type NewCommits,
  type PathCommits,
} from './gathering/new-commits.js';
import { readBlobFacts } from './gathering/blob-facts.js';
import { createSecretFilter } from '../safety/index.js';
import { accountForMoves } from './gathering/activity.js';
import { commitsOfOthers, movedByOthersOnly } from './gathering/others.js';
import { compileGlobList } from '../policy/index.js';
import { judge } from './judging/judge.js';
import { compareSnapshots } from './judging/ref-findings.js';
import {
  findForeignCheckRuns,
  findForeignStatuses,
  MAX_STATUS_COMMITS,
  screenReceipts,
  MAX_STATUSES_PER_CONTEXT,
} from './gathering/receipt-statuses.js';
import { MARKER_PREFIX, ZERO_SHA } from './gathering/ref-accounting.js';
import type { Baseline, JobFacts, ReceiptWindow, RefSnapshot, Verdict, VerifyInput } from './types.js';

/** new commits listed (10 compare pages); a longer job is unchecked, never success */
const MAX_COMMITS = 1_000;
const MAX_COMMIT_DIFFS = 50;

/** All branch and tag heads, as a plain object (it travels from main to post as JSON). */
export async function snapshotRefs(upstream: RepoReads): Promise<RefSnapshot> {
  return Object.fromEntries(
    [...(await upstream.listRefs())].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
}

const reason = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * What the end head is compared with. A branch that existed at the start: its start head. A branch created
 * during the job: the default branch's start head when the new branch grew from it; otherwise nothing,
 * and every file on the branch counts as added (strict: nothing unchecked slips through).
 */
async function findBaseline(
  input: VerifyInput,
  startHead: string | null,
  endHead: string,
): Promise<Baseline> {
  if (startHead !== null) return { sha: startHead, label: 'the start of the job' };
  const { defaultBranch } = await input.upstream.getRepository();
  const defaultStart = input.start[`refs/heads/${defaultBranch}`];
  if (
    defaultBranch !== input.branch &&
    defaultStart &&
    (await input.upstream.isAncestor(defaultStart, endHead))
  ) {
    return {
      sha: defaultStart,
      label: `"${defaultBranch}" at the start of the job (the branch was created during the job)`,
    };
  }
  return {
    sha: null,
    label: `nothing: the branch was created during the job and does not grow from "${defaultBranch}", so every file counts as added`,
  };
}

/** The compare's file list from an ancestor to the end head (the request is shared with the ancestry check). */
async function changedFiles(upstream: RepoReads, base: string, endHead: string) {
  const comparison = await upstream.compare(base, endHead).catch(() => null);
  return comparison?.status === 'ahead' ? comparison.files : undefined;
}

/**
 * Recomputes from GitHub what changed during the job and judges it. Never throws for a failed look-up:
 * whatever could not be checked is named in `unchecked` and keeps the verdict from success.
 */
export async function verifyJob(input: VerifyInput): Promise<Verdict> {
  const { branch } = input;
  const ref = `refs/heads/${branch}`;
  const startHead = input.start[ref] ?? null;
  const endHead = input.end[ref] ?? null;
  const facts: JobFacts = {
    branch,
    startHead,
    endHead,
    baseline: null,
    historyRewritten: null,
    changes: [],
    intermediate: [],
    refChanges: compareSnapshots(input.start, input.end),
    start: input.start,
    newCommits: startHead === endHead || endHead === null ? { shas: [], complete: true } : null,
    gatewayCommits: [],
    otherCommits: [],
    identity: null,
    ignoreRefs: input.ignoreRefs ?? [],
    ...(input.stagedCommits !== undefined ? { stagedCommits: input.stagedCommits } : {}),
    ledger: input.ledger,
    directPushes: input.directPushes,
    perimeters: input.perimeters,
    branchMoves: null,
    unchecked: [...(input.problems ?? [])],
    notes: [UNRECORDED_REFS],
    ledgerExpected: input.ledgerExpected ?? true,
    requireChanges: input.requireChanges ?? false,
    foreignStatuses: [],
    foreignCheckRuns: [],
  };

  // Who moved what comes first: it decides which of the bound branch's new commits are this job's.
  await accountForMoves(input, facts);
  if (endHead === null) {
    if (startHead === null) facts.notes.push(`branch "${branch}" does not exist; nothing was pushed to it`);
  } else if (endHead !== startHead) {
    // a token that may not write moved nothing: the branch's new commits are others', listed, not examined
    if (facts.tokenWroteNothing !== undefined) facts.newCommits = { shas: [], complete: true };
    else await examineBranch(input, facts, endHead);
  }
  if (input.receiptWindow) await lookForForgedReceipts(input, input.receiptWindow, facts);
  return judge(facts);
}

/**
 * The statuses on the receipt's context on every commit a reviewer may look at after the job: every head any
 * branch held during the job (the bound branch's and each branch created, moved, forced back or deleted),
 * the end of every other ref that changed, and the bound branch's new commits. One the verification did not
 * expect is forged. Check runs too, when the receipt is one: on a commit made during the job any of the
 * receipt's name is forged, whatever times its creator claims.
 */
async function lookForForgedReceipts(input: VerifyInput, window: ReceiptWindow, facts: JobFacts) {
  // not the refs others moved or the owner named in ignore-refs: another job's receipt there is not forged
  const ignored = compileGlobList(input.ignoreRefs ?? []);
  const moves = [...(facts.branchMoves?.values() ?? [])]
    .filter(
      (history) =>
        history.ref === `refs/heads/${input.branch}` ||
        (!history.ref.startsWith(`refs/heads/${MARKER_PREFIX}`) &&
          !movedByOthersOnly(history.moves, facts.identity) &&
          ignored.find(history.ref) === null),
    )
    .flatMap((history) => history.moves);
  const newCommits = facts.newCommits?.shas ?? [];
  const shas = [
    ...new Set(
      [
        facts.startHead,
        facts.endHead,
        ...moves.flatMap((m) => [m.before, m.after]),
        ...facts.refChanges
          .filter((change) => ignored.find(change.ref) === null)
          .map((change) => change.after),
        ...newCommits,
      ].filter((sha): sha is string => sha !== null && sha !== ZERO_SHA),
    ),
  ];
  if (facts.newCommits === null || !facts.newCommits.complete)
    facts.unchecked.push(
      `the statuses on "${window.context}" of every new commit (the new commits could not all be listed)`,
    );
  if (shas.length > MAX_STATUS_COMMITS) {
    facts.unchecked.push(
      `the statuses on "${window.context}" of ${shas.length} commits (at most ${MAX_STATUS_COMMITS} are read)`,
    );
    return;
  }
  // every commit's receipts in one or two batched reads; REST only for those that hold a status
  const screen = await screenReceipts(input.upstream, shas, window);
  try {
    const found = await findForeignStatuses(input.upstream, shas, window, screen);
    facts.foreignStatuses = found.foreign;
    for (const sha of found.full)
      facts.unchecked.push(
        `a receipt on ${sha.slice(0, 7)}: its context "${window.context}" holds GitHub's most statuses a commit and context may have (${MAX_STATUSES_PER_CONTEXT}), so no status can be posted there; the check run carries this receipt`,
      );
  } catch (error) {
    facts.unchecked.push(`the statuses on "${window.context}" during the job: ${reason(error)}`);
  }
  if (!window.checkRuns) return;
  // made during the job: not held by any ref at its start
  const held = new Set(Object.values(input.start));
  const fresh = new Set([...newCommits, ...shas.filter((sha) => !held.has(sha))]);
  try {
    facts.foreignCheckRuns = await findForeignCheckRuns(input.upstream, shas, window, fresh, screen);
  } catch (error) {
    facts.unchecked.push(`the check runs named "${window.context}" during the job: ${reason(error)}`);
  }
}

/** Said in every receipt: what GitHub keeps no record of, so no verifier can see it (SECURITY.md). */
const UNRECORDED_REFS =
  'GitHub records moves of branches only: a tag or other non-branch ref created and deleted within the job leaves no trace, so refs outside refs/heads are checked by their start and end alone';

async function examineBranch(input: VerifyInput, facts: JobFacts, endHead: string): Promise<void> {
  const { upstream } = input;
  try {
    if (facts.startHead !== null)
      facts.historyRewritten = !(await upstream.isAncestor(facts.startHead, endHead));
  } catch (error) {
    facts.unchecked.push(`whether the history of "${input.branch}" was rewritten: ${reason(error)}`);
  }
  try {
    facts.baseline = await findBaseline(input, facts.startHead, endHead);
    if (facts.startHead === null)
      facts.notes.push(`"${input.branch}" was compared with ${facts.baseline.label}`);
  } catch (error) {
    facts.unchecked.push(`the base of the new branch "${input.branch}": ${reason(error)}`);
    return;
  }
  const baseSha = facts.baseline.sha;
  try {
    const [baseTree, endTree, hint] = await Promise.all([
      baseSha === null ? null : upstream.getCommit(baseSha).then((commit) => commit.tree),
      upstream.getCommit(endHead).then((commit) => commit.tree),
      baseSha === null || facts.historyRewritten ? undefined : changedFiles(upstream, baseSha, endHead),
    ]);
    facts.changes = await diffTrees(upstream, baseTree, endTree, hint);
  } catch (error) {
    facts.unchecked.push(`the changed files of "${input.branch}": ${reason(error)}`);
  }
  let listed: NewCommits;
  try {
    const max = input.maxCommits ?? MAX_COMMITS;
    // After a force push there is no single base: new is whatever lies above every head the job started with.
    listed =
      baseSha !== null && !facts.historyRewritten
        ? await listNewCommits(upstream, baseSha, endHead, max)
        : await listCommitsAbove(
            upstream,
            endHead,
            new Set(facts.historyRewritten ? Object.values(input.start) : []),
            max,
          );
    facts.newCommits = { shas: listed.commits.map((commit) => commit.sha), complete: listed.complete };
  } catch (error) {
    facts.unchecked.push(`the new commits of "${input.branch}": ${reason(error)}`);
    return;
  }
  // A commit not listed is a commit not examined: judge() makes an incomplete list unchecked.
  if (!listed.complete) return;
  facts.gatewayCommits = listed.commits.filter((commit) => madeByGateway(commit, input)).map((c) => c.sha);
  let theirs: Set<string>;
  try {
    theirs = await commitsOfOthers(
      upstream,
      facts.branchMoves?.get(`refs/heads/${input.branch}`),
      facts.identity,
      input.maxCommits ?? MAX_COMMITS,
    );
  } catch (error) {
    facts.unchecked.push(`which commits of "${input.branch}" others pushed: ${reason(error)}`);
    return;
  }
  if (theirs.size === 0) return examineCommits(input, facts, listed);
  facts.otherCommits = listed.commits.filter((commit) => theirs.has(commit.sha)).map((c) => c.sha);
  await examineOurCommits(input, facts, listed, theirs);
}

/**
 * A commit the ledger claims counts as the gateway's only if GitHub made it: the gateway commits through the
 * API with no author or committer, so GitHub is the committer (and signs it). A commit made anywhere else
 * and pushed with git cannot pass as the gateway's, even under a forged ledger.
 */
function madeByGateway(commit: CommitInfo, input: VerifyInput): boolean {
  return (
    input.ledger?.ok === true &&
    input.ledger.commits.includes(commit.sha) &&
    commit.parents.length === 1 &&
    commit.committer.email === GITHUB_COMMITTER.email &&
    commit.committer.name === GITHUB_COMMITTER.name
  );
}

/** The committer of commits made through GitHub's API without one given. */
const GITHUB_COMMITTER = { name: 'GitHub', email: 'noreply@github.com' };

/**
 * Each new commit on its own, by its trees (modes included), whatever the ledger says: for what the net change
 * hides (a file added and removed again), and for the one rule, which judges each commit whole (one perimeter
 * may make all of it, within its limits). A commit left unexamined could hide a change a later one undid, or
 * one perimeter's work pushed with another's: unchecked, never success.
 */
async function examineCommits(input: VerifyInput, facts: JobFacts, listed: NewCommits): Promise<void> {
  const [only] = listed.commits;
  if (listed.commits.length === 1 && only !== undefined && !facts.historyRewritten) {
    facts.pathCommits = new Map(facts.changes.map((change) => [change.path, [only.sha]]));
    facts.commitChanges = [{ sha: only.sha, changes: facts.changes }];
    return readCommitContent(input, facts);
  }
  if (listed.commits.length <= 1) return;
  if (facts.historyRewritten) {
    facts.notes.push('after the history rewrite only the net change was checked, not each commit');
    return;
  }
  const gateway = new Set(facts.gatewayCommits);
  const others = listed.commits.filter((commit) => !gateway.has(commit.sha));
  const max = input.maxCommitDiffs ?? MAX_COMMIT_DIFFS;
  if (others.length > max) {
    facts.unchecked.push(
      `each of the ${others.length} commits pushed around the gateway (only the net change was checked; at most ${max} are diffed one by one)`,
    );
    return;
  }
  try {
    const touched: PathCommits = new Map();
    const perCommit = await diffEachCommit(input.upstream, listed.commits, touched);
    facts.intermediate = intermediateChanges(perCommit, facts.changes);
    facts.pathCommits = touched;
    facts.commitChanges = perCommit;
  } catch (error) {
    facts.unchecked.push(`the changes of each new commit: ${reason(error)}`);
    return;
  }
  await readCommitContent(input, facts);
}

/**
 * When others pushed to the bound branch too, the net change mixes their work with this job's, so it is not
 * judged: each of this job's commits is, on its own against its first parent, and the changes of the
 * commits others brought are listed, not judged.
 */
async function examineOurCommits(
  input: VerifyInput,
  facts: JobFacts,
  listed: NewCommits,
  theirs: Set<string>,
): Promise<void> {
  const gateway = new Set(facts.gatewayCommits);
  const ours = listed.commits.filter((commit) => !theirs.has(commit.sha));
  const direct = ours.filter((commit) => !gateway.has(commit.sha));
  const max = input.maxCommitDiffs ?? MAX_COMMIT_DIFFS;
  if (direct.length > max) {
    facts.unchecked.push(
      `each of the ${direct.length} commits pushed around the gateway (at most ${max} are diffed one by one)`,
    );
    return;
  }
  try {
    const touched: PathCommits = new Map();
    const perCommit = await diffEachCommit(input.upstream, ours, touched);
    facts.changes = intermediateChanges(perCommit, []);
    facts.pathCommits = touched;
    facts.commitChanges = perCommit;
    facts.intermediate = [];
    facts.notes.push(
      `others pushed ${theirs.size} commit(s) to "${input.branch}" during the job: those were not judged; each of this job's commits was judged on its own`,
    );
  } catch (error) {
    facts.unchecked.push(`the changes of this job's commits: ${reason(error)}`);
    return;
  }
  await readCommitContent(input, facts);
}

/** The size and credentials of every blob the job's commits add, for judgeCommit's limits and content rule. */
async function readCommitContent(input: VerifyInput, facts: JobFacts): Promise<void> {
  try {
    const reading = await readBlobFacts(
      input.upstream,
      (facts.commitChanges ?? []).flatMap((commit) => commit.changes),
      input.filter ?? createSecretFilter(),
    );
    facts.blobs = reading.facts;
    facts.unchecked.push(...reading.unread.map((why) => `the content of a new commit's file: ${why}`));
  } catch (error) {
    facts.unchecked.push(`the content of the new commits' files: ${reason(error)}`);
  }
}
