/**
 * The one interface between Perimeter and GitHub, in roles (reads, writes, receipts, run records, pull
 * requests): a caller asks for the roles it uses, and `Upstream` is all of them. The Octokit implementation
 * lives in octokit-upstream.ts; tests may use a small fake of the roles their subject takes, or the GitHub
 * stand-in.
 *
 * Repository coordinates are fixed when an Upstream is made: nothing here names another repository.
 * Objects addressed by SHA (commits, trees, blobs) never change and are cached for the process lifetime.
 */

import type { RefRuleset } from '../policy/index.js';

export type EntryType = 'blob' | 'tree' | 'commit';

/** One entry of a git tree. `path` is relative to the tree that was listed. */
export interface TreeEntry {
  path: string;
  /** git file mode: 100644, 100755, 120000 (symlink), 040000 (tree), 160000 (submodule) */
  mode: string;
  type: EntryType;
  sha: string;
  /** blob size in bytes (absent for trees and submodules) */
  size?: number;
}

export interface Signature {
  name: string;
  email: string;
  date: string;
}

export interface CommitIdentity {
  author: { login: string; type: string } | null;
  committer: { login: string; type: string } | null;
  verified: boolean;
  reason: string;
}

export interface CommitInfo {
  sha: string;
  tree: string;
  parents: string[];
  message: string;
  author: Signature;
  committer: Signature;
  /**
   * What GitHub says about who made the commit (the commits API only; absent when read as a git object):
   * the accounts it links the author and committer to, and its signature verification.
   */
  github?: CommitIdentity;
  /** kept in the runner for a later apply job (`writes: stage`), not on GitHub yet */
  staged?: true;
}

/** A change for createTree: inline text content, an existing blob SHA, or null SHA to delete. */
export type TreeChange =
  | { path: string; mode: '100644' | '100755'; content: string }
  | { path: string; mode: '100644' | '100755'; sha: string }
  | { path: string; sha: null };

export interface CommitStatus {
  state: 'success' | 'failure' | 'error' | 'pending';
  context: string;
  description: string;
  targetUrl?: string;
}

/**
 * An annotation on a file of a check run: `level` failure for a file outside the perimeters. GitHub needs a line
 * range; a whole-file finding is put on line 1.
 * https://docs.github.com/rest/checks/runs#create-a-check-run (the annotations object)
 */
export interface CheckAnnotation {
  path: string;
  level: 'notice' | 'warning' | 'failure';
  title: string;
  message: string;
}

/**
 * A completed check run: the receipt in the pull request's Checks tab. `annotations` at most 50 (GitHub's limit
 * for one request; more go through updateCheckRun). `summary` and `text` at most 65,535 characters.
 * https://docs.github.com/rest/checks/runs#create-a-check-run
 */
export interface CheckRun {
  name: string;
  conclusion: 'success' | 'failure';
  detailsUrl?: string;
  title: string;
  summary: string;
  text?: string;
  annotations: CheckAnnotation[];
}

/**
 * A check run as GitHub lists it. Its times are the creator's to set (started_at and completed_at are request
 * fields), unlike a status's created_at; the id and the app are GitHub's.
 */
export interface CheckRunRecord {
  id: number;
  name: string;
  status: string;
  conclusion: string | null;
  title: string | null;
  startedAt: string | null;
  completedAt: string | null;
  /** the app that created it (a GITHUB_TOKEN's is github-actions); null when GitHub names none */
  app: string | null;
}

/** A commit status as GitHub lists it: its id, who posted it and when, on GitHub's clock. */
export interface StatusRecord {
  id: number;
  state: CommitStatus['state'];
  context: string;
  description: string | null;
  targetUrl: string | null;
  /** the login of the token that posted it; null when GitHub names none */
  creator: string | null;
  createdAt: string;
}

/**
 * A workflow job as the Actions jobs API shows it (status queued, in_progress, completed, waiting, ...;
 * conclusion success, failure, cancelled, skipped, timed_out, ... once completed).
 * https://docs.github.com/rest/actions/workflow-jobs#list-jobs-for-a-workflow-run
 */
export interface WorkflowJob {
  id: number;
  runId: number;
  runAttempt: number;
  name: string;
  status: string;
  conclusion: string | null;
  startedAt: string;
  completedAt: string | null;
  runnerName: string | null;
  /** its steps in order, as its runner reported them (an action's post step is named `Post <step>`) */
  steps: WorkflowStep[];
}

