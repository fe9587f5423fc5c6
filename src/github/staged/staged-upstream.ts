import { StagedObjects } from './staged-objects.js';
import {
  UpstreamError,
  type CommitInfo,
  type ConversationRequest,
  type Signature,
  type TreeChange,
  type TreeEntry,
  type Upstream,
} from '../upstream.js';

/** Who staged commits are by until the apply job writes them (then GitHub sets the token's identity). */
export const STAGED_SIGNATURE = {
  name: 'github-actions[bot]',
  email: '41898282+github-actions[bot]@users.noreply.github.com',
} as const;

/** Everything an apply job needs to write what was staged: the commits in order, oldest first. */
export interface StagedChangeSet {
  version: 1;
  branch: string;
  /** the bound branch's head the first staged commit sits on */
  base: string;
  commits: CommitInfo[];
  /** every staged tree, by SHA */
  trees: Record<string, TreeEntry[]>;
  /** every staged blob, base64, by SHA */
  blobs: Record<string, string>;
  /** pull request and comment requests for the apply job to judge and send, in order (absent: none) */
  conversation?: ConversationRequest[];
}

/** Far more than a conversation needs; what a change set may carry. */
export const MAX_CONVERSATION_REQUESTS = 50;

const staged = (what: string) =>
  new UpstreamError(
    'forbidden',
    `${what}: writes are staged in this job, only the bound branch takes them`,
    403,
  );

/**
 * An Upstream whose writes to the bound branch stay in the runner (`writes: stage`): blobs, trees and
 * commits are made here with git's SHAs, the bound branch's head moves here only, and every read answers
 * from GitHub plus what was staged, so an agent reads its own writes back. Everything else reads GitHub.
 */
export interface StagingOptions {
  /**
   * Keeps the change set (e.g. in a file for the post step) before the branch moves: when it throws, the
   * commit is not staged and the push fails.
   */
  save?: (set: StagedChangeSet) => Promise<void>;
  clock?: () => Date;
}

export class StagedUpstream implements Upstream {
  readonly writesStaged = true;
  private readonly objects: StagedObjects;
  /** staged commits, oldest first */
  private order: string[] = [];
  private base: string | null = null;
  private readonly requests: ConversationRequest[] = [];

  constructor(
    private readonly inner: Upstream,
    readonly branch: string,
    private readonly options: StagingOptions = {},
  ) {
    this.objects = new StagedObjects((sha) => inner.getTree(sha));
  }

  /** The upstream as it was when `set` was staged on it (read it first with readChangeSet). */
  static fromChangeSet(inner: Upstream, set: StagedChangeSet): StagedUpstream {
    const staged = new StagedUpstream(inner, set.branch);
    for (const [sha, base64] of Object.entries(set.blobs))
      staged.objects.blobs.set(sha, new Uint8Array(Buffer.from(base64, 'base64')));
    for (const [sha, entries] of Object.entries(set.trees)) staged.objects.trees.set(sha, entries);
    for (const commit of set.commits) staged.objects.commits.set(commit.sha, commit);
    staged.base = set.base;
    staged.order = set.commits.map((c) => c.sha);
    return staged;
  }

  get owner(): string {
    return this.inner.owner;
  }
  get repo(): string {
    return this.inner.repo;
  }

  /** The change set so far; null before the first staged commit. */
  changeSet(): StagedChangeSet | null {
    return this.base === null ? null : this.setOf(this.base, this.order);
  }

  private setOf(base: string, order: string[]): StagedChangeSet {
    const blobs: Record<string, string> = {};
    for (const [sha, bytes] of this.objects.blobs) blobs[sha] = Buffer.from(bytes).toString('base64');
    return {
      version: 1,
      branch: this.branch,
      base,
      commits: order.map((sha) => this.objects.commits.get(sha)!),
      trees: Object.fromEntries(this.objects.trees),
      blobs,
      ...(this.requests.length > 0 && { conversation: [...this.requests] }),
    };
  }

