import type { GitBlobReader } from '../git-blobs.js';
import type { GitHistory } from '../git-history.js';
import { BlobCache, ShaCache } from './cache.js';
import {
  COMMITS_PER_CALL,
  pathTreesOf,
  pathTreesQuery,
  type PathTrees,
  type PathTreesAnswer,
} from './graphql-path-trees.js';
import {
  COMMIT_TREES_PER_CALL,
  commitTreesOf,
  commitTreesQuery,
  type CommitTrees,
  type CommitTreesAnswer,
} from './graphql-commit-trees.js';
import { pathHistoryOf, pathHistoryQuery, type PathHistoryAnswer } from './graphql-history.js';
import { blobCalls, blobsOf, blobsQuery, type BlobsAnswer, type BlobWanted } from './graphql-blobs.js';
import { listingsOf, treesQuery, TREES_PER_CALL, type TreesAnswer } from './graphql-trees.js';
import type { RestClient } from './octokit-client.js';
import {
  UpstreamError,
  type CommitInfo,
  type ComparedFile,
  type Comparison,
  type PathHistoryPage,
  type TreeEntry,
} from '../upstream.js';
import * as wire from './wire.js';

/** commits per compare page (GitHub's most) */
const COMPARE_PAGE = 100;
/** trees listed along with a getCommitTrees call at most (as many as differsWhere asks in one call) */
const TREES_ALONG = 100;
/** Files asked for per page of a commit's file list: a shorter list is the whole list, however GitHub pages. */
const COMMIT_FILES_PAGE = 100;
/** blobs read one by one for their sizes at most, when neither git nor a listing gave them */
const SIZE_READS = 20;

/**
 * The reads of objects addressed by SHA (commits, trees, blobs, comparisons of two commits): they never
 * change, so each is fetched once per process, and a listing that holds others fills their caches too.
 */
export abstract class GitObjectReads {
  protected abstract readonly rest: RestClient;
  protected readonly commits = new ShaCache<CommitInfo>();
  protected readonly trees = new ShaCache<TreeEntry[]>();
  protected readonly recursiveTrees = new ShaCache<{ entries: TreeEntry[]; truncated: boolean }>();
  /** REST recursive listings made only for their sizes (git could not bring the blobs), by tree SHA */
  private readonly sizeListings = new ShaCache<{ entries: TreeEntry[]; truncated: boolean }>();
  protected readonly comparisons = new ShaCache<Comparison>();
  protected readonly commitFiles = new ShaCache<{
    paths: string[];
    complete: boolean;
    files: ComparedFile[];
  }>();
  protected readonly blobs: BlobCache;
  /** present: blobs come over git's smart HTTP, off the REST budget, and REST only when git cannot */
  protected gitBlobs: GitBlobReader | null = null;
  /**
   * present: commits, trees and history are read from a partial copy of the bound branch's history
   * (git-history.ts), off both budgets, and by REST and GraphQL only what the copy cannot answer
   */
  protected gitHistory: GitHistory | null = null;
  /**
   * Blob sizes by SHA, from every listing GitHub gave and every blob read or written: the copy holds no
   * blob, so its listings take their sizes from here, and getBlobSizes the rest.
   */
  private readonly sizes = new Map<string, number>();

  /** The branch head now (over git where it can); the copy is brought to it. */
  abstract tryGetBranchHead(branch: string): Promise<string | null>;

  constructor(blobCacheBytes: number) {
    this.blobs = new BlobCache(blobCacheBytes);
  }

  async getCommit(sha: string): Promise<CommitInfo> {
    wire.checkSha(sha);
    return this.commits.get(
      sha,
      async () =>
        (await this.gitHistory?.commit(sha)) ??
        wire.gitCommit(
          await this.rest.read<wire.GitCommit>(
            `get commit ${sha}`,
            'GET /repos/{owner}/{repo}/git/commits/{sha}',
            { sha },
          ),
        ),
    );
  }

