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
import { type Change, diffTrees, judgeCommit, type Violation } from '../verify/index.js';

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
}

/**
 * Every staged commit judged by the verdict's rules against the perimeters read from the trusted ref:
 * what each commit changes is recomputed from its trees, never taken from the set's word.
 */
export async function judgeChangeSet(
  upstream: Upstream,
  set: StagedChangeSet,
  perimeters: Perimeter[],
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
    violations.push(
      ...judgeCommit(
        {
          label: `staged commit ${commits.length} (${commit.sha.slice(0, 7)})`,
          changes,
          sizeOf: (sha) => Buffer.byteLength(set.blobs[sha] ?? '', 'base64'),
        },
        set.branch,
        perimeters,
      ),
    );
    parentTree = commit.tree;
  }
  const paths = [...new Set(commits.flatMap((c) => c.changes.map((x) => x.path)))].sort();
  const unique = new Map(violations.map((v) => [v.message, v]));
  return { commits, paths, violations: [...unique.values()] };
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
 * Writes judged staged commits to GitHub and then moves one ref, so either every commit lands or none does.
 * `push`: onto the bound branch, fast-forward only; on the base the set was staged on, each tree GitHub
 * makes must be the staged tree itself, and on a branch that moved since, the commits go on top only when
 * the commits in between touched none of the same paths. `pull-request`: on the base they were staged on,
 * in a new branch, with a draft pull request into the bound branch.
 */
export async function applyChangeSet(
  upstream: RepoReads & RepoWrites & PullRequests,
  set: StagedChangeSet,
  judged: JudgedChangeSet,
  mode: ApplyMode = { kind: 'push' },
): Promise<ApplyResult> {
  const head = mode.kind === 'push' ? await upstream.getBranchHead(set.branch) : set.base;
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
      base: set.branch,
      draft: true,
      labels: mode.labels,
    });
    return { state: 'opened', head: last, commits: written, branch: mode.branch, pull };
  }
  try {
    await upstream.updateBranch(set.branch, last);
  } catch (error) {
    if (error instanceof UpstreamError && error.code === 'not_fast_forward')
      return {
        state: 'blocked',
        reason: `"${set.branch}" moved while the changes were being written; nothing was moved`,
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
  if (!(await upstream.isAncestor(set.base, head)))
    return `"${set.branch}" no longer contains ${set.base}, the head the changes were staged on`;
  const [base, now] = await Promise.all([upstream.getCommit(set.base), upstream.getCommit(head)]);
  const theirs = new Set((await diffTrees(upstream, base.tree, now.tree)).map((c) => c.path));
  const overlap = judged.paths.filter((p) => theirs.has(p));
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