  /**
   * Keeps a pull request or comment request in the change set for the apply job. It rides on the staged
   * commits: before the first one there is no change set to carry it (and nothing for a pull request).
   */
  async stageRequest(request: ConversationRequest): Promise<void> {
    if (this.base === null)
      throw new UpstreamError(
        'forbidden',
        'writes are staged in this job: push a commit first, and the apply job sends this with it',
        403,
      );
    if (this.requests.length >= MAX_CONVERSATION_REQUESTS)
      throw new UpstreamError(
        'forbidden',
        `at most ${MAX_CONVERSATION_REQUESTS} requests are staged in a job`,
        403,
      );
    this.requests.push(request);
    try {
      await this.options.save?.(this.setOf(this.base, this.order));
    } catch (error) {
      this.requests.pop();
      throw error;
    }
  }

  private head(): string | null {
    return this.order.at(-1) ?? null;
  }

  stats: Upstream['stats'] = () => this.inner.stats();
  getRepository: Upstream['getRepository'] = () => this.inner.getRepository();
  serverTime: Upstream['serverTime'] = () => this.inner.serverTime();
  listActivity: Upstream['listActivity'] = (o) => this.inner.listActivity(o);
  getFileAtRef: Upstream['getFileAtRef'] = (p, r) => this.inner.getFileAtRef(p, r);
  listRulesets: Upstream['listRulesets'] = () => this.inner.listRulesets();
  listStatuses: Upstream['listStatuses'] = (sha) => this.inner.listStatuses(sha);
  listRunJobs: Upstream['listRunJobs'] = (runId) => this.inner.listRunJobs(runId);
  listRunArtifacts: Upstream['listRunArtifacts'] = (runId, name) => this.inner.listRunArtifacts(runId, name);
  listCheckRuns: Upstream['listCheckRuns'] = (sha, name) => this.inner.listCheckRuns(sha, name);
  getPullRequest: Upstream['getPullRequest'] = (n) => this.inner.getPullRequest(n);
  listPullRequestCommits: Upstream['listPullRequestCommits'] = (n) => this.inner.listPullRequestCommits(n);
  listPullRequestReviews: Upstream['listPullRequestReviews'] = (n) => this.inner.listPullRequestReviews(n);
  listOpenPullRequests: Upstream['listOpenPullRequests'] = () => this.inner.listOpenPullRequests();
  findOpenPullRequest: Upstream['findOpenPullRequest'] = (head) => this.inner.findOpenPullRequest(head);
  getThread: Upstream['getThread'] = (n, max) => this.inner.getThread(n, max);
  getPermission: Upstream['getPermission'] = (login) => this.inner.getPermission(login);

  async getBranchHead(branch: string): Promise<string> {
    return (branch === this.branch && this.head()) || this.inner.getBranchHead(branch);
  }
  async tryGetBranchHead(branch: string): Promise<string | null> {
    return (branch === this.branch && this.head()) || this.inner.tryGetBranchHead(branch);
  }
  async listRefs(): Promise<Map<string, string>> {
    const refs = await this.inner.listRefs();
    const head = this.head();
    if (head) refs.set(`refs/heads/${this.branch}`, head);
    return refs;
  }