  async getTree(sha: string): Promise<TreeEntry[]> {
    wire.checkSha(sha);
    const known = this.trees.peek(sha) ?? (await this.localTree(sha));
    if (known) return known;
    return this.trees.get(sha, async () => {
      const data = await this.rest.read<wire.Tree>(
        `get tree ${sha}`,
        'GET /repos/{owner}/{repo}/git/trees/{sha}',
        { sha },
      );
      return this.learnSizes(data.tree.map(wire.treeEntry));
    });
  }

  /**
   * A tree's direct entries from the history copy, each blob with its size where one is known. Not kept in
   * `trees`: a listing of GitHub's, with every size, replaces it there when one is asked for.
   */
  private async localTree(sha: string): Promise<TreeEntry[] | null> {
    const entries = await this.gitHistory?.tree(sha);
    if (!entries) return null;
    for (const entry of entries) {
      const size = entry.type === 'blob' ? this.sizes.get(entry.sha) : undefined;
      if (size !== undefined) entry.size = size;
    }
    return entries;
  }

  /** Keeps the sizes of a listing's blobs; the listing itself is returned. */
  protected learnSizes(entries: TreeEntry[]): TreeEntry[] {
    for (const e of entries) if (e.type === 'blob' && e.size !== undefined) this.sizes.set(e.sha, e.size);
    return entries;
  }

  /** A blob's size known from its bytes (read or written). */
  protected learnSize(sha: string, bytes: Uint8Array): void {
    this.sizes.set(sha, bytes.byteLength);
  }

  /** set when a GraphQL call failed: from then on trees are listed by REST only */
  private graphqlFailed = false;

  async getTrees(
    shas: string[],
    options: { levels?: number; perCall?: number } = {},
  ): Promise<Map<string, TreeEntry[]>> {
    const perCall = options.perCall ?? TREES_PER_CALL;
    const out = new Map<string, TreeEntry[]>();
    const wanted: string[] = [];
    for (const sha of new Set(shas)) {
      const known = this.trees.peek(wire.checkSha(sha)) ?? (await this.localTree(sha));
      if (known) out.set(sha, known);
      else wanted.push(sha);
    }
    const calls: string[][] = [];
    for (let i = 0; i < wanted.length; i += perCall) calls.push(wanted.slice(i, i + perCall));
    await Promise.all(
      calls.map(async (chunk) => {
        if (this.graphqlFailed) return;
        try {
          const answer = await this.rest.graphql<TreesAnswer>(
            `get ${chunk.length} trees`,
            treesQuery(chunk, options.levels),
          );
          for (const [tree, list] of listingsOf(chunk, answer)) {
            this.learnSizes(list);
            if (!this.trees.peek(tree)) this.trees.set(tree, list);
            out.set(tree, list);
          }
        } catch {
          // GraphQL refused or failed (its budget spent, say): the caller lists these by REST, as before.
          this.graphqlFailed = true;
        }
      }),
    );
    return out;
  }

