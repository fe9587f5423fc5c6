import { BlobCache, ShaCache } from './cache.js';
import { makeScrubber, toUpstreamError, type Scrubber } from './errors.js';
import { createClient, RestClient } from './octokit-client.js';
import {
  UpstreamError,
  type CommitInfo,
  type CommitStatus,
  type Comparison,
  type PushActivity,
  type TreeChange,
  type TreeEntry,
  type Upstream,
  type UpstreamStats,
} from './upstream.js';
import * as wire from './wire.js';

export interface OctokitUpstreamOptions {
  token: string;
  owner: string;
  repo: string;
  /** default process.env.GITHUB_API_URL ?? 'https://api.github.com' */
  baseUrl?: string;
  userAgent?: string;
  /** retries of failed reads (5xx, network errors). Writes are never retried blindly. Default 2. */
  readRetries?: number;
  /** base of the read retry back-off in ms (waits 1x, 4x, 9x). Default 1000. */
  retryBaseMs?: number;
  /** longest wait for a rate-limit reset before failing with rate_limited. Default 60 s. */
  maxRateLimitWaitSeconds?: number;
  /** content-creating requests per minute before writes queue. Default 80 (GitHub's secondary limit). */
  writesPerMinute?: number;
  /** bytes of blob content kept in memory. Default 64 MiB. */
  blobCacheBytes?: number;
  /** abort a request that takes longer. Default 30 s. */
  requestTimeoutMs?: number;
}

/** commits per compare page (GitHub's most) */
const COMPARE_PAGE = 100;
/** Files asked for per page of a commit's file list: a shorter list is the whole list, however GitHub pages. */
const COMMIT_FILES_PAGE = 100;
/** activity pages read to cover a job's window (100 pushes each) */
const MAX_ACTIVITY_PAGES = 10;

class OctokitUpstream implements Upstream {
  readonly owner: string;
  readonly repo: string;
  private readonly rest: RestClient;
  private readonly scrub: Scrubber;
  private readonly counters: UpstreamStats = { requests: 0, notModified: 0 };
  private readonly commits = new ShaCache<CommitInfo>();
  private readonly trees = new ShaCache<TreeEntry[]>();
  private readonly comparisons = new ShaCache<Comparison>();
  private readonly commitFiles = new ShaCache<{ paths: string[]; complete: boolean }>();
  private readonly recursiveTrees = new ShaCache<{ entries: TreeEntry[]; truncated: boolean }>();
  private readonly blobs: BlobCache;
  private readonly heads = new Map<string, { etag: string; sha: string }>();
  private repository: Promise<{ defaultBranch: string; private: boolean }> | undefined;

  constructor(options: OctokitUpstreamOptions) {
    if (!options.token) throw new UpstreamError('invalid', 'a GitHub token is required');
    this.owner = options.owner;
    this.repo = options.repo;
    this.scrub = makeScrubber([options.token]);
    this.blobs = new BlobCache(options.blobCacheBytes ?? 64 * 1024 * 1024);
    const client = createClient(
      {
        token: options.token,
        baseUrl: (options.baseUrl ?? process.env.GITHUB_API_URL ?? 'https://api.github.com').replace(
          /\/+$/,
          '',
        ),
        userAgent: options.userAgent,
        readRetries: options.readRetries ?? 2,
        retryBaseMs: options.retryBaseMs ?? 1000,
        maxRateLimitWaitSeconds: options.maxRateLimitWaitSeconds ?? 60,
        writesPerMinute: options.writesPerMinute ?? 80,
      },
      this.counters,
    );
    this.rest = new RestClient(client, this.owner, this.repo, this.scrub, options.requestTimeoutMs ?? 30_000);
  }

  stats(): UpstreamStats {
    return { ...this.counters };
  }

  getRepository(): Promise<{ defaultBranch: string; private: boolean }> {
    this.repository ??= this.rest.read<wire.Repository>('get repository', 'GET /repos/{owner}/{repo}').then(
      (data) => ({ defaultBranch: data.default_branch, private: data.private }),
      (error: unknown) => {
        this.repository = undefined;
        throw error;
      },
    );
    return this.repository;
  }

  async getBranchHead(branch: string): Promise<string> {
    const sha = await this.tryGetBranchHead(branch);
    if (sha === null) throw new UpstreamError('not_found', `branch "${branch}" does not exist`, 404);
    return sha;
  }

