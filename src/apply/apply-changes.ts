import {
  type PullRequests,
  type RepoReads,
  type RepoWrites,
  type StagedChangeSet,
  StagedUpstream,
  type TreeChange,
  type Upstream,
  UpstreamError,
} from '../github/index.js';
import type { Perimeter } from '../policy/index.js';
import { createSecretFilter, type AnswerFilter } from '../safety/index.js';
import { blobFactsOf, type BlobFacts, type Change, diffTrees, type Violation } from '../verify/index.js';
import { routeCommit, type ReviewItem } from './review-routing.js';

/** One staged commit and what it changes against the commit before it. */
export interface StagedCommit {
  sha: string;
  message: string;
  tree: string;
  changes: Change[];
}

export interface JudgedChangeSet {
  commits: StagedCommit[];
  /** every path any commit changes, sorted */
  paths: string[];
  violations: Violation[];
  /** the paths sent to review (routeCommit): then the commits go to a draft pull request, never the branch */
  review: ReviewItem[];
}

/** Where the apply job writes, from its own inputs and GitHub: never from the change set. */
export interface ApplyTarget {
  /** the branch the workflow names (apply's `branch` input, or the run's branch) */
  branch: string;
  /** that branch's head as GitHub lists it now: the commits go on top of it in both modes */
  head: string;
}

/**
 * Whether the change set fits the apply job's own target: it must name the same branch and sit on a commit
 * that branch holds (its head, or an ancestor of it). The set decides neither: a set naming another branch
 * is a set for another job, and a base the branch does not contain would bring that base's unjudged
 * history along. Answers why not, or null.
 */
export async function targetProblem(
  upstream: RepoReads,
  set: StagedChangeSet,
  target: ApplyTarget,
): Promise<{ state: 'failure' | 'error'; reason: string } | null> {
  if (set.branch !== target.branch)
    return {
      state: 'failure',
      reason: `the change set names branch ${JSON.stringify(set.branch)}, and this job applies to ${JSON.stringify(target.branch)} only`,
    };
  if (set.base === target.head) return null;
  let contained: boolean;
  try {
    contained = await upstream.isAncestor(set.base, target.head);
  } catch (error) {
    if (!(error instanceof UpstreamError && error.code === 'not_found')) throw error;
    contained = false;
  }
  return contained
    ? null
    : {
        state: 'error',
        reason: `the change set sits on ${set.base}, which "${target.branch}" (at ${target.head.slice(0, 7)}) does not contain: its changes are applied on that branch only`,
      };
}

/**
 * Every staged commit judged by the one rule (routeCommit, over judgeCommit), on the apply job's branch, against
 * the perimeters read from the trusted ref: what each commit changes is recomputed from its trees, never taken
 * from the set's word, and its content is scanned as the gateway scans a push.
 */
export async function judgeChangeSet(
  upstream: Upstream,
  set: StagedChangeSet,
  perimeters: Perimeter[],
  branch: string,
  filter: AnswerFilter = createSecretFilter(),
): Promise<JudgedChangeSet> {
  const view = StagedUpstream.fromChangeSet(upstream, set);
  const commits: StagedCommit[] = [];
  let parentTree = (await upstream.getCommit(set.base)).tree;
  const violations: Violation[] = [];
  for (const commit of set.commits) {
    const changes = await diffTrees(view, parentTree, commit.tree);
    commits.push({ sha: commit.sha, message: commit.message, tree: commit.tree, changes });
    for (const change of changes)
      if (change.kind !== 'deleted' && change.newSha !== undefined && !(change.newSha in set.blobs))
        violations.push({
          kind: 'path',
          path: change.path,
          message: `${change.path}: its content is not in the staged change set`,
        });
    parentTree = commit.tree;
  }
  const blobs = await stagedBlobFacts(set, filter);
  const review = new Map<string, ReviewItem>();
  for (const [i, commit] of commits.entries()) {
    const routed = routeCommit(
      {
        label: `staged commit ${i + 1} (${commit.sha.slice(0, 7)})`,
        changes: commit.changes,
        blob: (sha) => blobs.get(sha),
      },
      branch,
      perimeters,
    );
    violations.push(...routed.violations);
    for (const item of routed.review) if (!review.has(item.path)) review.set(item.path, item);
    // a blob missing from the set is named above, path by path: the set is refused for it
    if (routed.unchecked.length > 0 && violations.length === 0)
      violations.push({ kind: 'path', message: routed.unchecked.join('; ') });
  }
  const paths = [...new Set(commits.flatMap((c) => c.changes.map((x) => x.path)))].sort();
  const unique = new Map(violations.map((v) => [v.message, v]));
  return { commits, paths, violations: [...unique.values()], review: [...review.values()] };
}

/** The size and credentials of every blob the change set carries, scanned as the gateway scans a push. */
async function stagedBlobFacts(set: StagedChangeSet, filter: AnswerFilter): Promise<Map<string, BlobFacts>> {
  const facts = new Map<string, BlobFacts>();
  for (const [sha, base64] of Object.entries(set.blobs))
    facts.set(sha, await blobFactsOf(Buffer.from(base64, 'base64'), filter));
  return facts;
}

export type ApplyResult =
  | { state: 'applied'; head: string; commits: string[]; onTopOf: string }
  | {
      state: 'opened';
      head: string;
      commits: string[];
      branch: string;
      pull: { number: number; url: string };
    }
  | { state: 'blocked'; reason: string };

