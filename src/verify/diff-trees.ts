import type { TreeEntry, Upstream } from '../github/upstream.js';

/** One changed path. A rename is a deleted path plus an added path; a mode change is `modified`. */
export interface Change {
  path: string;
  kind: 'added' | 'modified' | 'deleted';
  oldMode?: string;
  newMode?: string;
  oldSha?: string;
  newSha?: string;
}

const isTree = (entry: TreeEntry | undefined): boolean => entry?.type === 'tree';

function leaf(path: string, kind: 'added' | 'deleted', entry: TreeEntry): Change {
  return kind === 'added'
    ? { path, kind, newMode: entry.mode, newSha: entry.sha }
    : { path, kind, oldMode: entry.mode, oldSha: entry.sha };
}

/**
 * Every non-tree entry below a tree that appeared or disappeared as a whole: one recursive listing, or,
 * when GitHub truncates it, one listing per directory.
 */
async function expand(
  upstream: Upstream,
  prefix: string,
  tree: string,
  kind: 'added' | 'deleted',
  out: Change[],
): Promise<void> {
  const { entries, truncated } = await upstream.getTreeRecursive(tree);
  if (!truncated) {
    for (const entry of entries) if (entry.type !== 'tree') out.push(leaf(prefix + entry.path, kind, entry));
    return;
  }
  const subtrees: Array<Promise<void>> = [];
  for (const entry of await upstream.getTree(tree)) {
    if (isTree(entry)) subtrees.push(expand(upstream, `${prefix}${entry.path}/`, entry.sha, kind, out));
    else out.push(leaf(prefix + entry.path, kind, entry));
  }
  await Promise.all(subtrees);
}

async function diffDir(upstream: Upstream, prefix: string, base: string, head: string, out: Change[]) {
  if (base === head) return;
  const [before, after] = await Promise.all([upstream.getTree(base), upstream.getTree(head)]);
  const old = new Map(before.map((entry) => [entry.path, entry]));
  const now = new Map(after.map((entry) => [entry.path, entry]));
  const work: Array<Promise<void>> = [];
  for (const name of new Set([...old.keys(), ...now.keys()])) {
    const o = old.get(name);
    const n = now.get(name);
    if (o && n && o.sha === n.sha && o.mode === n.mode) continue;
    const path = prefix + name;
    if (o && n && isTree(o) && isTree(n)) {
      work.push(diffDir(upstream, `${path}/`, o.sha, n.sha, out));
    } else if (o && n && !isTree(o) && !isTree(n)) {
      out.push({ path, kind: 'modified', oldMode: o.mode, newMode: n.mode, oldSha: o.sha, newSha: n.sha });
    } else {
      // Present on one side only, or a file became a directory (or the reverse).
      const sides = [
        [o, 'deleted'],
        [n, 'added'],
      ] as const;
      for (const [entry, kind] of sides) {
        if (!entry) continue;
        if (isTree(entry)) work.push(expand(upstream, `${path}/`, entry.sha, kind, out));
        else out.push(leaf(path, kind, entry));
      }
    }
  }
  await Promise.all(work);
}

const byPath = (a: Change, b: Change): number =>
  a.path < b.path ? -1 : a.path > b.path ? 1 : a.kind === 'deleted' ? -1 : b.kind === 'deleted' ? 1 : 0;

/**
 * The changed paths between two trees, Merkle-style: only subtrees whose SHA differs are listed, so the
 * requests grow with the changed directories, not with the repository. `baseTree` null: all added.
 */
export async function diffTrees(
  upstream: Upstream,
  baseTree: string | null,
  headTree: string,
): Promise<Change[]> {
  const out: Change[] = [];
  if (baseTree === null) await expand(upstream, '', headTree, 'added', out);
  else await diffDir(upstream, '', baseTree, headTree, out);
  return out.sort(byPath);
}
