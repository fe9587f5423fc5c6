import { blobSha, commitSha, listingTreeSha, sortTreeEntries } from '../git-objects.js';
import {
  UpstreamError,
  type CommitInfo,
  type Signature,
  type TreeChange,
  type TreeEntry,
} from '../upstream.js';

/** Reads a tree that is not staged here (from GitHub). */
export type TreeReader = (sha: string) => Promise<TreeEntry[]>;

/**
 * Git objects made in the runner instead of on GitHub: blobs, trees and commits with the SHAs git gives
 * them, built over trees read from GitHub. Nothing here talks to GitHub except through `readTree`.
 */
export class StagedObjects {
  readonly blobs = new Map<string, Uint8Array>();
  readonly trees = new Map<string, TreeEntry[]>();
  readonly commits = new Map<string, CommitInfo>();

  constructor(private readonly readTree: TreeReader) {}

  async tree(sha: string): Promise<TreeEntry[]> {
    return this.trees.get(sha) ?? this.readTree(sha);
  }

  addBlob(content: Uint8Array): string {
    const sha = blobSha(content);
    this.blobs.set(sha, content);
    return sha;
  }

  /**
   * The tree `changes` make of `base`, as GitHub's create-tree with `base_tree` makes it: nested paths make
   * trees as needed, a null SHA deletes (and a tree left empty disappears), inline content becomes a blob.
   * https://docs.github.com/rest/git/trees#create-a-tree
   */
  async editTree(base: string, changes: readonly TreeChange[]): Promise<string> {
    const root = new Map<string, Edit>();
    for (const change of changes) {
      const parts = change.path.split('/');
      if (parts.some((p) => p === '' || p === '.' || p === '..'))
        throw new UpstreamError('invalid', `tree path is not valid: ${JSON.stringify(change.path)}`, 422);
      let level = root;
      for (const dir of parts.slice(0, -1)) {
        let next = level.get(dir);
        if (!next || next.kind !== 'dir') level.set(dir, (next = { kind: 'dir', edits: new Map() }));
        level = next.edits;
      }
      const name = parts[parts.length - 1]!;
      if ('content' in change)
        level.set(name, {
          kind: 'blob',
          mode: change.mode,
          sha: this.addBlob(Buffer.from(change.content, 'utf8')),
        });
      else if (change.sha === null) level.set(name, { kind: 'delete' });
      else level.set(name, { kind: 'blob', mode: change.mode, sha: change.sha });
    }
    return (await this.applyEdits(base, root, '')) ?? this.storeTree([]);
  }

  private async applyEdits(
    base: string | null,
    edits: Map<string, Edit>,
    at: string,
  ): Promise<string | null> {
    const entries = new Map((base ? await this.tree(base) : []).map((e) => [e.path, e]));
    for (const [name, edit] of edits) {
      const current = entries.get(name);
      if (edit.kind === 'delete') {
        if (!current)
          throw new UpstreamError('invalid', `cannot delete ${at}${name}: it does not exist`, 422);
        entries.delete(name);
      } else if (edit.kind === 'blob') {
        entries.set(name, { path: name, mode: edit.mode, type: 'blob', sha: edit.sha });
      } else {
        const below = current?.type === 'tree' ? current.sha : null;
        const sha = await this.applyEdits(below, edit.edits, `${at}${name}/`);
        if (sha === null) entries.delete(name);
        else entries.set(name, { path: name, mode: '040000', type: 'tree', sha });
      }
    }
    return entries.size === 0 ? null : this.storeTree([...entries.values()]);
  }

  private storeTree(entries: TreeEntry[]): string {
    const sorted = sortTreeEntries(entries);
    const sha = listingTreeSha(sorted);
    this.trees.set(sha, sorted);
    return sha;
  }

  addCommit(message: string, tree: string, parents: string[], signature: Signature): CommitInfo {
    const body = { tree, parents, message, author: signature, committer: signature };
    const commit = { sha: commitSha(body), ...body };
    this.commits.set(commit.sha, commit);
    return commit;
  }

  /** Paths whose blobs differ between two trees (either may be null: empty), read as far as they differ. */
  async changedPaths(before: string | null, after: string | null, at = ''): Promise<string[]> {
    if (before === after) return [];
    const a = new Map((before ? await this.tree(before) : []).map((e) => [e.path, e]));
    const b = new Map((after ? await this.tree(after) : []).map((e) => [e.path, e]));
    const out: string[] = [];
    for (const name of new Set([...a.keys(), ...b.keys()])) {
      const x = a.get(name);
      const y = b.get(name);
      if (x?.sha === y?.sha && x?.mode === y?.mode) continue;
      const xTree = x?.type === 'tree' ? x.sha : null;
      const yTree = y?.type === 'tree' ? y.sha : null;
      if (xTree || yTree) out.push(...(await this.changedPaths(xTree, yTree, `${at}${name}/`)));
      if ((x && x.type !== 'tree') || (y && y.type !== 'tree')) out.push(`${at}${name}`);
    }
    return out.sort();
  }

  /** The SHA of the tree or blob at `path` below `tree`, or null where there is nothing. */
  async entryAt(tree: string, path: string): Promise<TreeEntry | null> {
    let entry: TreeEntry | null = { path: '', mode: '040000', type: 'tree', sha: tree };
    for (const part of path.split('/').filter(Boolean)) {
      if (entry?.type !== 'tree') return null;
      entry = (await this.tree(entry.sha)).find((e) => e.path === part) ?? null;
    }
    return entry;
  }
}

type Edit =
  | { kind: 'delete' }
  | { kind: 'blob'; mode: '100644' | '100755'; sha: string }
  | { kind: 'dir'; edits: Map<string, Edit> };
