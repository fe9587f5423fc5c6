import {
  type ComparedFile,
  prefetchDiff,
  type RepoReads,
  type TreeEntry,
  WholeTrees,
} from '../../github/index.js';
import type { Change } from '../change.js';
import { diffFromHint } from './diff-hint.js';

const isTree = (entry: TreeEntry | undefined): boolean => entry?.type === 'tree';

function leaf(path: string, kind: 'added' | 'deleted', entry: TreeEntry): Change {
  return kind === 'added'
    ? { path, kind, newMode: entry.mode, newSha: entry.sha }
    : { path, kind, oldMode: entry.mode, oldSha: entry.sha };
}

/** Every entry of a complete recursive listing by path; a path listed twice is a malformed change. */
function byPathOf(entries: TreeEntry[], prefix: string, kind: Change['kind'], out: Change[]) {
  const map = new Map<string, TreeEntry>();
  for (const entry of entries) {
    if (map.has(entry.path))
      out.push({
        path: prefix + entry.path,
        kind,
        problem: `the tree lists ${JSON.stringify(entry.path)} twice`,
      });
    else map.set(entry.path, entry);
  }
  return map;
}

/**
 * Every non-tree entry below a tree that appeared or disappeared as a whole: one recursive listing, or,
 * when GitHub truncates it, as WholeTrees completes it.
 */
async function expand(
  trees: WholeTrees,
  prefix: string,
  tree: string,
  kind: 'added' | 'deleted',
  out: Change[],
  cached = false,
): Promise<void> {
  const whole =
    (cached ? null : await trees.once(tree)) ?? (await expandByDir(trees, prefix, tree, kind, out, cached));
  if (whole === null) return;
  for (const entry of byPathOf(whole, prefix, kind, out).values())
    if (entry.type !== 'tree') out.push(leaf(prefix + entry.path, kind, entry));
}

/** A truncated tree: its own listing, and each subdirectory expanded (proven ones cost nothing). */
async function expandByDir(
  trees: WholeTrees,
  prefix: string,
  tree: string,
  kind: 'added' | 'deleted',
  out: Change[],
  cached = false,
): Promise<null> {
  const subtrees: Array<Promise<void>> = [];
  for (const entry of byName(await trees.plain(tree), prefix, kind, out).values()) {
    if (isTree(entry)) subtrees.push(expand(trees, `${prefix}${entry.path}/`, entry.sha, kind, out, cached));
    else out.push(leaf(prefix + entry.path, kind, entry));
  }
  await Promise.all(subtrees);
  return null;
}

/**
 * A tree's entries by name. Names git forbids (empty, holding a "/") or listed twice can't come from git's
 * own tools and GitHub's checks refuse them; should one get through, it is a change that is never allowed
 * (a name with "/" would otherwise join into an innocent-looking path, a duplicate would hide its twin).
 */
function byName(entries: TreeEntry[], prefix: string, kind: Change['kind'], out: Change[]) {
  const map = new Map<string, TreeEntry>();
  for (const entry of entries) {
    const problem =
      entry.path === '' || entry.path.includes('/')
        ? `tree entry name ${JSON.stringify(entry.path)} is not a single path segment`
        : map.has(entry.path)
          ? `the tree lists ${JSON.stringify(entry.path)} twice`
          : null;
    if (problem === null) map.set(entry.path, entry);
    else out.push({ path: prefix + entry.path, kind, problem });
  }
  return map;
}

/** From this many differing subtrees on, listing a directory whole (both sides, recursively) beats walking it. */
const MANY_SUBTREES = 4;

/**
 * Both sides of a directory listed recursively and compared path by path; false when GitHub truncates
 * either (what the truncated listings prove of subdirectories is kept for the walk).
 */
async function diffWhole(trees: WholeTrees, prefix: string, base: string, head: string, out: Change[]) {
  const [before, after] = await Promise.all([trees.once(base), trees.once(head)]);
  if (before === null || after === null) return false;
  compareWhole(prefix, before, after, out);
  return true;
}

function compareWhole(prefix: string, before: TreeEntry[], after: TreeEntry[], out: Change[]): void {
  const old = byPathOf(before, prefix, 'deleted', out);
  const now = byPathOf(after, prefix, 'added', out);
  for (const name of new Set([...old.keys(), ...now.keys()])) {
    const o = old.get(name);
    const n = now.get(name);
    if (o && n && o.sha === n.sha && o.mode === n.mode) continue;
    const path = prefix + name;
    // A tree's own entry says nothing its files don't: they are listed too.
    if (o && n && !isTree(o) && !isTree(n)) {
      out.push({ path, kind: 'modified', oldMode: o.mode, newMode: n.mode, oldSha: o.sha, newSha: n.sha });
      continue;
    }
    if (o && !isTree(o)) out.push(leaf(path, 'deleted', o));
    if (n && !isTree(n)) out.push(leaf(path, 'added', n));
  }
}