  async getCommitTrees(
    commits: string[],
    options: { levels: number; parentLevels?: number; trees?: string[] },
  ): Promise<Map<string, CommitTrees>> {
    const local = await this.localCommitTrees(commits);
    if (local) return local;
    const out = new Map<string, CommitTrees>();
    const wanted = [...new Set(commits)].map(wire.checkSha);
    // the trees not listed yet ride along with the first call; more than one call holds go by getTrees
    const trees = [...new Set(options.trees ?? [])].filter((sha) => !this.trees.peek(wire.checkSha(sha)));
    const along = trees.slice(0, TREES_ALONG);
    const calls: string[][] = [];
    for (let i = 0; i < wanted.length; i += COMMIT_TREES_PER_CALL)
      calls.push(wanted.slice(i, i + COMMIT_TREES_PER_CALL));
    if (trees.length > along.length || calls.length === 0)
      await this.getTrees(calls.length === 0 ? trees : trees.slice(along.length), {
        levels: Math.max(options.levels, 1),
        perCall: TREES_ALONG,
      });
    await Promise.all(
      calls.map(async (chunk, n) => {
        if (this.graphqlFailed) return;
        const listed = n === 0 ? along : [];
        try {
          const answer = await this.rest.graphql<CommitTreesAnswer>(
            `get ${chunk.length} commits and their trees`,
            commitTreesQuery(chunk, options.levels, options.parentLevels ?? options.levels, listed),
          );
          const listings = new Map<string, TreeEntry[]>();
          for (const [sha, found] of commitTreesOf(chunk, answer, listings, listed)) {
            const known = this.commits.peek(sha);
            if (!known) this.commits.set(sha, found.commit);
            out.set(sha, known ? { ...found, commit: known } : found);
          }
          for (const [tree, list] of listings) if (!this.trees.peek(tree)) this.trees.set(tree, list);
        } catch {
          // as getTrees: the caller reads these by REST
          this.graphqlFailed = true;
        }
      }),
    );
    return out;
  }

  /** getCommitTrees from the history copy when it holds every commit asked for (listings: getTree's). */
  private async localCommitTrees(commits: string[]): Promise<Map<string, CommitTrees> | null> {
    if (!this.gitHistory || !commits.every((sha) => this.gitHistory!.holds(sha))) return null;
    const out = new Map<string, CommitTrees>();
    for (const sha of new Set(commits)) {
      const commit = await this.gitHistory.commit(sha);
      const parents = await Promise.all((commit?.parents ?? []).map((p) => this.gitHistory!.commit(p)));
      if (!commit || !parents.every((p) => p !== null)) return null;
      out.set(sha, { commit, parentTrees: parents.map((p) => p!.tree) });
    }
    return out;
  }

  /**
   * Text blobs by SHA in batched GraphQL calls (graphql-blobs.ts); a blob is in the map only when its text
   * hashes to its SHA. What is missing (binary, truncated, too large, GraphQL failed) is for getBlob.
   */
  async getBlobs(wanted: BlobWanted[]): Promise<Map<string, Uint8Array>> {
    const out = new Map<string, Uint8Array>();
    const unique = new Map<string, BlobWanted>();
    for (const blob of wanted) {
      const known = this.blobs.peek(wire.checkSha(blob.sha));
      if (known) out.set(blob.sha, known);
      else unique.set(blob.sha, blob);
    }
    const { calls } = blobCalls([...unique.values()]);
    // one call at a time: each may carry megabytes, and GraphQL's secondary limits count concurrent calls
    for (const chunk of calls) {
      if (this.graphqlFailed) break;
      try {
        const answer = await this.rest.graphql<BlobsAnswer>(`get ${chunk.length} blobs`, blobsQuery(chunk));
        for (const [sha, bytes] of blobsOf(chunk, answer)) {
          out.set(sha, bytes);
          this.learnSize(sha, bytes);
        }
      } catch {
        // GraphQL refused or failed: the caller reads these by REST, as it would anyway
        this.graphqlFailed = true;
      }
    }
    return out;
  }

  async getPathTrees(commits: string[], path: string): Promise<Map<string, PathTrees>> {
    const out = new Map<string, PathTrees>();
    const wanted = [...new Set(commits)].map(wire.checkSha);
    const history = this.gitHistory;
    if (history && wanted.every((sha) => history.holds(sha))) {
      for (const sha of wanted) {
        const commit = await history.commit(sha);
        const parent = commit?.parents[0];
        const tree = await history.treeAt(sha, path);
        const parentTree = parent === undefined ? null : await history.treeAt(parent, path);
        // as GraphQL's: a commit where the path is a file on either side is left to the caller
        if (tree !== undefined && tree !== false && parentTree !== undefined && parentTree !== false)
          out.set(sha, { tree, parentTree });
      }
      if (!history.failed) return out;
      out.clear();
    }
    const calls: string[][] = [];
    for (let i = 0; i < wanted.length; i += COMMITS_PER_CALL)
      calls.push(wanted.slice(i, i + COMMITS_PER_CALL));
    await Promise.all(
      calls.map(async (chunk) => {
        if (this.graphqlFailed) return;
        try {
          const answer = await this.rest.graphql<PathTreesAnswer>(
            `get the trees at a path in ${chunk.length} commits`,
            pathTreesQuery(chunk),
            { path },
          );
          for (const [sha, pair] of pathTreesOf(chunk, answer)) out.set(sha, pair);
        } catch {
          this.graphqlFailed = true;
        }
      }),
    );
    return out;
  }