/**
 * A step of a workflow job, with GitHub's times (whole seconds; null while it has not started or ended).
 * https://docs.github.com/rest/actions/workflow-jobs#get-a-job-for-a-workflow-run
 */
export interface WorkflowStep {
  name: string;
  number: number;
  status: string;
  conclusion: string | null;
  startedAt: string | null;
  completedAt: string | null;
}

/**
 * A workflow artifact as the REST API lists it: GitHub's own time of its creation and the SHA-256 of its
 * zip (`sha256:<hex>`; null for artifacts uploaded before GitHub recorded digests).
 * https://docs.github.com/rest/actions/artifacts#list-workflow-run-artifacts
 */
export interface RunArtifact {
  id: number;
  name: string;
  createdAt: string;
  digest: string | null;
  expired: boolean;
}

/**
 * One ref change in the repository's activity list (GET /repos/{o}/{r}/activity). GitHub records branches
 * only (`ref` is documented as `refs/heads/<branch>`), with activity_type push, force_push, branch_creation,
 * branch_deletion, pr_merge or merge_queue_merge; `before`/`after` are all zeros for a ref that is absent.
 * https://docs.github.com/rest/repos/repos#list-repository-activities
 */
export interface PushActivity {
  ref: string;
  before: string;
  after: string;
  actor: string | null;
  activityType: string;
  timestamp: string;
}

export interface ActivityWindow {
  /** newest first, each at or after `since` */
  items: PushActivity[];
  complete: boolean;
}

/** base...head as GitHub compares them. */
export interface Comparison {
  status: 'identical' | 'ahead' | 'behind' | 'diverged';
  /** how many commits head has that the merge base lacks */
  totalCommits: number;
  /** one page of those commits, oldest first */
  commits: CommitInfo[];
  /**
   * The changed files from the merge base to head, as GitHub lists them: at most 300, without modes. A hint
   * for where to look, never a verdict.
   */
  files: ComparedFile[];
}

export interface ComparedFile {
  path: string;
  /** the old path of a rename */
  previousPath?: string;
  /** added, removed, modified, renamed, copied, changed, unchanged */
  status: string;
  /** the blob now at `path` (for a removed file, the blob removed) */
  sha: string;
}

/** One commit of a path's history, with the tree at the path in it and in its first parent. */
export interface PathCommit {
  commit: CommitInfo;
  /** null where the path is absent; undefined where it is not a tree (a file, a submodule) */
  tree: string | null | undefined;
  /** as `tree`, in the first parent (null for a root commit) */
  parentTree: string | null | undefined;
}

/** A branch's head and one page of the commits changing a path, newest first. */
export interface PathHistoryPage {
  head: CommitInfo;
  commits: PathCommit[];
  hasNextPage: boolean;
  /** where the next page starts (opaque) */
  endCursor: string | null;
}

/**
 * A pull request as GitHub shows it now. `baseSha` is the base branch head GitHub compared with when the pull
 * request last changed; `commits` is how many commits GitHub counts in it.
 * https://docs.github.com/rest/pulls/pulls#get-a-pull-request
 */
export interface PullRequestInfo {
  number: number;
  state: string;
  /** `user.login`: who opened it (Copilot coding agent's pull requests say "Copilot") */
  author: string;
  baseRef: string;
  baseSha: string;
  headRef: string;
  headSha: string;
  /** owner/name of the repository the head branch is in; null when that repository was deleted */
  headRepository: string | null;
  commits: number;
}

export interface UpstreamStats {
  /** requests sent, including those answered 304 */
  requests: number;
  /** requests answered 304 Not Modified (they do not spend GitHub's rate limit) */
  notModified: number;
  /** HTTP requests over git's smart HTTP (ref and blob reads), charged to neither REST's nor GraphQL's budget */
  git?: number;
}

export type UpstreamErrorCode =
  'not_found' | 'not_fast_forward' | 'conflict' | 'forbidden' | 'rate_limited' | 'invalid' | 'unavailable';

/** Errors from upstream, with messages already scrubbed of credentials. */
export class UpstreamError extends Error {
  constructor(
    readonly code: UpstreamErrorCode,
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'UpstreamError';
  }
}

