import type { PushActivity, Upstream } from '../github/upstream.js';
import { diffTrees } from './diff-trees.js';
import { compareSnapshots, judge, type JobFacts } from './judge.js';
import type { Baseline, RefSnapshot, Verdict, VerifyInput } from './types.js';

const PAGE = 100;

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

/** New commits, newest first, walking back from the end head until the baseline (bounded). */
async function newCommits(upstream: Upstream, endHead: string, stop: string | null, max: number) {
  const shas: string[] = [];
  for (let page = 1; shas.length < max; page++) {
    const commits = await upstream.listCommits({ sha: endHead, perPage: PAGE, page });
    for (const commit of commits) {
      if (commit.sha === stop) return { shas, complete: true };
      if (shas.length >= max) return { shas, complete: false };
      shas.push(commit.sha);
    }
    if (commits.length < PAGE) return { shas, complete: stop === null };
  }
  return { shas, complete: false };
}

/**
 * Recomputes from GitHub what changed during the job and judges it. Never throws for a failed look-up:
 * whatever could not be checked is named in `unchecked` and keeps the verdict from success.
 */
export async function verifyJob(input: VerifyInput): Promise<Verdict> {
  const { upstream, branch } = input;
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
    refChanges: compareSnapshots(input.start, input.end),
    newCommits: startHead === endHead ? { shas: [], complete: true } : null,
    ledger: input.ledger,
    directPushes: input.directPushes,
    perimeters: input.perimeters,
    pushes: [],
    unchecked: [...(input.problems ?? [])],
    notes: [],
  };

  if (endHead === null) {
    if (startHead === null) facts.notes.push(`branch "${branch}" does not exist; nothing was pushed to it`);
  } else if (endHead !== startHead) {
    await examineBranch(input, facts, endHead);
  }
  if (facts.refChanges.length > 0) facts.pushes = await pushesFor(upstream, facts);
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
    const [baseTree, endTree] = await Promise.all([
      baseSha === null ? null : upstream.getCommit(baseSha).then((commit) => commit.tree),
      upstream.getCommit(endHead).then((commit) => commit.tree),
    ]);
    facts.changes = await diffTrees(upstream, baseTree, endTree);
  } catch (error) {
    facts.unchecked.push(`the changed files of "${input.branch}": ${reason(error)}`);
  }
  if (facts.historyRewritten) {
    facts.notes.push(
      'after a history rewrite the changed files are measured from the start head, not commit by commit',
    );
  }
  try {
    const stop = facts.historyRewritten ? null : baseSha;
    facts.newCommits = facts.historyRewritten
      ? await newCommitsUntilAny(input, endHead)
      : await newCommits(upstream, endHead, stop, input.maxCommits ?? 300);
  } catch (error) {
    facts.unchecked.push(`the new commits of "${input.branch}": ${reason(error)}`);
  }
}

/** After a force push there is no single stop commit: attribute what is above any commit the job started with. */
async function newCommitsUntilAny(input: VerifyInput, endHead: string) {
  const known = new Set(Object.values(input.start));
  const shas: string[] = [];
  const commits = await input.upstream.listCommits({ sha: endHead, perPage: PAGE, page: 1 });
  for (const commit of commits) {
    if (known.has(commit.sha)) return { shas, complete: true };
    shas.push(commit.sha);
  }
  return { shas, complete: false };
}

/** The Activity API names who pushed; it only enriches the receipt, so a failure is a note. */
async function pushesFor(upstream: Upstream, facts: JobFacts): Promise<PushActivity[]> {
  try {
    const moves = new Map(facts.refChanges.map((change) => [change.ref, change]));
    const activity = await upstream.listPushActivity({});
    const fresh = new Set(facts.newCommits?.shas ?? []);
    return activity.filter((item) => {
      const change = moves.get(item.ref);
      if (!change) return false;
      return item.after === change.after || fresh.has(item.after) || item.before === change.before;
    });
  } catch (error) {
    facts.notes.push(`who pushed could not be read from the Activity API: ${reason(error)}`);
    return [];
  }
}
