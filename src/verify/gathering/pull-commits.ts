import type { CommitInfo, RepoReads } from '../../github/index.js';
import type { Change } from '../change.js';
import { diffTrees } from './diff-trees.js';

/** What one commit of a pull request changes by itself, or why that could not be told. */
export type OwnChanges = { ok: true; changes: Change[] } | { ok: false; problem: string };

const short = (sha: string): string => sha.slice(0, 7);

/**
 * The commit's own change: against its parent; for a merge, only the paths where it differs from every
 * parent. A path a merge takes from one side unchanged is that side's (a merge of the base branch into the
 * pull request, GitHub's "Update branch", brings in the base's files: not the agent's doing, and already
 * judged or trusted); a path that matches no parent is the merge's own content (a conflict resolution or an
 * evil merge) and is judged like any commit's. A commit without a parent is not judged: unusual, so unchecked.
 */
export async function ownChanges(upstream: RepoReads, commit: CommitInfo): Promise<OwnChanges> {
  if (commit.parents.length === 0)
    return {
      ok: false,
      problem: `commit ${short(commit.sha)} has no parent (a second root in the pull request)`,
    };
  const parents = await Promise.all(commit.parents.map((sha) => upstream.getCommit(sha)));
  const diffs = await Promise.all(parents.map((parent) => diffTrees(upstream, parent.tree, commit.tree)));
  const [first, ...others] = diffs;
  if (others.length === 0) return { ok: true, changes: first! };
  const changedAgainst = others.map((diff) => new Set(diff.map((change) => change.path)));
  return {
    ok: true,
    changes: first!.filter((change) => changedAgainst.every((set) => set.has(change.path))),
  };
}

/**
 * Checks that `commits` are every commit of the pull request: each parent is listed too, or is in the base
 * branch (so the listing is closed under parents down to the base). Returns the boundary: the base commits
 * the pull request's commits grow from. Throws nothing; problems come back as text.
 */
export async function boundaryOf(
  upstream: RepoReads,
  commits: CommitInfo[],
  baseHead: string,
): Promise<{ boundary: string[]; problems: string[] }> {
  const listed = new Set(commits.map((c) => c.sha));
  const outside = [...new Set(commits.flatMap((c) => c.parents).filter((sha) => !listed.has(sha)))];
  const inBase = await Promise.all(outside.map((sha) => upstream.isAncestor(sha, baseHead)));
  const problems = outside
    .filter((_, i) => !inBase[i])
    .map(
      (sha) =>
        `${short(sha)} is a parent of a commit of the pull request, but neither listed among its commits nor in the base branch`,
    );
  return { boundary: outside.filter((_, i) => inBase[i]), problems };
}

/**
 * The merge base of the pull request's head and the base branch: the boundary commit every other boundary
 * commit is an ancestor of (each path from the head into the base leaves the pull request at a boundary
 * commit). Null when there is none (criss-cross histories): then the net change is not known.
 */
export async function mergeBaseOf(upstream: RepoReads, boundary: string[]): Promise<string | null> {
  for (const candidate of boundary) {
    const others = boundary.filter((sha) => sha !== candidate);
    const below = await Promise.all(others.map((sha) => upstream.isAncestor(sha, candidate)));
    if (below.every(Boolean)) return candidate;
  }
  return null;
}