  async getCommit(sha: string): Promise<CommitInfo> {
    const commit = this.objects.commits.get(sha);
    return commit ? { ...commit, staged: true } : this.inner.getCommit(sha);
  }
  async getTree(sha: string): Promise<TreeEntry[]> {
    return this.objects.tree(sha);
  }
  async getTrees(
    shas: string[],
    options?: Parameters<NonNullable<Upstream['getTrees']>>[1],
  ): Promise<Map<string, TreeEntry[]>> {
    const local = shas.filter((s) => this.objects.trees.has(s));
    const remote = shas.filter((s) => !this.objects.trees.has(s));
    const found =
      remote.length > 0 && this.inner.getTrees ? await this.inner.getTrees(remote, options) : new Map();
    for (const sha of local) found.set(sha, this.objects.trees.get(sha)!);
    return found;
  }
  async getPathTrees(
    commits: string[],
    path: string,
  ): Promise<Map<string, { tree: string | null; parentTree: string | null }>> {
    const remote = commits.filter((c) => !this.objects.commits.has(c));
    const found =
      remote.length > 0 && this.inner.getPathTrees ? await this.inner.getPathTrees(remote, path) : new Map();
    for (const sha of commits.filter((c) => this.objects.commits.has(c))) {
      const commit = this.objects.commits.get(sha)!;
      const parent = await this.getCommit(commit.parents[0]!);
      const at = async (tree: string) => {
        const entry = await this.objects.entryAt(tree, path);
        return entry?.type === 'tree' ? entry.sha : null;
      };
      found.set(sha, { tree: await at(commit.tree), parentTree: await at(parent.tree) });
    }
    return found;
  }
  async getBlobSizes(shas: string[], root?: string): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    const remote: string[] = [];
    for (const sha of shas) {
      const bytes = this.objects.blobs.get(sha);
      if (bytes) out.set(sha, bytes.byteLength);
      else remote.push(sha);
    }
    // a staged tree is not on GitHub: no listing of it can size anything
    const listed = root !== undefined && !this.objects.trees.has(root) ? root : undefined;
    if (remote.length > 0 && this.inner.getBlobSizes)
      for (const [sha, size] of await this.inner.getBlobSizes(remote, listed)) out.set(sha, size);
    return out;
  }
  async getTreeRecursive(sha: string): Promise<{ entries: TreeEntry[]; truncated: boolean }> {
    if (!this.objects.trees.has(sha)) return this.inner.getTreeRecursive(sha);
    const entries: TreeEntry[] = [];
    let truncated = false;
    for (const entry of this.objects.trees.get(sha)!) {
      entries.push(entry);
      if (entry.type !== 'tree') continue;
      const below = await this.getTreeRecursive(entry.sha);
      truncated ||= below.truncated;
      for (const e of below.entries) entries.push({ ...e, path: `${entry.path}/${e.path}` });
    }
    return { entries, truncated };
  }
  async getBlob(sha: string): Promise<Uint8Array> {
    return this.objects.blobs.get(sha) ?? this.inner.getBlob(sha);
  }

  async getCommitFiles(
    sha: string,
    options?: { fresh?: boolean },
  ): Promise<{ paths: string[]; complete: boolean }> {
    const commit = this.objects.commits.get(sha);
    if (!commit) return this.inner.getCommitFiles(sha, options);
    const parent = await this.getCommit(commit.parents[0]!);
    return { paths: await this.objects.changedPaths(parent.tree, commit.tree), complete: true };
  }

  async listCommits(options: Parameters<Upstream['listCommits']>[0]): Promise<CommitInfo[]> {
    const chain = this.chainFrom(options.sha);
    if (chain.length === 0) return this.inner.listCommits(options);
    const mine: CommitInfo[] = [];
    for (const sha of chain) {
      const commit = this.objects.commits.get(sha)!;
      if (options.path === undefined || (await this.touches(commit, options.path)))
        mine.push({ ...commit, staged: true });
    }
    const perPage = options.perPage ?? 30;
    const from = ((options.page ?? 1) - 1) * perPage;
    const out = mine.slice(from, from + perPage);
    if (out.length === perPage) return out;
    // GitHub's pages below the staged commits, re-cut at this page's offset
    const skip = Math.max(0, from - mine.length);
    const first = Math.floor(skip / perPage) + 1;
    const base = { sha: this.base!, ...(options.path === undefined ? {} : { path: options.path }), perPage };
    const below = [
      ...(await this.inner.listCommits({ ...base, page: first })),
      ...(skip % perPage > 0 ? await this.inner.listCommits({ ...base, page: first + 1 }) : []),
    ];
    return [...out, ...below.slice(skip % perPage)].slice(0, perPage);
  }

  async isAncestor(ancestor: string, descendant: string): Promise<boolean> {
    const chain = this.chainFrom(descendant);
    if (chain.includes(ancestor)) return true;
    if (this.objects.commits.has(ancestor)) return false;
    return this.inner.isAncestor(ancestor, chain.length > 0 ? this.base! : descendant);
  }

  /** The staged commits are on this machine; below them, as GitHub's branch is held (isAncestor's route). */
  holdsHistory(head: string): boolean {
    const chain = this.chainFrom(head);
    return this.inner.holdsHistory?.(chain.length > 0 ? this.base! : head) ?? false;
  }

  compare: Upstream['compare'] = (base, head) => {
    if (this.objects.commits.has(base) || this.objects.commits.has(head))
      return Promise.reject(staged('comparing staged commits'));
    return this.inner.compare(base, head);
  };

  async createBlob(content: Uint8Array): Promise<string> {
    return this.objects.addBlob(content);
  }
  async createTree(baseTree: string, changes: TreeChange[]): Promise<string> {
    return this.objects.editTree(baseTree, changes);
  }
  async createCommit(message: string, tree: string, parents: string[]): Promise<string> {
    const now = (this.options.clock?.() ?? new Date()).toISOString().replace(/\.\d+Z$/, 'Z');
    const signature: Signature = { ...STAGED_SIGNATURE, date: now };
    return this.objects.addCommit(message, tree, parents, signature).sha;
  }

  /** Fast-forward only, as GitHub's: the commit's first parent must be the staged head (or GitHub's). */
  async updateBranch(branch: string, sha: string): Promise<void> {
    if (branch !== this.branch) throw staged(`moving ${branch}`);
    const commit = this.objects.commits.get(sha);
    if (!commit) throw staged(`moving ${branch} to a commit that was not staged`);
    const head = this.head() ?? (await this.inner.getBranchHead(branch));
    if (commit.parents[0] !== head)
      throw new UpstreamError('not_fast_forward', 'Update is not a fast forward', 422);
    const base = this.base ?? head;
    const order = [...this.order, sha];
    try {
      await this.options.save?.(this.setOf(base, order));
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      throw new UpstreamError('unavailable', `the staged commit could not be saved: ${why}`);
    }
    this.base = base;
    this.order = order;
  }

  createBranch: Upstream['createBranch'] = (branch) => Promise.reject(staged(`creating ${branch}`));
  deleteBranch: Upstream['deleteBranch'] = (branch) => Promise.reject(staged(`deleting ${branch}`));
  createStatus: Upstream['createStatus'] = () => Promise.reject(staged('posting a status'));
  createCheckRun: Upstream['createCheckRun'] = () => Promise.reject(staged('creating a check run'));
  addCheckRunAnnotations: Upstream['addCheckRunAnnotations'] = () =>
    Promise.reject(staged('updating a check run'));
  createPullRequest: Upstream['createPullRequest'] = () => Promise.reject(staged('opening a pull request'));
  createPullRequestReview: Upstream['createPullRequestReview'] = () =>
    Promise.reject(staged('reviewing a pull request'));
  updatePullRequest: Upstream['updatePullRequest'] = () => Promise.reject(staged('updating a pull request'));
  addLabels: Upstream['addLabels'] = () => Promise.reject(staged('labelling'));
  createIssueComment: Upstream['createIssueComment'] = () => Promise.reject(staged('commenting'));

  /** Staged commits reachable from `sha`, newest first (empty when `sha` is not staged). */
  private chainFrom(sha: string): string[] {
    const at = this.order.indexOf(sha);
    return at < 0 ? [] : this.order.slice(0, at + 1).reverse();
  }

  private async touches(commit: CommitInfo, path: string): Promise<boolean> {
    const parent = await this.getCommit(commit.parents[0]!);
    const [now, before] = await Promise.all([
      this.objects.entryAt(commit.tree, path),
      this.objects.entryAt(parent.tree, path),
    ]);
    return now?.sha !== before?.sha || now?.mode !== before?.mode;
  }
}