  async getPathHistory(
    branch: string,
    path: string,
    options: { first: number; after?: string | null; levels: number },
  ): Promise<PathHistoryPage | null> {
    if (this.gitHistory) {
      const head = await this.tryGetBranchHead(branch);
      if (head === null) return null;
      const page = await this.gitHistory.pathHistory(head, path, options.first, options.after ?? null);
      if (page) return page;
    }
    // a cursor of the copy's means nothing to GraphQL: the caller starts over by REST
    if (this.graphqlFailed || options.after?.startsWith('git ')) return null;
    try {
      const answer = await this.rest.graphql<PathHistoryAnswer>(
        `list the commits changing ${path}`,
        pathHistoryQuery(options.levels),
        { ref: `refs/heads/${branch}`, path, first: options.first, after: options.after ?? null },
      );
      const listings = new Map<string, TreeEntry[]>();
      const page = pathHistoryOf(answer, listings);
      if (!page) return null;
      for (const [tree, list] of listings) if (!this.trees.peek(tree)) this.trees.set(tree, list);
      for (const { sha, ...rest } of [page.head, ...page.commits.map((c) => c.commit)])
        if (!this.commits.peek(sha)) this.commits.set(sha, { sha, ...rest });
      return page;
    } catch {
      this.graphqlFailed = true;
      return null;
    }
  }

  async getTreeRecursive(sha: string): Promise<{ entries: TreeEntry[]; truncated: boolean }> {
    wire.checkSha(sha);
    return this.recursiveTrees.get(sha, async () => {
      const local = await this.localTreeRecursive(sha);
      return local ? { entries: local, truncated: false } : this.listRecursive(sha);
    });
  }

  /** One recursive listing of a tree by REST (its blobs' sizes learned, its whole subtrees kept). */
  private async listRecursive(sha: string): Promise<{ entries: TreeEntry[]; truncated: boolean }> {
    const data = await this.rest.read<wire.Tree>(
      `get tree ${sha}`,
      'GET /repos/{owner}/{repo}/git/trees/{sha}',
      { sha, recursive: '1' },
    );
    const entries = this.learnSizes(data.tree.map(wire.treeEntry));
    if (!data.truncated) {
      for (const [tree, list] of wire.subtrees(sha, entries))
        if (!this.trees.peek(tree)) this.trees.set(tree, list);
    }
    return { entries, truncated: Boolean(data.truncated) };
  }

  /**
   * Every entry below a tree from the history copy, when it holds every tree below it; a blob has its size
   * only where one is known (the copy holds no blob: getBlobSizes gives the sizes an answer shows). Null
   * otherwise.
   */
  private async localTreeRecursive(sha: string): Promise<TreeEntry[] | null> {
    if (!this.gitHistory) return null;
    const out: TreeEntry[] = [];
    const walk = async (tree: string, prefix: string): Promise<boolean> => {
      const listed = await this.localTree(tree);
      if (!listed) return false;
      for (const entry of listed) {
        const path = prefix + entry.path;
        out.push({ ...entry, path });
        if (entry.type === 'tree' && !(await walk(entry.sha, `${path}/`))) return false;
      }
      return true;
    };
    return (await walk(sha, '')) ? out : null;
  }