/**
 * Where an Upstream points, and what it has spent. Every role below is of one repository, the one named here.
 */
export interface RepoCoordinates {
  readonly owner: string;
  readonly repo: string;
  /** true when writes to the bound branch are kept in the runner for a later apply job (`writes: stage`) */
  readonly writesStaged?: boolean;
  stats(): UpstreamStats;
}

/** Reads of the repository: its refs, git objects, history, activity list and files at a ref. */
export interface RepoReads {
  getRepository(): Promise<{ defaultBranch: string; private: boolean }>;
  /** GitHub's clock now, from the Date header of a request that costs no rate limit (GET /rate_limit). */
  serverTime(): Promise<string>;
  /** Head SHA of a branch, checked with a conditional request. Throws not_found. */
  getBranchHead(branch: string): Promise<string>;
  /** Like getBranchHead, but null when the branch does not exist. */
  tryGetBranchHead(branch: string): Promise<string | null>;
  /**
   * Every ref in every namespace a token can write (heads, tags, notes, custom ones): full name to SHA.
   * `refs/pull/*` are left out: GitHub alone moves them and no push may write them.
   */
  listRefs(): Promise<Map<string, string>>;
  /**
   * The branch and tag rulesets that apply to the repository (its organization's too), with their conditions,
   * rules and whether this token may bypass each: what decides whether a ref can be moved by the job's token.
   */
  listRulesets(): Promise<RefRuleset[]>;