  async tryGetBranchHead(branch: string): Promise<string | null> {
    const known = this.heads.get(branch);
    try {
      const { data, headers } = await this.rest.send<wire.Ref>(
        `get branch "${branch}"`,
        `GET /repos/{owner}/{repo}/git/ref/heads/${wire.segments(branch, 'branch name')}`,
        {},
        false,
        known ? { 'if-none-match': known.etag } : undefined,
      );
      if (data.object.type !== 'commit')
        throw new UpstreamError('invalid', `branch "${branch}" does not point at a commit`);
      if (headers.etag) this.heads.set(branch, { etag: headers.etag, sha: data.object.sha });
      else this.heads.delete(branch);
      return data.object.sha;
    } catch (error) {
      if ((error as { status?: number }).status === 304 && known) return known.sha;
      this.heads.delete(branch);
      if (error instanceof UpstreamError && error.code === 'not_found') return null;
      throw error instanceof UpstreamError
        ? error
        : toUpstreamError(error, `get branch "${branch}"`, this.scrub);
    }
  }

  async listRefs(): Promise<Map<string, string>> {
    const refs = new Map<string, string>();
    for (const namespace of ['heads', 'tags']) {
      const route = `GET /repos/{owner}/{repo}/git/matching-refs/${namespace}`;
      let data: wire.Ref[];
      try {
        data = await this.rest.read<wire.Ref[]>(`list ${namespace}`, route);
      } catch (error) {
        // An empty repository answers 409; it has no refs.
        if (error instanceof UpstreamError && error.code === 'conflict') continue;
        throw error;
      }
      for (const ref of data) if (ref.ref.startsWith(`refs/${namespace}/`)) refs.set(ref.ref, ref.object.sha);
    }
    return refs;
  }

  async getCommit(sha: string): Promise<CommitInfo> {
    wire.checkSha(sha);
    return this.commits.get(sha, async () =>
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
    return this.trees.get(sha, async () => {
      const data = await this.rest.read<wire.Tree>(
        `get tree ${sha}`,
        'GET /repos/{owner}/{repo}/git/trees/{sha}',
        { sha },
      );
      return data.tree.map(wire.treeEntry);
    });
  }

  async getTreeRecursive(sha: string): Promise<{ entries: TreeEntry[]; truncated: boolean }> {
    wire.checkSha(sha);
    return this.recursiveTrees.get(sha, async () => {
      const data = await this.rest.read<wire.Tree>(
        `get tree ${sha}`,
        'GET /repos/{owner}/{repo}/git/trees/{sha}',
        { sha, recursive: '1' },
      );
      const entries = data.tree.map(wire.treeEntry);
      if (!data.truncated) {
        for (const [tree, list] of wire.subtrees(sha, entries))
          if (!this.trees.peek(tree)) this.trees.set(tree, list);
      }
      return { entries, truncated: Boolean(data.truncated) };
    });
  }

  async getBlob(sha: string): Promise<Uint8Array> {
    wire.checkSha(sha);
    return this.blobs.get(sha, async () => {
      const data = await this.rest.read<wire.Blob>(
        `get blob ${sha}`,
        'GET /repos/{owner}/{repo}/git/blobs/{sha}',
        { sha },
      );
      return wire.blobBytes(data);
    });
  }

  async getCommitFiles(sha: string): Promise<{ paths: string[]; complete: boolean }> {
    wire.checkSha(sha);
    return this.commitFiles.get(sha, async () => {
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
      };
    });
  }

