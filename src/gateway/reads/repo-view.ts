import {
  type CommitInfo,
  type RepoCoordinates,
  type RepoReads,
  type RepoWrites,
  type TreeEntry,
  WholeTrees,
} from '../../github/index.js';
import { TreeIndex } from './tree-index.js';

export interface Snapshot {
  head: string;
  commit: CommitInfo;
  index: TreeIndex;
}

const INDEX_CACHE = 8;

/**
 * The read model of the bound branch. Every read starts from the branch head (a conditional request,
 * so correctness never waits on a cache); everything below it is addressed by SHA and cached.
 */
export class RepoView {
  private readonly indexes = new Map<string, Promise<TreeIndex>>();
  private readonly trees: WholeTrees;
  /** set once a root's recursive listing came back truncated: later roots are listed plainly first */
  private big = false;

  constructor(
    readonly upstream: RepoCoordinates & RepoReads & RepoWrites,
    readonly branch: string,
  ) {
    this.trees = new WholeTrees(upstream);
  }

  async snapshot(): Promise<Snapshot> {
    const head = await this.upstream.getBranchHead(this.branch);
    return this.snapshotAt(head);
  }

  async snapshotAt(head: string): Promise<Snapshot> {
    const commit = await this.upstream.getCommit(head);
    return { head, commit, index: await this.index(commit.tree) };
  }

  commit(sha: string): Promise<CommitInfo> {
    return this.upstream.getCommit(sha);
  }

  blob(sha: string): Promise<Uint8Array> {
    return this.upstream.getBlob(sha);
  }

  /**
   * The sizes of blobs of the tree `root` an answer shows or a read must know first, where the index lists
   * them without one (an index read from the history copy has none but those already known):
   * RepoReads.getBlobSizes, with its listing fallback on `root`.
   */
  async sizes(root: string, entries: TreeEntry[]): Promise<Map<string, number>> {
    const unsized = entries.filter((e) => e.type === 'blob' && e.size === undefined).map((e) => e.sha);
    if (unsized.length === 0 || !this.upstream.getBlobSizes) return new Map();
    return this.upstream.getBlobSizes(unsized, root);
  }

  /** The entries with the sizes `sizes` finds filled in (new objects; the index's own are never changed). */
  async sized(root: string, entries: TreeEntry[]): Promise<TreeEntry[]> {
    const sizes = await this.sizes(root, entries);
    return entries.map((e) => {
      const size = e.size ?? sizes.get(e.sha);
      return size === undefined || size === e.size ? e : { ...e, size };
    });
  }

  /** An index built locally and checked against its tree's SHA (after a push): never listed again. */
  remember(index: TreeIndex): void {
    this.trees.remember(index.sha, [...index.entries()]);
    this.cacheIndex(index.sha, Promise.resolve(index));
  }

  /** The whole tree: one recursive listing when GitHub gives it whole, else as WholeTrees lists it. */
  index(treeSha: string): Promise<TreeIndex> {
    let pending = this.indexes.get(treeSha);
    if (pending) {
      this.indexes.delete(treeSha);
    } else {
      pending = this.buildIndex(treeSha);
      pending.catch(() => this.indexes.delete(treeSha));
    }
    this.cacheIndex(treeSha, pending);
    return pending;
  }

  private cacheIndex(treeSha: string, index: Promise<TreeIndex>): void {
    this.indexes.delete(treeSha);
    this.indexes.set(treeSha, index);
    while (this.indexes.size > INDEX_CACHE) this.indexes.delete(this.indexes.keys().next().value!);
  }

  private async buildIndex(treeSha: string): Promise<TreeIndex> {
    const entries = await this.trees.list(treeSha, { plainFirst: this.big });
    if (this.trees.wasTruncated(treeSha)) this.big = true;
    return new TreeIndex(treeSha, entries);
  }
}
