import type { PushActivity, Upstream } from '../github/upstream.js';
import { diffTrees } from './diff-trees.js';
import { intermediateChanges, listCommitsAbove, listNewCommits, type NewCommits } from './history.js';
import { compareSnapshots, judge, type JobFacts } from './judge.js';
import type { Baseline, RefSnapshot, Verdict, VerifyInput } from './types.js';

const MAX_COMMITS = 300;
const MAX_COMMIT_DIFFS = 50;

/** All branch and tag heads, as a plain object (it travels from main to post as JSON). */
export async function snapshotRefs(upstream: Upstream): Promise<RefSnapshot> {
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
async function changedFiles(upstream: Upstream, base: string, endHead: string) {
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
    newCommits: startHead === endHead || endHead === null ? { shas: [], complete: true } : null,
    ledger: input.ledger,
    directPushes: input.directPushes,
    perimeters: input.perimeters,
    pushes: [],
    forcePushes: [],
    movedBack: [],
    unchecked: [...(input.problems ?? [])],
    notes: [],
  };

  if (endHead === null) {
    if (startHead === null) facts.notes.push(`branch "${branch}" does not exist; nothing was pushed to it`);
  } else if (endHead !== startHead) {
    await examineBranch(input, facts, endHead);
  }
  // With the job's start time the Activity API also shows refs moved and moved back, so it is always read.
  if (facts.refChanges.length > 0 || input.startedAt !== undefined) await readActivity(input, facts);
  return judge(facts);
}

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
  await examineCommits(input, facts, listed);
}

/**
 * Each new commit on its own, for what the net change hides. The net change is always checked in full;
 * commits the (intact) ledger shows the gateway made were checked path by path before they were written,
 * so only the others are diffed here. Skipped, and said so, when that is not sound or not cheap.
 */
async function examineCommits(input: VerifyInput, facts: JobFacts, listed: NewCommits): Promise<void> {
  const max = input.maxCommitDiffs ?? MAX_COMMIT_DIFFS;
  const made = new Set(input.ledger?.ok ? input.ledger.commits : []);
  const others = listed.commits.filter((commit) => !made.has(commit.sha));
  if (others.length === 0 || (listed.commits.length <= 1 && listed.complete)) return;
  if (facts.historyRewritten) {
    facts.notes.push('after the history rewrite only the net change was checked, not each commit');
    return;
  }
  // A commit left undiffed could hide a change a later one undid: that is unchecked, never success.
  if (!listed.complete || others.length > max) {
    facts.unchecked.push(
      `each of the ${listed.complete ? '' : 'more than '}${others.length} commits pushed around the gateway (only the net change was checked; at most ${max} are diffed one by one)`,
    );
    return;
  }
  try {
    facts.intermediate = await intermediateChanges(input.upstream, others, facts.changes);
  } catch (error) {
    facts.unchecked.push(`the changes of each new commit: ${reason(error)}`);
  }
}

/**
 * The Activity API names who pushed, and shows force pushes that the end state hides (away and back onto a
 * descendant of the start). It only adds to what the refs show, so a failure to read it is a note.
 */
async function readActivity(input: VerifyInput, facts: JobFacts): Promise<void> {
  let activity: PushActivity[];
  try {
    activity = await input.upstream.listPushActivity(
      input.startedAt === undefined ? {} : { since: input.startedAt },
    );
  } catch (error) {
    facts.notes.push(`who pushed could not be read from the Activity API: ${reason(error)}`);
    return;
  }
  const moves = new Map(facts.refChanges.map((change) => [change.ref, change]));
  const fresh = new Set(facts.newCommits?.shas ?? []);
  facts.pushes = activity.filter((item) => {
    const change = moves.get(item.ref);
    if (!change) return false;
    return item.after === change.after || fresh.has(item.after) || item.before === change.before;
  });
  const ref = `refs/heads/${input.branch}`;
  if (input.startedAt !== undefined) {
    const first = new Map<string, PushActivity>();
    for (const item of activity) if (item.ref !== ref && !moves.has(item.ref)) first.set(item.ref, item);
    facts.movedBack = [...first.values()];
  }
  const onBranch =
    input.startedAt === undefined
      ? pushChain(activity, ref, facts.startHead, facts.endHead)
      : activity.filter((item) => item.ref === ref);
  if (onBranch === null) {
    facts.notes.push(
      `the Activity API does not show every push to "${input.branch}" yet, so force pushes in between were not ruled out`,
    );
    return;
  }
  facts.forcePushes = onBranch.filter((item) => item.activityType === 'force_push');
}

const ZERO_SHA = '0000000000000000000000000000000000000000';

/** The pushes that took `ref` from the start head to the end head, newest first; null when some are missing. */
function pushChain(
  activity: PushActivity[],
  ref: string,
  startHead: string | null,
  endHead: string | null,
): PushActivity[] | null {
  const chain: PushActivity[] = [];
  const from = startHead ?? ZERO_SHA;
  let at = endHead ?? ZERO_SHA;
  for (const item of activity) {
    if (at === from) break;
    if (item.ref !== ref || item.after !== at) continue;
    chain.push(item);
    at = item.before;
  }
  return at === from ? chain : null;
}