/** How the commits reach the repository: pushed to the bound branch, or a draft pull request into it. */
export type ApplyMode =
  { kind: 'push' } | { kind: 'pull-request'; branch: string; title: string; body: string; labels: string[] };

/**
 * Writes judged staged commits to GitHub on the target branch's head, then moves one ref, so either every
 * commit lands or none does. On the base the set was staged on, each tree GitHub makes must be the staged
 * tree itself; on a branch that moved since, the commits go on top only when the commits in between touched
 * none of the same paths (nor a file where a staged path needs a directory, or the other way round).
 * `push`: the target branch moves, fast-forward only. `pull-request`: a new branch, with a draft pull request
 * into the target branch. The set's own branch and base decide nothing (targetProblem refuses a set whose
 * differ).
 */
export async function applyChangeSet(
  upstream: RepoReads & RepoWrites & PullRequests,
  set: StagedChangeSet,
  judged: JudgedChangeSet,
  target: ApplyTarget,
  mode: ApplyMode = { kind: 'push' },
): Promise<ApplyResult> {
  const { head } = target;
  const problem = await targetProblem(upstream, set, target);
  if (problem !== null) return { state: 'blocked', reason: problem.reason };
  if (head !== set.base) {
    const blocked = await movedSince(upstream, set, judged, head);
    if (blocked) return { state: 'blocked', reason: blocked };
  }
  const written = await writeCommits(upstream, set, judged, head);
  const last = written.at(-1)!;
  if (mode.kind === 'pull-request') {
    try {
      await upstream.createBranch(mode.branch, last);
    } catch (error) {
      return {
        state: 'blocked',
        reason: `branch "${mode.branch}" could not be created: ${(error as Error).message}`,
      };
    }
    const pull = await upstream.createPullRequest({
      title: mode.title,
      body: mode.body,
      head: mode.branch,
      base: target.branch,
      draft: true,
      labels: mode.labels,
    });
    return { state: 'opened', head: last, commits: written, branch: mode.branch, pull };
  }
  try {
    await upstream.updateBranch(target.branch, last);
  } catch (error) {
    if (error instanceof UpstreamError && error.code === 'not_fast_forward')
      return {
        state: 'blocked',
        reason: `"${target.branch}" moved while the changes were being written; nothing was moved`,
      };
    throw error;
  }
  return { state: 'applied', head: last, commits: written, onTopOf: head };
}

/** Why the staged commits cannot go on top of `head`, or null when they can. */
async function movedSince(
  upstream: RepoReads,
  set: StagedChangeSet,
  judged: JudgedChangeSet,
  head: string,
): Promise<string | null> {
  const [base, now] = await Promise.all([upstream.getCommit(set.base), upstream.getCommit(head)]);
  const theirs = (await diffTrees(upstream, base.tree, now.tree)).map((c) => c.path);
  // A staged `gen/x.ts` over their new file `gen` would replace the file with a directory: that overlaps too.
  const overlap = judged.paths.filter((p) =>
    theirs.some((q) => p === q || p.startsWith(`${q}/`) || q.startsWith(`${p}/`)),
  );
  return overlap.length > 0
    ? `"${set.branch}" moved to ${head} since staging and those commits also changed: ${overlap.slice(0, 20).join(', ')}`
    : null;
}

/** Creates the commits (no ref moves) on `head`; on the staged base every tree must be the staged one. */
async function writeCommits(
  upstream: RepoReads & RepoWrites,
  set: StagedChangeSet,
  judged: JudgedChangeSet,
  head: string,
): Promise<string[]> {
  let parent = head;
  let parentTree = (await upstream.getCommit(head)).tree;
  const written: string[] = [];
  for (const [i, commit] of judged.commits.entries()) {
    const tree = await upstream.createTree(parentTree, await treeChanges(upstream, set, commit.changes));
    if (head === set.base && tree !== commit.tree)
      throw new UpstreamError(
        'invalid',
        `GitHub made tree ${tree} for staged commit ${i + 1}, not the staged tree ${commit.tree}; nothing was moved`,
      );
    parent = await upstream.createCommit(commit.message, tree, [parent]);
    parentTree = tree;
    written.push(parent);
  }
  return written;
}

/** Text that survives UTF-8 unchanged goes inline; anything else is a blob of its own. */
async function treeChanges(
  upstream: RepoWrites,
  set: StagedChangeSet,
  changes: Change[],
): Promise<TreeChange[]> {
  const out: TreeChange[] = [];
  for (const change of changes) {
    if (change.kind === 'deleted') {
      out.push({ path: change.path, sha: null });
      continue;
    }
    const mode = change.newMode === '100755' ? '100755' : '100644';
    const bytes = Buffer.from(set.blobs[change.newSha!]!, 'base64');
    const text = bytes.toString('utf8');
    if (Buffer.from(text, 'utf8').equals(bytes)) out.push({ path: change.path, mode, content: text });
    else out.push({ path: change.path, mode, sha: await upstream.createBlob(bytes) });
  }
  return out;
}

/**
 * What apply decided: the receipt's state and headline, the commit it goes on, and why the step fails (null
 * when it does not). Sent to review is `pending`, never a pass a branch rule could take.
 */
export interface ApplyVerdict {
  state: 'success' | 'failure' | 'error' | 'pending';
  description: string;
  sha: string;
  /** the receipt's heading and body when they say more than the description (sent to review) */
  heading?: string;
  body?: string;
  failure: string | null;
  /** whether the commits reached the bound branch */
  applied: boolean;
  /** the perimeters the commits were judged with; null when judging was not reached */
  perimeters: Perimeter[] | null;
}
