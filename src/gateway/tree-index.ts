import type { Perimeter } from '../policy/index.js';
import type { TreeEntry } from '../github/upstream.js';

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