  getCommit(sha: string): Promise<CommitInfo>;
  /** The direct entries of one tree (not recursive). */
  getTree(sha: string): Promise<TreeEntry[]>;
  /**
   * Direct listings of many trees at once, and of the trees below each a few levels down, by tree SHA: GraphQL
   * object reads by alias, charged to GraphQL's own budget. A listing is in the map only when its entries
   * hash to its SHA; what is missing (GraphQL failed or could not prove it) is for REST. Absent: REST only.
   */
  getTrees?(
    shas: string[],
    options?: {
      /** levels of entries per tree asked for (default 3) */
      levels?: number;
      /** trees per call (default 25) */
      perCall?: number;
    },
  ): Promise<Map<string, TreeEntry[]>>;
  /**
   * Commits by SHA in batched GraphQL calls: each commit, and the root tree of each of its parents; the
   * listings of its tree `levels` levels down and of its parents' trees `parentLevels` down (default
   * `levels`; 0: SHAs only) come along (getTree then has them, getCommit has the commit), and those of
   * `trees`, `levels` deep, in the same call. A commit is missing from the map when GraphQL failed or its
   * answer was not whole. Absent: REST only.
   */
  getCommitTrees?(
    commits: string[],
    options: { levels: number; parentLevels?: number; trees?: string[] },
  ): Promise<Map<string, { commit: CommitInfo; parentTrees: string[] }>>;
  /**
   * For each commit, the tree at `path` in it and in its first parent (null where absent), in batched
   * GraphQL calls; the listings of a few levels below come along (getTrees then has them). A commit is
   * missing from the map when this could not tell (the path is a file there, GraphQL failed). Absent: REST only.
   */
  getPathTrees?(
    commits: string[],
    path: string,
  ): Promise<Map<string, { tree: string | null; parentTree: string | null }>>;
  /**
   * The branch head and one page of the commits reachable from it that change `path` (newest first, as
   * listCommits with `path` lists them), each with the tree at `path` in it and in its first parent; the
   * listings of those trees `levels` levels down come along (getTree then has them). One GraphQL call. Null
   * when GraphQL failed or the answer could not be used (then ask REST). Absent: REST only.
   */
  getPathHistory?(
    branch: string,
    path: string,
    options: { first: number; after?: string | null; levels: number },
  ): Promise<PathHistoryPage | null>;
  /**
   * Text blobs by SHA in batched GraphQL calls (at most 100 blobs and 4 MiB a call), charged to GraphQL's own
   * budget. A blob is in the map only when its text hashes to its SHA; what is missing (binary, truncated by
   * GitHub, over 1 MiB, GraphQL failed) is for getBlob. Absent: REST only.
   */
  getBlobs?(blobs: Array<{ sha: string; size?: number | undefined }>): Promise<Map<string, Uint8Array>>;
  /**
   * Blobs by SHA over git's smart HTTP (src/github/git-blobs.ts), all asked for at once in one or a few
   * fetches, charged to neither the REST nor the GraphQL budget. A blob is in the map only when git brought
   * it; what is missing (git refused, unreachable, missing) is for getBlobs and getBlob. Absent: no git.
   */
  getBlobsOverGit?(shas: string[]): Promise<Map<string, Uint8Array>>;
  /**
   * The sizes of blobs an answer shows (listings read from a history copy have none: it holds no blob), off
   * both budgets where git can bring the blobs; else from one recursive listing of `root` (a tree on
   * GitHub they are below), when given, and a few blob reads. A blob missing from the map could not be
   * sized. Absent: listings carry their sizes.
   */
  getBlobSizes?(shas: string[], root?: string): Promise<Map<string, number>>;
  /** Every entry below a tree; `truncated` as GitHub reports it (a blob's size may be missing: getBlobSizes). */
  getTreeRecursive(sha: string): Promise<{ entries: TreeEntry[]; truncated: boolean }>;
  getBlob(sha: string): Promise<Uint8Array>;
  /**
   * Paths a commit changed against its first parent, both sides of a rename, from one page of its file
   * list. `complete` is false when GitHub may have left some out (the list pages at 300 files, at most
   * 100 when asked as Perimeter asks); then diff its trees instead. `files`, when given, is that list as
   * GitHub gives it (status and blob SHA, no modes). `fresh`: asked even when known (a list another read
   * brought is not used; one rememberCommitFiles told is), for a question whose cost must not depend on what
   * other reads learned.
   */
  getCommitFiles(
    sha: string,
    options?: { fresh?: boolean },
  ): Promise<{ paths: string[]; complete: boolean; files?: ComparedFile[] }>;
  /**
   * A commit's whole file list known another way (the gateway's own push, diffed from indexes checked
   * against the tree SHAs): getCommitFiles answers it without a request.
   */
  rememberCommitFiles?(sha: string, files: ComparedFile[]): void;
  /** Commits reachable from `sha`, newest first, optionally only those touching `path`. */
  listCommits(options: {
    sha: string;
    path?: string;
    perPage?: number;
    page?: number;
  }): Promise<CommitInfo[]>;
  /** Whether `ancestor` is reachable from `descendant` (true when equal). */
  isAncestor(ancestor: string, descendant: string): Promise<boolean>;
  /**
   * Whether every commit reachable from `head` is read on this machine (the history copy holds it): then
   * isAncestor with `head` as the descendant, and getCommit, getTree and getCommitTrees of the commits below
   * it, make no request at all, whatever the other commit is. Absent: every such read may be a request.
   */
  holdsHistory?(head: string): boolean;
  /** Compares two commits by SHA; `page` (from 1) pages the commits, 100 at a time. Throws not_found. */
  compare(base: string, head: string, page?: number): Promise<Comparison>;
  /**
   * The activity list from now back to `since`, newest first, paged by GitHub's cursors. `complete` is true
   * only when the reading reached an item older than `since` or the end of the list; it stops with
   * `complete: false` after `maxItems`. Throws when a page cannot be read.
   */
  listActivity(options: { since: string; maxItems?: number }): Promise<ActivityWindow>;
  /** File text at a ref via the contents API (used to read perimeters.yml from a trusted ref). */
  getFileAtRef(path: string, ref: string): Promise<{ text: string; sha: string }>;
  /**
   * The repository's default branch and a file at `ref` (null: on the default branch), together where one
   * request can bring both; the file's errors as getFileAtRef's. `commit`: the commit the file was read
   * at, when known (null: only the ref).
   */
  getRepositoryFile?(path: string, ref: string | null): Promise<RepositoryFile>;
}

/** The default branch and a file read beside it (RepoReads.getRepositoryFile). */
export interface RepositoryFile {
  defaultBranch: string;
  ref: string;
  /** the commit the file was read at, when known (null: only the ref) */
  commit: string | null;
  file: { text: string; sha: string };
}