  /**
   * The sizes of blobs below `root` that an answer shows. Known ones at once; the rest are fetched over git,
   * off both budgets, to the blob store's disk, not to memory (an answer names readable blobs only, so
   * nothing hidden is fetched; the reads that usually follow fetch nothing more). What git cannot bring is sized by one recursive listing of `root`
   * by REST (as before the copy), then by reading at most SIZE_READS blobs (GraphQL or REST); beyond that a blob stays unsized.
   */
  async getBlobSizes(shas: string[], root?: string): Promise<Map<string, number>> {
    const unknown = () => [...new Set(shas)].filter((sha) => !this.sizes.has(wire.checkSha(sha)));
    if (unknown().length > 0 && this.gitBlobs)
      for (const [sha, size] of await this.gitBlobs.sizes(unknown())) this.sizes.set(sha, size);
    if (unknown().length > 0 && root !== undefined)
      await this.sizeListings.get(wire.checkSha(root), () => this.listRecursive(root));
    // a read that fails leaves its blob unsized: a size describes, it decides nothing
    await Promise.allSettled(
      unknown()
        .slice(0, SIZE_READS)
        .map((sha) => this.getBlob(sha)),
    );
    const out = new Map<string, number>();
    for (const sha of shas) {
      const size = this.sizes.get(sha);
      if (size !== undefined) out.set(sha, size);
    }
    return out;
  }

  /**
   * Blobs by SHA over git, in as few fetches as git-blobs.ts allows; not kept in the blob cache (a
   * workspace's worth would push out everything else). Empty without git or when git failed.
   */
  async getBlobsOverGit(shas: string[]): Promise<Map<string, Uint8Array>> {
    for (const sha of shas) wire.checkSha(sha);
    if (!this.gitBlobs) return new Map();
    const read = await this.gitBlobs.readMany(shas);
    for (const [sha, bytes] of read) this.learnSize(sha, bytes);
    return read;
  }

  async getBlob(sha: string): Promise<Uint8Array> {
    wire.checkSha(sha);
    return this.blobs.get(sha, async () => {
      const fetched = this.gitBlobs ? await this.gitBlobs.read(sha) : null;
      if (fetched) {
        this.learnSize(sha, fetched);
        return fetched;
      }
      const data = await this.rest.read<wire.Blob>(
        `get blob ${sha}`,
        'GET /repos/{owner}/{repo}/git/blobs/{sha}',
        { sha },
      );
      const bytes = wire.blobBytes(data);
      this.learnSize(sha, bytes);
      return bytes;
    });
  }

  /**
   * Brings the history copy to a commit asked about that it does not hold yet (the end head a verifier
   * compares with): one fetch, after which everything below it is read here. Only the newer side of a
   * question is fetched: an older one the copy then lacks is not on that history, and GitHub answers.
   */
  protected async reachCopy(sha: string): Promise<void> {
    if (this.gitHistory && !this.gitHistory.failed && !this.gitHistory.holds(sha))
      await this.gitHistory.update('asked', sha);
  }

  rememberCommitFiles(sha: string, files: ComparedFile[]): void {
    const list = { paths: files.map((f) => f.path), complete: true, files };
    this.commitFiles.set(sha, list);
    this.toldFiles.set(sha, list);
  }

  /** file lists told by rememberCommitFiles (the gateway's own pushes), which a `fresh` read still uses */
  private readonly toldFiles = new Map<
    string,
    { paths: string[]; complete: boolean; files: ComparedFile[] }
  >();

  async getCommitFiles(
    sha: string,
    options: { fresh?: boolean } = {},
  ): Promise<{ paths: string[]; complete: boolean; files: ComparedFile[] }> {
    wire.checkSha(sha);
    if (!options.fresh) return this.commitFiles.get(sha, () => this.readCommitFiles(sha));
    const found = this.toldFiles.get(sha) ?? (await this.readCommitFiles(sha));
    this.commitFiles.set(sha, found);
    return found;
  }

