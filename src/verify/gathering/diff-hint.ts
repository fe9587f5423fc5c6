import { type ComparedFile, type RepoReads, type TreeEntry, treeSha } from '../../github/index.js';
import type { Change } from '../change.js';

/** GitHub lists at most 300 files in a compare: a list that long may be cut short. */
const COMPARE_FILE_CAP = 300;
const FILE_MODES = new Set(['100644', '100755', '120000', '160000']);

type Entry = Pick<TreeEntry, 'mode' | 'type' | 'sha'>;
/** directory path ('' for the root) to its entries by name */
type Dirs = Map<string, Map<string, Entry>>;

const parentOf = (path: string): string => path.slice(0, Math.max(0, path.lastIndexOf('/')));
const nameOf = (path: string): string => path.slice(path.lastIndexOf('/') + 1);

/** The base side: the root listing, and every top-level directory the hint touches, listed recursively. */
async function baseDirs(upstream: RepoReads, baseTree: string, paths: string[]): Promise<Dirs | null> {
  const dirs: Dirs = new Map([['', new Map((await upstream.getTree(baseTree)).map((e) => [e.path, e]))]]);
  const tops = new Set(paths.filter((path) => path.includes('/')).map((path) => path.split('/')[0]!));
  const listings = await Promise.all(
    [...tops].map(async (top) => {
      const entry = dirs.get('')!.get(top);
      if (entry?.type !== 'tree') return { top, entries: [] as TreeEntry[], sha: null };
      const { entries, truncated } = await upstream.getTreeRecursive(entry.sha);
      return truncated ? null : { top, entries, sha: entry.sha };
    }),
  );
  for (const listing of listings) {
    if (listing === null) return null;
    if (listing.sha === null) continue;
    dirs.set(listing.top, new Map());
    for (const entry of listing.entries) {
      const path = `${listing.top}/${entry.path}`;
      if (entry.type === 'tree') dirs.set(path, dirs.get(path) ?? new Map());
      const parent = parentOf(path);
      if (!dirs.has(parent)) dirs.set(parent, new Map());
      dirs.get(parent)!.set(nameOf(path), entry);
    }
  }
  return dirs;
}

function copyDirs(dirs: Dirs): Dirs {
  return new Map([...dirs].map(([path, entries]) => [path, new Map(entries)]));
}

/** Applies one file of the hint; false when it does not fit the base (then the hint is not used). */
function apply(dirs: Dirs, path: string, entry: Entry | null): boolean {
  const segments = path.split('/');
  for (let i = 1; i < segments.length; i++) {
    const dir = segments.slice(0, i).join('/');
    const existing = dirs.get(parentOf(dir))?.get(nameOf(dir));
    if (existing !== undefined && existing.type !== 'tree') return false;
    if (!dirs.has(dir)) {
      if (existing !== undefined) return false; // a tree the base listing should have held
      dirs.set(dir, new Map());
    }
  }
  const parent = dirs.get(parentOf(path))!;
  const old = parent.get(nameOf(path));
  if (old?.type === 'tree') return false;
  if (entry === null) return old !== undefined && parent.delete(nameOf(path));
  parent.set(nameOf(path), { ...entry, mode: old?.mode ?? entry.mode });
  return true;
}

/** Tree SHAs bottom-up for every directory on a changed path; returns the root's. */
function rootSha(dirs: Dirs, changed: Set<string>): string {
  const touched = new Set<string>(['']);
  for (const path of changed)
    for (let dir = parentOf(path); dir !== ''; dir = parentOf(dir)) touched.add(dir);
  const deepestFirst = [...touched].sort((a, b) => b.split('/').length - a.split('/').length);
  for (const dir of deepestFirst) {
    if (dir === '') continue;
    const entries = dirs.get(dir)!;
    const parent = dirs.get(parentOf(dir))!;
    if (entries.size === 0) parent.delete(nameOf(dir));
    else parent.set(nameOf(dir), { mode: '040000', type: 'tree', sha: treeSha(entries) });
  }
  return treeSha(dirs.get('')!);
}

/**
 * The exact diff from a compare's file list, when that list rebuilds the head tree: the base side of the
 * touched directories is listed (recursively, one request per top-level directory), the listed changes are
 * applied (a new file taken as 100644, a modified one keeping its mode), and the root's tree SHA recomputed.
 * Only when it equals `headTree` is the result used: then every path, mode, symlink and submodule in it is
 * the head's own. Otherwise (a mode change, a list cut at 300, anything unexpected) null: walk the trees.
 */
export async function diffFromHint(
  upstream: RepoReads,
  baseTree: string,
  headTree: string,
  files: ComparedFile[],
): Promise<Change[] | null> {
  if (files.length === 0 || files.length >= COMPARE_FILE_CAP || !/^[0-9a-f]{40}$/.test(headTree)) return null;
  const edits = new Map<string, Entry | null>();
  for (const file of files) {
    if (file.previousPath !== undefined && file.status === 'renamed') edits.set(file.previousPath, null);
    if (file.status === 'removed') edits.set(file.path, null);
    else if (file.status !== 'unchanged')
      edits.set(file.path, { mode: '100644', type: 'blob', sha: file.sha });
  }
  const base = await baseDirs(upstream, baseTree, [...edits.keys()]);
  if (base === null) return null;
  const head = copyDirs(base);
  for (const [path, entry] of edits) if (!apply(head, path, entry)) return null;
  if (rootSha(head, new Set(edits.keys())) !== headTree) return null;

  const changes: Change[] = [];
  for (const path of edits.keys()) {
    const o = base.get(parentOf(path))?.get(nameOf(path));
    const n = head.get(parentOf(path))?.get(nameOf(path));
    if (n !== undefined && !FILE_MODES.has(n.mode)) return null;
    if (o && n) {
      if (o.sha !== n.sha || o.mode !== n.mode)
        changes.push({
          path,
          kind: 'modified',
          oldMode: o.mode,
          newMode: n.mode,
          oldSha: o.sha,
          newSha: n.sha,
        });
    } else if (n) changes.push({ path, kind: 'added', newMode: n.mode, newSha: n.sha });
    else if (o) changes.push({ path, kind: 'deleted', oldMode: o.mode, oldSha: o.sha });
  }
  return changes;
}