/**
 * One directory on both sides. Both known whole (a truncated listing above proved them): compared with no
 * request. Else listed plainly; when many subdirectories differ, both sides are listed recursively, and
 * when that is truncated too, each differing subdirectory is (the walk goes deeper only where needed).
 * `cached`: every listing the walk needs is in the Upstream's cache already (prefetchDiff): plain listings
 * only, never a recursive one.
 */
async function diffDir(
  trees: WholeTrees,
  prefix: string,
  base: string,
  head: string,
  out: Change[],
  wholeFirst = false,
  cached = false,
): Promise<void> {
  if (base === head) return;
  const [knownBase, knownHead] = [trees.known(base), trees.known(head)];
  if (knownBase && knownHead) return compareWhole(prefix, await knownBase, await knownHead, out);
  if (wholeFirst && (await diffWhole(trees, prefix, base, head, out))) return;
  const [before, after] = await Promise.all([trees.plain(base), trees.plain(head)]);
  const here: Change[] = [];
  const old = byName(before, prefix, 'deleted', here);
  const now = byName(after, prefix, 'added', here);
  const differing = [...now].filter(([name, n]) => {
    const o = old.get(name);
    return o !== undefined && isTree(o) && isTree(n) && o.sha !== n.sha;
  });
  const many = !cached && differing.length >= MANY_SUBTREES;
  if (many && !wholeFirst && (await diffWhole(trees, prefix, base, head, out))) return;
  // Both sides of every differing subdirectory in batched reads (a few calls for many trees), so each is
  // compared whole without a listing of its own; what they cannot bring is listed below as before.
  if (many)
    await trees.prefetch(
      differing.flatMap(([name, n]) => [old.get(name)!.sha, n.sha]).filter((sha) => !trees.known(sha)),
    );
  out.push(...here);
  const work: Array<Promise<void>> = [];
  for (const name of new Set([...old.keys(), ...now.keys()])) {
    const o = old.get(name);
    const n = now.get(name);
    if (o && n && o.sha === n.sha && o.mode === n.mode) continue;
    const path = prefix + name;
    if (o && n && isTree(o) && isTree(n)) {
      work.push(diffDir(trees, `${path}/`, o.sha, n.sha, out, many, cached));
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
        if (isTree(entry)) work.push(expand(trees, `${path}/`, entry.sha, kind, out, cached));
        else out.push(leaf(path, kind, entry));
      }
    }
  }
  await Promise.all(work);
}

/** Trees a diff may list in batched reads before it is taken as wide: a few GraphQL calls. */
const BATCHED_TREES = 64;

/** Whether a compare's file list names few enough directories (both sides listed) for batched reads. */
function narrow(files: ComparedFile[]): boolean {
  const dirs = new Set<string>(['']);
  for (const file of files)
    for (const path of [file.path, file.previousPath ?? file.path])
      for (let at = path.lastIndexOf('/'); at > 0; at = path.lastIndexOf('/', at - 1))
        dirs.add(path.slice(0, at));
  return files.length < COMPARE_FILES && 2 * dirs.size <= BATCHED_TREES;
}

/** GitHub lists at most 300 files in a compare: a list that long may be cut short. */
const COMPARE_FILES = 300;

const byPath = (a: Change, b: Change): number =>
  a.path < b.path ? -1 : a.path > b.path ? 1 : a.kind === 'deleted' ? -1 : b.kind === 'deleted' ? 1 : 0;

/**
 * The changed paths between two trees, Merkle-style: only subtrees whose SHA differs are listed, so the
 * requests grow with the changed directories, not with the repository. `baseTree` null: all added.
 * Where the Upstream reads trees in batches, every listing the walk needs is brought first in a few
 * GraphQL calls (prefetchDiff) and the walk reads them from the cache; else `hint`, a compare's file list
 * from base to head, may make it cheaper (diffFromHint). Either way the answer is the same.
 */
export async function diffTrees(
  upstream: RepoReads,
  baseTree: string | null,
  headTree: string,
  hint?: ComparedFile[],
  { prefetch = true }: { prefetch?: boolean } = {},
): Promise<Change[]> {
  const out: Change[] = [];
  const trees = new WholeTrees(upstream);
  // A narrow diff (a few dozen directories on both sides at most: a few GraphQL calls) from batched
  // reads; a wide one, and a tree with no base, by recursive listings, which are fewer requests there. The
  // compare's file list, when there is one, tells which it is before any read (a batched read given up
  // half way leaves the walk worse off than none).
  if (
    prefetch &&
    baseTree !== null &&
    (hint === undefined || narrow(hint)) &&
    (await prefetchDiff(upstream, [{ base: baseTree, head: headTree }], { maxTrees: BATCHED_TREES }))
  ) {
    await diffDir(trees, '', baseTree, headTree, out, false, true);
    return out.sort(byPath);
  }
  const hinted =
    baseTree !== null && hint !== undefined ? await diffFromHint(upstream, baseTree, headTree, hint) : null;
  if (hinted !== null) out.push(...hinted);
  else if (baseTree === null) await expand(trees, '', headTree, 'added', out);
  else await diffDir(trees, '', baseTree, headTree, out);
  return out.sort(byPath);
}
