import type { CommitInfo, Upstream } from '../github/upstream.js';
import { diffTrees, type Change } from './diff-trees.js';

const PAGE = 100;
const SYMLINK = '120000';
const SUBMODULE = '160000';

export interface NewCommits {
  /** newest first */
  commits: CommitInfo[];
  /** false when the walk stopped before it reached where the job started */
  complete: boolean;
}

/**
 * Commits on the branch above the job's start, newest first: listed back from the end head until one of
 * `stops` (the baseline, or after a force push any head the job started with). Bounded by `max`.
 * Without stops (a new branch with no base) the whole history is new.
 */
export async function listNewCommits(
  upstream: Upstream,
  endHead: string,
  stops: ReadonlySet<string>,
  max: number,
): Promise<NewCommits> {
  const commits: CommitInfo[] = [];
  for (let page = 1; ; page++) {
    const listed = await upstream.listCommits({ sha: endHead, perPage: PAGE, page });
    for (const commit of listed) {
      if (stops.has(commit.sha)) return { commits, complete: true };
      if (commits.length >= max) return { commits, complete: false };
      commits.push(commit);
    }
    if (listed.length < PAGE) return { commits, complete: stops.size === 0 };
  }
}

const arrivesAsLink = (change: Change): boolean =>
  change.kind !== 'deleted' && (change.newMode === SYMLINK || change.newMode === SUBMODULE);

/**
 * Changes made by single commits that the net diff does not show: a file added and removed again, or a
 * symlink later replaced by a file. They stay in the branch's history, so they are judged too. Each
 * commit is diffed against its first parent; the trees are mostly cached by then, so the cost is the
 * directories each commit changed.
 */
export async function intermediateChanges(
  upstream: Upstream,
  commits: CommitInfo[],
  net: Change[],
): Promise<Change[]> {
  const netByPath = new Map(net.map((change) => [change.path, change]));
  const perCommit = await Promise.all(
    commits.map(async (commit) => {
      const parent = commit.parents[0];
      const parentTree = parent === undefined ? null : (await upstream.getCommit(parent)).tree;
      return diffTrees(upstream, parentTree, commit.tree);
    }),
  );
  const found = new Map<string, Change>();
  for (const change of perCommit.flat()) {
    const inNet = netByPath.get(change.path);
    const hidden = inNet === undefined || (arrivesAsLink(change) && !arrivesAsLink(inNet));
    if (!hidden) continue;
    const seen = found.get(change.path);
    if (seen === undefined || (arrivesAsLink(change) && !arrivesAsLink(seen))) found.set(change.path, change);
  }
  return [...found.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
