import { prefetchDiff, type CommitInfo, type RepoReads } from '../../github/index.js';
import type { Change, CommitChanges } from '../change.js';
import { diffTrees } from './diff-trees.js';

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
 * The commits reachable from `endHead` and not from `base` (an ancestor of it), newest first: exactly
 * git's base..end, merges' side branches included, whatever their dates. Bounded by `max`.
 */
export async function listNewCommits(
  upstream: RepoReads,
  base: string,
  endHead: string,
  max: number,
): Promise<NewCommits> {
  const first = await upstream.compare(base, endHead);
  const commits = [...first.commits];
  // More than the bound: listing the rest would not make the job checked, so spare the requests.
  if (first.totalCommits > max) return { commits: commits.reverse(), complete: false };
  for (let page = 2; commits.length < Math.min(first.totalCommits, max); page++) {
    const next = await upstream.compare(base, endHead, page);
    if (next.commits.length === 0) break;
    commits.push(...next.commits);
  }
  return {
    commits: commits.slice(0, max).reverse(),
    complete: commits.length === first.totalCommits && first.totalCommits <= max,
  };
}

/**
 * Commits listed back from the end head, newest first, until one of `stops`: after a history rewrite,
 * where there is no single base (the order is by date, so this serves attribution, not the verdict).
 * Without stops (a new branch with no base) the whole history is new. Bounded by `max`.
 */
export async function listCommitsAbove(
  upstream: RepoReads,
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
 * Each commit diffed against its first parent by its trees (modes included). The trees are mostly cached by
 * then, and every listing the diffs need goes out in batched reads first (a few GraphQL calls for all the
 * commits); what those could not bring, diffTrees lists by REST, so the answer is the same either way.
 */
export async function diffEachCommit(
  upstream: RepoReads,
  commits: CommitInfo[],
  touched?: PathCommits,
): Promise<CommitChanges[]> {
  const pairs = await Promise.all(
    commits.map(async (commit) => {
      const parent = commit.parents[0];
      return {
        base: parent === undefined ? null : (await upstream.getCommit(parent)).tree,
        head: commit.tree,
      };
    }),
  );
  await prefetchDiff(upstream, pairs);
  const perCommit = await Promise.all(pairs.map(({ base, head }) => diffTrees(upstream, base, head)));
  return perCommit.map((changes, index) => {
    const sha = commits[index]!.sha;
    for (const change of changes) touch(touched, change.path, sha);
    return { sha, changes };
  });
}

/**
 * Changes made by single commits that the net diff does not show: a file added and removed again, or a
 * symlink later replaced by a file. They stay in the branch's history, so they are judged too.
 */
export function intermediateChanges(perCommit: readonly CommitChanges[], net: Change[]): Change[] {
  const netByPath = new Map(net.map((change) => [change.path, change]));
  const found = new Map<string, Change>();
  for (const change of perCommit.flatMap((commit) => commit.changes)) {
    const inNet = netByPath.get(change.path);
    const hidden =
      inNet === undefined || change.problem !== undefined || (arrivesAsLink(change) && !arrivesAsLink(inNet));
    if (!hidden) continue;
    const seen = found.get(change.path);
    if (seen === undefined || (arrivesAsLink(change) && !arrivesAsLink(seen))) found.set(change.path, change);
  }
  return [...found.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Path to the new commits that changed it, for the receipt to name the commit behind each violation. */
export type PathCommits = Map<string, string[]>;

function touch(touched: PathCommits | undefined, path: string, sha: string): void {
  if (touched === undefined) return;
  const shas = touched.get(path);
  if (shas === undefined) touched.set(path, [sha]);
  else if (!shas.includes(sha)) shas.push(sha);
}
