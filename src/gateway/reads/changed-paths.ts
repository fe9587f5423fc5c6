import type { RepoReads, TreeEntry } from '../../github/index.js';

export interface PathChange {
  path: string;
  status: 'added' | 'modified' | 'deleted';
  sha?: string;
  previousSha?: string;
  /**
   * Present when a side is a submodule (a gitlink, mode 160000): its SHA is then a commit of another
   * repository, never a blob of this one.
   */
  submodule?: 'before' | 'after' | 'both';
}

export interface ChangedPathsOptions {
  /** only changes at or below this path */
  within?: string;
  /** stop descending once a change satisfies this */
  stopWhen?: (change: PathChange) => boolean;
  /** skip directories that cannot hold anything of interest */
  descendInto?: (dir: string) => boolean;
}

/**
 * The gateway's reading of what a commit changed, for answering an agent: lazy and filtered (`within`,
 * `descendInto`) and able to stop at the first change that matters (`stopWhen`). Merkle style: only
 * subtrees whose SHA differs are listed, so the cost grows with the changed directories, not with the
 * repository. Trees come from the Upstream's SHA cache. Not the verifier's complete diff (src/verify/gathering/diff-trees.ts),
 * which must see every entry, malformed ones included, and never stops early.
 */
export async function changedPaths(
  upstream: RepoReads,
  before: string | null,
  after: string | null,
  options: ChangedPathsOptions = {},
): Promise<PathChange[]> {
  const changes: PathChange[] = [];
  let stopped = false;
  const within = options.within;
  const relevant = (path: string, isTree: boolean): boolean =>
    within === undefined ||
    path === within ||
    path.startsWith(`${within}/`) ||
    (isTree && within.startsWith(`${path}/`));

  const emit = (change: PathChange): void => {
    if (within !== undefined && change.path !== within && !change.path.startsWith(`${within}/`)) return;
    changes.push(change);
    if (options.stopWhen?.(change)) stopped = true;
  };
  const list = async (sha: string | null): Promise<Map<string, TreeEntry>> =>
    new Map(sha ? (await upstream.getTree(sha)).map((e) => [e.path, e]) : []);

  const walk = async (a: string | null, b: string | null, prefix: string): Promise<void> => {
    const [left, right] = await Promise.all([list(a), list(b)]);
    const names = [...new Set([...left.keys(), ...right.keys()])].sort();
    for (const name of names) {
      if (stopped) return;
      const path = prefix + name;
      const x = left.get(name);
      const y = right.get(name);
      if (x && y && x.sha === y.sha && x.mode === y.mode) continue;
      const xTree = x?.type === 'tree';
      const yTree = y?.type === 'tree';
      if (!relevant(path, xTree || yTree)) continue;
      if ((xTree || yTree) && (options.descendInto?.(path) ?? true)) {
        await walk(xTree ? x!.sha : null, yTree ? y!.sha : null, `${path}/`);
      }
      if (stopped) return;
      const link = submoduleSides(xTree ? undefined : x, yTree ? undefined : y);
      if (x && !xTree && y && !yTree)
        emit({ path, status: 'modified', sha: y.sha, previousSha: x.sha, ...link });
      else if (x && !xTree) emit({ path, status: 'deleted', previousSha: x.sha, ...link });
      else if (y && !yTree) emit({ path, status: 'added', sha: y.sha, ...link });
    }
  };
  if (before === after) return changes; // the same tree: nothing to list
  await walk(before, after, '');
  return changes;
}

/** Which sides of a change are submodules (gitlinks), as PathChange.submodule says it; {} for none. */
function submoduleSides(
  before: TreeEntry | undefined,
  after: TreeEntry | undefined,
): Pick<PathChange, 'submodule'> {
  const b = before?.type === 'commit';
  const a = after?.type === 'commit';
  return b && a ? { submodule: 'both' } : b ? { submodule: 'before' } : a ? { submodule: 'after' } : {};
}