  private async readCommitFiles(
    sha: string,
  ): Promise<{ paths: string[]; complete: boolean; files: ComparedFile[] }> {
    const local = await this.gitHistory?.changedFiles(sha);
    if (local) return { paths: local.map((f) => f.path), complete: true, files: local };
    const data = await this.rest.read<wire.RestCommitWithFiles>(
      `get the files of commit ${sha}`,
      'GET /repos/{owner}/{repo}/commits/{ref}',
      { ref: sha, per_page: COMMIT_FILES_PAGE },
    );
    this.commits.set(sha, wire.restCommit(data));
    const files = data.files ?? [];
    return {
      paths: files.flatMap((f) =>
        f.previous_filename === undefined ? [f.filename] : [f.previous_filename, f.filename],
      ),
      complete: Array.isArray(data.files) && files.length < COMMIT_FILES_PAGE,
      files: files.map(comparedFile),
    };
  }

  async listCommits(options: {
    sha: string;
    path?: string;
    perPage?: number;
    page?: number;
  }): Promise<CommitInfo[]> {
    const perPage = options.perPage ?? 30;
    const skip = perPage * ((options.page ?? 1) - 1);
    const local = await this.gitHistory?.list(options.sha, options.path, skip, perPage);
    if (local) return local;
    const data = await this.rest.read<wire.RestCommit[]>(
      `list commits of ${options.sha}`,
      'GET /repos/{owner}/{repo}/commits',
      {
        sha: options.sha,
        ...(options.path !== undefined ? { path: options.path } : {}),
        per_page: options.perPage ?? 30,
        page: options.page ?? 1,
      },
    );
    return data.map((item) => {
      const commit = wire.restCommit(item);
      this.commits.set(commit.sha, commit);
      return commit;
    });
  }

  holdsHistory(head: string): boolean {
    return this.gitHistory?.holds(head) ?? false;
  }

  async isAncestor(ancestor: string, descendant: string): Promise<boolean> {
    if (wire.checkSha(ancestor) === wire.checkSha(descendant)) return true;
    await this.reachCopy(descendant);
    const local = await this.gitHistory?.isAncestor(ancestor, descendant);
    if (local !== undefined && local !== null) return local;
    try {
      const { status } = await this.compare(ancestor, descendant);
      // base...head: "ahead" means head has commits base lacks and none the other way.
      return status === 'identical' || status === 'ahead';
    } catch (error) {
      // Unrelated histories: GitHub answers 404 "No common ancestor between …".
      if (
        error instanceof UpstreamError &&
        error.code === 'not_found' &&
        /no common ancestor/i.test(error.message)
      ) {
        return false;
      }
      throw error;
    }
  }

  compare(base: string, head: string, page = 1): Promise<Comparison> {
    wire.checkSha(base);
    wire.checkSha(head);
    return this.comparisons.get(`${base}...${head}@${page}`, async () => {
      await this.reachCopy(head);
      const local = await this.gitHistory?.compare(base, head, page);
      if (local === 'unrelated')
        throw new UpstreamError('not_found', `No common ancestor between ${base} and ${head}.`, 404);
      if (local) return local;
      const data = await this.rest.read<wire.Compare>(
        `compare ${base}...${head}`,
        `GET /repos/{owner}/{repo}/compare/${base}...${head}`,
        { per_page: COMPARE_PAGE, page },
      );
      const commits = data.commits.map(wire.restCommit);
      for (const commit of [wire.restCommit(data.base_commit), ...commits])
        this.commits.set(commit.sha, commit);
      const files = (data.files ?? []).map(comparedFile);
      return { status: data.status, totalCommits: data.total_commits, commits, files };
    });
  }
}

function comparedFile(file: { filename: string; previous_filename?: string; status: string; sha: string }) {
  return {
    path: file.filename,
    status: file.status,
    sha: file.sha,
    ...(file.previous_filename !== undefined ? { previousPath: file.previous_filename } : {}),
  };
}
