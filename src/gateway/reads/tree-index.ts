import type { Perimeter } from '../../policy/index.js';
import { type ComparedFile, type TreeEntry, treeSha } from '../../github/index.js';

/** A whole tree, every entry by its full path, and what one perimeter may see of it. */
export class TreeIndex {
  private readonly byPath = new Map<string, TreeEntry>();
  private readonly byDir = new Map<string, TreeEntry[]>();
  private readonly visible = new Map<string, ReadableView>();

  constructor(
    readonly sha: string,
    entries: TreeEntry[],
  ) {
    for (const entry of entries) {
      this.byPath.set(entry.path, entry);
      const dir = parentOf(entry.path);
      const list = this.byDir.get(dir);
      if (list) list.push(entry);
      else this.byDir.set(dir, [entry]);
    }
  }

  get(path: string): TreeEntry | undefined {
    return this.byPath.get(path);
  }

  /** Direct children of a directory ('' is the root). */
  children(dir: string): TreeEntry[] {
    return this.byDir.get(dir) ?? [];
  }

  entries(): IterableIterator<TreeEntry> {
    return this.byPath.values();
  }

  /** The files this perimeter can read, and every directory holding at least one of them. */
  readable(perimeter: Perimeter): ReadableView {
    let view = this.visible.get(perimeter.name);
    if (!view) {
      view = { files: new Set(), dirs: new Set(['']) };
      for (const entry of this.byPath.values()) {
        if (entry.type === 'tree' || !perimeter.canRead(entry.path).allowed) continue;
        view.files.add(entry.path);
        for (let dir = parentOf(entry.path); !view.dirs.has(dir); dir = parentOf(dir)) view.dirs.add(dir);
      }
      this.visible.set(perimeter.name, view);
    }
    return view;
  }
}

export interface ReadableView {
  files: Set<string>;
  dirs: Set<string>;
}

export function parentOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

/** A file written by a push: its mode, blob SHA and size. */
export interface WrittenFile {
  path: string;
  mode: string;
  sha: string;
  size: number;
}

/**
 * The index of `base` with a push's writes and deletions applied, built locally: the tree SHAs of every
 * directory on a changed path are recomputed, and the result is used only when the root's equals the
 * tree GitHub made (`expected`); otherwise null (list it instead).
 */
export function indexAfterPush(
  base: TreeIndex,
  written: WrittenFile[],
  deletions: string[],
  expected: string,
): TreeIndex | null {
  const entries = new Map<string, TreeEntry>();
  // a file written where a folder was replaces the folder: nothing below it stays
  const files = new Set(written.map((f) => f.path));
  const underFile = (path: string): boolean => {
    for (let dir = parentOf(path); dir !== ''; dir = parentOf(dir)) if (files.has(dir)) return true;
    return false;
  };
  for (const entry of base.entries()) if (!underFile(entry.path)) entries.set(entry.path, entry);
  const touched = new Set<string>(['']);
  for (const path of deletions) entries.delete(path);
  for (const file of written) entries.set(file.path, { ...file, type: 'blob' });
  for (const path of [...deletions, ...written.map((f) => f.path)])
    for (let dir = parentOf(path); dir !== ''; dir = parentOf(dir))
      if (!files.has(dir) && !underFile(dir)) touched.add(dir);
  for (const dir of touched)
    if (dir !== '' && !entries.has(dir))
      entries.set(dir, { path: dir, mode: '040000', type: 'tree', sha: '' });
  const kids = new Map<string, Map<string, TreeEntry>>();
  for (const entry of entries.values()) {
    const dir = parentOf(entry.path);
    const names = kids.get(dir) ?? new Map<string, TreeEntry>();
    kids.set(dir, names);
    names.set(entry.path.slice(dir === '' ? 0 : dir.length + 1), entry);
  }
  const depth = (path: string): number => path.split('/').length;
  for (const dir of [...touched].filter((d) => d !== '').sort((a, b) => depth(b) - depth(a))) {
    const names = kids.get(dir);
    const parent = kids.get(parentOf(dir))!;
    const name = dir.slice(dir.lastIndexOf('/') + 1);
    if (!names || names.size === 0) {
      entries.delete(dir);
      parent.delete(name);
      continue;
    }
    const entry = { path: dir, mode: '040000', type: 'tree' as const, sha: treeSha(names) };
    entries.set(dir, entry);
    parent.set(name, entry);
  }
  if (treeSha(kids.get('') ?? new Map()) !== expected) return null;
  return new TreeIndex(expected, [...entries.values()]);
}

/**
 * What a commit changed, as GitHub's file list gives it (no rename detection), from the whole indexes of
 * its parent's tree and its own: exact when both indexes are, as indexAfterPush's is (checked against the
 * commit's tree SHA).
 */
export function filesChanged(before: TreeIndex, after: TreeIndex): ComparedFile[] {
  const files: ComparedFile[] = [];
  for (const entry of after.entries()) {
    if (entry.type === 'tree') continue;
    const old = before.get(entry.path);
    if (old === undefined || old.type === 'tree')
      files.push({ path: entry.path, status: 'added', sha: entry.sha });
    else if (old.sha !== entry.sha || old.mode !== entry.mode)
      files.push({ path: entry.path, status: 'modified', sha: entry.sha });
  }
  for (const entry of before.entries()) {
    if (entry.type === 'tree') continue;
    const now = after.get(entry.path);
    if (now === undefined || now.type === 'tree')
      files.push({ path: entry.path, status: 'removed', sha: entry.sha });
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