/** Writes of git objects and branches. */
export interface RepoWrites {
  createBlob(content: Uint8Array): Promise<string>;
  createTree(baseTree: string, changes: TreeChange[]): Promise<string>;
  /** A commit with no custom author or committer, so GitHub signs it. */
  createCommit(message: string, tree: string, parents: string[]): Promise<string>;
  /**
   * One commit of these changes on `branch`, landing only while the branch is at `expectedHead` (GraphQL
   * createCommitOnBranch, one request on GraphQL's budget; every file written with mode 100644; signed by
   * GitHub). Throws not_fast_forward when the branch moved, rate_limited, not_found, forbidden or invalid when
   * GitHub refused it (nothing written; rate_limited with status 200 when GraphQL's own budget is spent, any
   * other status for a secondary limit, which REST shares), unavailable when the outcome is not known.
   * Absent: REST only.
   */
  commitOnBranch?(
    branch: string,
    expectedHead: string,
    message: string,
    changes: { additions: Array<{ path: string; bytes: Uint8Array }>; deletions: string[] },
  ): Promise<CommitInfo>;
  /** Creates a branch at `sha`; throws when it exists or GitHub refuses it (a ruleset, say). */
  createBranch(branch: string, sha: string): Promise<void>;
  deleteBranch(branch: string): Promise<void>;
  /** Fast-forward only. Throws not_fast_forward when the branch moved. */
  updateBranch(branch: string, sha: string): Promise<void>;
}

/** Commit statuses and check runs: the receipts, posted and listed. */
export interface Receipts {
  /** Posts a commit status; GitHub's record of it (id, creator, time) comes back. */
  createStatus(sha: string, status: CommitStatus): Promise<StatusRecord>;
  /**
   * Every status on a commit, newest first (GitHub keeps at most 1,000 per context and commit).
   * https://docs.github.com/rest/commits/statuses#list-commit-statuses-for-a-reference
   */
  listStatuses(sha: string): Promise<StatusRecord[]>;
  /** Creates a completed check run on a commit (needs `checks: write`); GitHub's id for it comes back. */
  createCheckRun(sha: string, run: CheckRun): Promise<number>;
  /**
   * Appends annotations (at most 50) to a check run, as GitHub asks for more than 50.
   * https://docs.github.com/rest/checks/runs#update-a-check-run
   */
  addCheckRunAnnotations(id: number, run: Pick<CheckRun, 'title' | 'summary' | 'annotations'>): Promise<void>;
  /** Every check run of that name on a commit, from every app, newest first (needs `checks: read`). */
  listCheckRuns(sha: string, name: string): Promise<CheckRunRecord[]>;
  /**
   * For many commits at once (batched GraphQL calls): whether each has any status on `context`, and, with
   * `checkRuns`, every check run of that name on it. A commit is missing from the map when GraphQL failed or
   * its answer was not whole (then listStatuses and listCheckRuns). Absent: REST only.
   */
  screenReceipts?(shas: string[], context: string, checkRuns: boolean): Promise<Map<string, ReceiptScreen>>;
}

/** What one batched read tells of a commit's receipts (Receipts.screenReceipts). */
export interface ReceiptScreen {
  /** whether any status is on the context (GraphQL shows the newest only: if so, list them by REST) */
  hasStatus: boolean;
  /** every check run of the name, newest first; null when not asked */
  checkRuns: CheckRunRecord[] | null;
}

/** GitHub's record of workflow runs. */
export interface RunRecords {
  /** The jobs of every attempt of a workflow run (needs `actions: read`). */
  listRunJobs(runId: number): Promise<WorkflowJob[]>;
  /** The artifacts of a workflow run that have this name, every one GitHub lists (needs `actions: read`). */
  listRunArtifacts(runId: number, name: string): Promise<RunArtifact[]>;
}

