import type { CommitInfo, TreeEntry, Upstream } from '../github/upstream.js';
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

  constructor(
    readonly upstream: Upstream,
    readonly branch: string,
  ) {}

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

  /** The whole tree, from one recursive listing when GitHub gives it whole, else walked tree by tree. */
  index(treeSha: string): Promise<TreeIndex> {
    let pending = this.indexes.get(treeSha);
    if (pending) {
      this.indexes.delete(treeSha);
    } else {
      pending = this.buildIndex(treeSha);
      pending.catch(() => this.indexes.delete(treeSha));
    }
    this.indexes.set(treeSha, pending);
    while (this.indexes.size > INDEX_CACHE) this.indexes.delete(this.indexes.keys().next().value!);
    return pending;
  }

  private async buildIndex(treeSha: string): Promise<TreeIndex> {
    const listing = await this.upstream.getTreeRecursive(treeSha);
    if (!listing.truncated) return new TreeIndex(treeSha, listing.entries);
    const entries: TreeEntry[] = [];
    const walk = async (sha: string, prefix: string): Promise<void> => {
      for (const entry of await this.upstream.getTree(sha)) {
        const full = { ...entry, path: prefix + entry.path };
        entries.push(full);
        if (entry.type === 'tree') await walk(entry.sha, `${full.path}/`);
      }
    };
    await walk(treeSha, '');
    return new TreeIndex(treeSha, entries);
  }
}