  async listCommits(options: {
    sha: string;
    path?: string;
    perPage?: number;
    page?: number;
  }): Promise<CommitInfo[]> {
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

  async isAncestor(ancestor: string, descendant: string): Promise<boolean> {
    if (wire.checkSha(ancestor) === wire.checkSha(descendant)) return true;
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
      const data = await this.rest.read<wire.Compare>(
        `compare ${base}...${head}`,
        `GET /repos/{owner}/{repo}/compare/${base}...${head}`,
        { per_page: COMPARE_PAGE, page },
      );
      const commits = data.commits.map(wire.restCommit);
      for (const commit of [wire.restCommit(data.base_commit), ...commits])
        this.commits.set(commit.sha, commit);
      const files = (data.files ?? []).map((file) => ({
        path: file.filename,
        status: file.status,
        sha: file.sha,
        ...(file.previous_filename !== undefined ? { previousPath: file.previous_filename } : {}),
      }));
      return { status: data.status, totalCommits: data.total_commits, commits, files };
    });
  }

  async listPushActivity(options: { ref?: string; since?: string }): Promise<PushActivity[]> {
    const since = options.since !== undefined ? Date.parse(options.since) : Number.NEGATIVE_INFINITY;
    const items: PushActivity[] = [];
    let after: string | undefined;
    // With `since`, page back (by GitHub's opaque cursors) until the window is covered; without, one page.
    for (let page = 0; page < MAX_ACTIVITY_PAGES; page++) {
      const { data, headers } = await this.rest.send<wire.Activity[]>(
        'list activity',
        'GET /repos/{owner}/{repo}/activity',
        {
          ...(options.ref !== undefined ? { ref: options.ref } : {}),
          direction: 'desc',
          per_page: 100,
          ...(after !== undefined ? { after } : {}),
        },
      );
      items.push(...data.map(wire.activity));
      after = wire.nextCursor(headers.link);
      const oldest = items[items.length - 1];
      if (options.since === undefined || after === undefined || oldest === undefined) break;
      if (Date.parse(oldest.timestamp) < since) break;
    }
    return items.filter((item) => Date.parse(item.timestamp) >= since);
  }

  async createBlob(content: Uint8Array): Promise<string> {
    const data = await this.rest.write<{ sha: string }>(
      'create blob',
      'POST /repos/{owner}/{repo}/git/blobs',
      {
        content: Buffer.from(content).toString('base64'),
        encoding: 'base64',
      },
    );
    this.blobs.set(data.sha, content);
    return data.sha;
  }

  async createTree(baseTree: string, changes: TreeChange[]): Promise<string> {
    const tree = changes.map((change) =>
      'content' in change
        ? { path: change.path, mode: change.mode, type: 'blob', content: change.content }
        : {
            path: change.path,
            mode: 'mode' in change ? change.mode : '100644',
            type: 'blob',
            sha: change.sha,
          },
    );
    const data = await this.rest.write<{ sha: string }>(
      'create tree',
      'POST /repos/{owner}/{repo}/git/trees',
      { base_tree: baseTree, tree },
    );
    return data.sha;
  }

  async createCommit(message: string, tree: string, parents: string[]): Promise<string> {
    const data = await this.rest.write<wire.GitCommit>(
      'create commit',
      'POST /repos/{owner}/{repo}/git/commits',
      { message, tree, parents },
    );
    if (data.tree?.sha && data.author) this.commits.set(data.sha, wire.gitCommit(data));
    return data.sha;
  }

  async updateBranch(branch: string, sha: string): Promise<void> {
    try {
      await this.rest.write(
        `update branch "${branch}"`,
        `PATCH /repos/{owner}/{repo}/git/refs/heads/${wire.segments(branch, 'branch name')}`,
        { sha, force: false },
      );
    } catch (error) {
      this.heads.delete(branch);
      if (error instanceof UpstreamError && error.status === 422 && /fast.?forward/i.test(error.message)) {
        throw new UpstreamError(
          'not_fast_forward',
          `update branch "${branch}": the branch moved (not a fast forward)`,
          422,
        );
      }
      throw error;
    }
    this.heads.delete(branch);
  }

  async createStatus(sha: string, status: CommitStatus): Promise<void> {
    wire.checkSha(sha);
    const description =
      status.description.length > 140 ? `${status.description.slice(0, 139)}…` : status.description;
    await this.rest.write(`create status on ${sha}`, 'POST /repos/{owner}/{repo}/statuses/{sha}', {
      sha,
      state: status.state,
      context: status.context,
      description,
      ...(status.targetUrl !== undefined ? { target_url: status.targetUrl } : {}),
    });
  }

  async getFileAtRef(path: string, ref: string): Promise<{ text: string; sha: string }> {
    const operation = `get ${path} at ${ref}`;
    const data = await this.rest.read<wire.Contents | wire.Contents[]>(
      operation,
      `GET /repos/{owner}/{repo}/contents/${wire.segments(path, 'path')}`,
      { ref },
    );
    if (Array.isArray(data) || data.type !== 'file')
      throw new UpstreamError('invalid', `${operation}: not a file`);
    // Over 1 MB the contents API leaves `content` empty (encoding "none"): fetch the blob instead.
    const inline = data.size === 0 || (data.encoding === 'base64' && Boolean(data.content));
    const bytes = inline ? Buffer.from(data.content ?? '', 'base64') : await this.getBlob(data.sha);
    try {
      return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), sha: data.sha };
    } catch {
      throw new UpstreamError('invalid', `${operation}: not UTF-8 text`);
    }
  }
}

export function createOctokitUpstream(options: OctokitUpstreamOptions): Upstream {
  return new OctokitUpstream(options);
}