/** Pull requests of the repository, read and opened. */
export interface PullRequests {
  /** A pull request of this repository, read now. Throws not_found. */
  getPullRequest(number: number): Promise<PullRequestInfo>;
  /**
   * The commits of a pull request as GitHub lists them, oldest first, every page: at most 250, whatever the
   * pull request holds (compare the count with PullRequestInfo.commits).
   * https://docs.github.com/rest/pulls/pulls#list-commits-on-a-pull-request
   */
  listPullRequestCommits(number: number): Promise<CommitInfo[]>;
  /**
   * The reviews of a pull request, oldest first, every page: who reviewed, the verdict, and the commit reviewed.
   * https://docs.github.com/rest/pulls/reviews#list-reviews-for-a-pull-request
   */
  listPullRequestReviews(number: number): Promise<PullRequestReviewRecord[]>;
  /**
   * The open pull requests of this repository, every page, each as GitHub lists it (no commit count).
   * https://docs.github.com/rest/pulls/pulls#list-pull-requests
   */
  listOpenPullRequests(): Promise<Array<Omit<PullRequestInfo, 'commits'>>>;
  /** Opens a pull request from `head` (a branch of this repository) into `base`, with labels if any. */
  createPullRequest(request: PullRequestRequest): Promise<{ number: number; url: string }>;
  /**
   * Submits a review on a pull request (never APPROVE: Perimeter never approves). GitHub refuses (422,
   * `invalid`) REQUEST_CHANGES on one's own pull request.
   * https://docs.github.com/rest/pulls/reviews#create-a-review-for-a-pull-request
   */
  createPullRequestReview(number: number, review: PullRequestReview): Promise<{ id: number; url: string }>;
}

export interface PullRequestReviewRecord {
  /** the reviewer's login; null for a deleted account */
  user: string | null;
  /** GitHub's review state: APPROVED, CHANGES_REQUESTED, COMMENTED, DISMISSED, PENDING */
  state: string;
  /** the commit the review was written for */
  commitId: string | null;
}

export interface PullRequestReview {
  event: 'REQUEST_CHANGES' | 'COMMENT';
  body: string;
  /** the commit reviewed: the head the review was written for */
  commitId: string;
}

/**
 * The conversation around the agent's change (the conversation tools): the pull request from a branch, and the
 * comments of an issue or pull request. Every text here is the caller's to have filtered.
 */
export interface Conversations {
  /**
   * The open pull request from `head` (a branch of this repository), or null.
   * https://docs.github.com/rest/pulls/pulls#list-pull-requests (`head=owner:branch`)
   */
  findOpenPullRequest(head: string): Promise<OpenPullRequest | null>;
  /** https://docs.github.com/rest/pulls/pulls#update-a-pull-request (REST cannot change draft) */
  updatePullRequest(number: number, change: { title: string; body: string }): Promise<OpenPullRequest>;
  /** https://docs.github.com/rest/issues/labels#add-labels-to-an-issue */
  addLabels(number: number, labels: string[]): Promise<void>;
  /** https://docs.github.com/rest/issues/comments#create-an-issue-comment */
  createIssueComment(number: number, body: string): Promise<{ id: number; url: string }>;
  /**
   * An issue or pull request and its comments, oldest first, at most `maxComments` (`complete` false when
   * there were more). https://docs.github.com/rest/issues/issues#get-an-issue,
   * https://docs.github.com/rest/issues/comments#list-issue-comments
   */
  getThread(number: number, maxComments: number): Promise<ThreadInfo>;
  /**
   * A person's permission on this repository: admin, write, read or none.
   * https://docs.github.com/rest/collaborators/collaborators#get-repository-permissions-for-a-user
   */
  getPermission(login: string): Promise<string>;
}

/**
 * A conversation write kept for the apply job (`writes: stage`), with the agent's own text: apply judges it
 * again with its perimeter's rule and prepares the text itself before anything is sent.
 */
export type ConversationRequest =
  | {
      kind: 'pull_request';
      perimeter: string;
      title: string;
      body: string;
      base: string;
      draft: boolean;
      labels: string[];
    }
  | { kind: 'comment'; perimeter: string; thread: 'pull_request' | 'trigger'; body: string };

export interface OpenPullRequest {
  number: number;
  url: string;
  base: string;
  draft: boolean;
  labels: string[];
}

export interface ThreadPost {
  author: string | null;
  body: string;
  createdAt: string;
}

export interface ThreadInfo {
  number: number;
  kind: 'issue' | 'pull_request';
  url: string;
  state: string;
  title: string;
  /** the opening post; its body is '' when empty */
  opening: ThreadPost;
  comments: ThreadPost[];
  complete: boolean;
}

/** Every role at once: what the Octokit implementation and the staged upstream provide. */
export interface Upstream
  extends RepoCoordinates, RepoReads, RepoWrites, Receipts, RunRecords, PullRequests, Conversations {}

export interface PullRequestRequest {
  title: string;
  body: string;
  head: string;
  base: string;
  draft: boolean;
  labels: string[];
}
