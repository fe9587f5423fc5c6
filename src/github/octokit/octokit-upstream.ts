import type { RefRuleset } from '../../policy/index.js';
import { makeScrubber, type Scrubber } from '../../safety/secret-forms.js';
import { toUpstreamError } from './errors.js';
import {
  COMMIT_ON_BRANCH,
  commitInput,
  committed,
  type CommitAnswer,
  type FileChanges,
} from './graphql-commit.js';
import { blobSha } from '../git-objects.js';
import { createClient, createLightClient, RestClient } from './octokit-client.js';
import { listActivity } from './octokit-activity.js';
import { listRulesets } from './octokit-rulesets.js';
import { GitObjectReads } from './octokit-objects.js';
import { cloneUrl, GitBlobReader } from '../git-blobs.js';
import { GitRefReader } from '../git-refs.js';
import { trustedGit } from '../trusted-binary.js';
import { GitHistory } from '../git-history.js';
import {
  RECEIPT_COMMITS_PER_CALL,
  receiptsOf,
  receiptsQuery,
  type ReceiptsAnswer,
} from './graphql-receipts.js';
import {
  REPOSITORY_FILE,
  repositoryFileOf,
  repositoryFileVariables,
  type RepositoryFileAnswer,
} from './graphql-repository.js';
import {
  UpstreamError,
  type CommitInfo,
  type CheckAnnotation,
  type CheckRun,
  type CheckRunRecord,
  type CommitStatus,
  type Conversations,
  type PullRequestInfo,
  type PullRequestRequest,
  type PullRequestReview,
  type PullRequestReviewRecord,
  type ReceiptScreen,
  type RepositoryFile,
  type ActivityWindow,
  type StatusRecord,
  type RunArtifact,
  type WorkflowJob,
  type TreeChange,
  type Upstream,
  type UpstreamStats,
} from '../upstream.js';
import * as wire from './wire.js';
import { octokitConversations } from './octokit-conversations.js';

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
  /**
   * Read blobs and branch heads over git's smart HTTP from this clone URL (src/github/git-blobs.ts,
   * src/github/git-refs.ts), falling back to REST. Default: the clone URL of the GitHub that serves baseUrl;
   * false: REST only.
   */
  gitUrl?: string | false;
  /**
   * Keep a partial copy of history (commits and trees, src/github/git-history.ts) in a 0700 directory made
   * in `dir` and answer commits, trees and history from it: brought up to date at each read of `branch`'s
   * head when given (the gateway), else fetched when a compare or an ancestry question needs a commit it
   * lacks (the verifier). Needs git over HTTP (`gitUrl`) and a root-owned git binary (trusted-binary.ts);
   * absent or unusable: REST and GraphQL, as without it.
   */
  history?: { dir: string; branch?: string; timeoutMs?: number };
  /** the signal that ends one attempt after `ms`. Default AbortSignal.timeout; tests inject their own clock. */
  attemptSignal?: (ms: number) => AbortSignal;
}

class OctokitUpstream extends GitObjectReads implements Upstream {
  readonly owner: string;
  readonly repo: string;
  protected readonly rest: RestClient;
  private readonly scrub: Scrubber;
  private readonly counters: UpstreamStats = { requests: 0, notModified: 0 };
  private readonly heads = new Map<string, { etag: string; sha: string }>();
  private repository: Promise<{ defaultBranch: string; private: boolean }> | undefined;
  private readonly gitRefs: GitRefReader | null = null;
  private readonly historyBranch: string | null = null;

  constructor(options: OctokitUpstreamOptions) {
    super(options.blobCacheBytes ?? 64 * 1024 * 1024);
    if (!options.token) throw new UpstreamError('invalid', 'a GitHub token is required');
    this.owner = options.owner;
    this.repo = options.repo;
    this.scrub = makeScrubber([options.token]);
    const clientOptions = {
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
      attemptSignal: options.attemptSignal,
    };
    this.rest = new RestClient(
      createClient(clientOptions, this.counters),
      this.owner,
      this.repo,
      this.scrub,
      options.requestTimeoutMs ?? 30_000,
      createLightClient(clientOptions, this.counters),
    );
    if (options.gitUrl !== false) {
      const url = options.gitUrl ?? cloneUrl(clientOptions.baseUrl, this.owner, this.repo);
      this.gitBlobs = new GitBlobReader({ url, token: options.token });
      this.gitRefs = new GitRefReader({ url, token: options.token });
      const git = trustedGit();
      if (options.history && git) {
        this.historyBranch = options.history.branch ?? null;
        this.gitHistory = new GitHistory({
          url,
          token: options.token,
          git,
          parentDir: options.history.dir,
          ...(options.history.timeoutMs !== undefined ? { timeoutMs: options.history.timeoutMs } : {}),
        });
      }
    }
  }

  stats(): UpstreamStats {
    const git =
      (this.gitRefs?.requests ?? 0) + 2 * (this.gitBlobs?.fetches ?? 0) + 2 * (this.gitHistory?.fetches ?? 0);
    return { ...this.counters, git };
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

  async serverTime(): Promise<string> {
    // "Accessing this endpoint does not count against your REST API rate limit."
    // https://docs.github.com/rest/rate-limit/rate-limit#get-rate-limit-status-for-the-authenticated-user
    const { headers } = await this.rest.send('read the time', 'GET /rate_limit');
    const time = Date.parse(String(headers.date ?? ''));
    if (Number.isNaN(time)) throw new UpstreamError('invalid', 'GitHub sent no Date header');
    return new Date(time).toISOString();
  }

  async getBranchHead(branch: string): Promise<string> {
    const sha = await this.tryGetBranchHead(branch);
    if (sha === null) throw new UpstreamError('not_found', `branch "${branch}" does not exist`, 404);
    return sha;
  }

  async tryGetBranchHead(branch: string): Promise<string | null> {
    const head = await this.readBranchHead(branch);
    // the history copy follows its branch at each read of the head: what is read next is then on this machine
    if (head !== null && branch === this.historyBranch) await this.gitHistory?.update(branch, head);
    return head;
  }

  private async readBranchHead(branch: string): Promise<string | null> {
    // Over git when it answers: a ref read GitHub does not charge, where REST charges every head that moved
    // (a 304 is free, but the first read after each push is a 200). A name outside printable ASCII goes
    // to REST (a line break would end the pkt-line early; REST refuses what git refuses).
    if (this.gitRefs && !this.gitRefs.failed && !/[^\x21-\x7e]/.test(branch)) {
      const ref = `refs/heads/${branch}`;
      const found = await this.gitRefs.list([ref]).catch(() => null);
      if (found) return found.get(ref) ?? null;
    }
    const known = this.heads.get(branch);
    try {
      const { data, headers } = await this.rest.sendLight<wire.Ref>(
        `get branch "${branch}"`,
        `GET /repos/{owner}/{repo}/git/ref/heads/${wire.segments(branch, 'branch name')}`,
        {},
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

  /**
   * listCommits from a branch named instead of a SHA (the trusted ref the gateway serves instruction files
   * from, say): the name is read over git and the history copy answers from its SHA, as GitHub would from
   * the name. Anything else (a tag, a short SHA, git failing) is GitHub's to resolve.
   */
  override async listCommits(options: {
    sha: string;
    path?: string;
    perPage?: number;
    page?: number;
  }): Promise<CommitInfo[]> {
    if (this.gitHistory && this.gitRefs && !this.gitRefs.failed && !/^[0-9a-f]{40}$/.test(options.sha)) {
      const name = options.sha.startsWith('refs/heads/') ? options.sha : `refs/heads/${options.sha}`;
      const found = /[^\x21-\x7e]/.test(name) ? null : await this.gitRefs.list([name]).catch(() => null);
      const sha = found?.get(name);
      if (sha) {
        await this.reachCopy(sha);
        if (this.gitHistory.holds(sha)) return super.listCommits({ ...options, sha });
      }
    }
    return super.listCommits(options);
  }

  async listRefs(): Promise<Map<string, string>> {
    // Over git when it answers: one ls-refs POST, charged to neither budget, where REST's matching-refs is a
    // charged request (a tag's SHA is its tag object's in both)
    if (this.gitRefs && !this.gitRefs.failed) {
      const found = await this.gitRefs.list(['refs/']).catch(() => null);
      if (found) {
        const refs = new Map<string, string>();
        for (const [name, sha] of found)
          if (name.startsWith('refs/') && !name.startsWith('refs/pull/')) refs.set(name, sha);
        return refs;
      }
    }
    // Without a ref, matching-refs lists every ref, notes and other namespaces included:
    // https://docs.github.com/rest/git/refs#list-matching-references
    let data: wire.Ref[];
    try {
      data = await this.rest.read<wire.Ref[]>('list refs', 'GET /repos/{owner}/{repo}/git/matching-refs');
    } catch (error) {
      // An empty repository answers 409; it has no refs.
      if (error instanceof UpstreamError && error.code === 'conflict') return new Map();
      throw error;
    }
    const refs = new Map<string, string>();
    for (const ref of data) if (!ref.ref.startsWith('refs/pull/')) refs.set(ref.ref, ref.object.sha);
    return refs;
  }

  listRulesets(): Promise<RefRuleset[]> {
    return listRulesets(this.rest);
  }

  listActivity(options: { since: string; maxItems?: number }): Promise<ActivityWindow> {
    return listActivity(this.rest, options);
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
    this.learnSize(data.sha, content);
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
    for (const change of changes) if ('content' in change) this.cacheText(change.content);
    return data.sha;
  }

  /**
   * Text sent inline is stored as its UTF-8 bytes, so reading it back needs no request. A string with a
   * lone surrogate has no exact UTF-8 form: it is left out.
   */
  private cacheText(text: string): void {
    const bytes = Buffer.from(text, 'utf8');
    if (bytes.toString('utf8') !== text) return;
    this.blobs.set(blobSha(bytes), new Uint8Array(bytes));
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

  async createBranch(branch: string, sha: string): Promise<void> {
    wire.checkSha(sha);
    wire.segments(branch, 'branch name');
    await this.rest.write(`create branch "${branch}"`, 'POST /repos/{owner}/{repo}/git/refs', {
      ref: `refs/heads/${branch}`,
      sha,
    });
  }

  async deleteBranch(branch: string): Promise<void> {
    await this.rest.write(
      `delete branch "${branch}"`,
      `DELETE /repos/{owner}/{repo}/git/refs/heads/${wire.segments(branch, 'branch name')}`,
      {},
    );
    this.heads.delete(branch);
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

  async commitOnBranch(
    branch: string,
    expectedHead: string,
    message: string,
    changes: FileChanges,
  ): Promise<CommitInfo> {
    const input = commitInput(
      `${this.owner}/${this.repo}`,
      branch,
      wire.checkSha(expectedHead),
      message,
      changes,
    );
    let answer: CommitAnswer;
    try {
      answer = await this.rest.mutate(`commit on branch "${branch}"`, COMMIT_ON_BRANCH, { input });
    } finally {
      this.heads.delete(branch);
    }
    const commit = committed(answer, expectedHead);
    this.commits.set(commit.sha, commit);
    for (const { bytes } of changes.additions) {
      const sha = blobSha(bytes);
      this.blobs.set(sha, bytes);
      this.learnSize(sha, bytes);
    }
    return commit;
  }

  async createStatus(sha: string, status: CommitStatus): Promise<StatusRecord> {
    wire.checkSha(sha);
    const description =
      status.description.length > 140 ? `${status.description.slice(0, 139)}…` : status.description;
    const data = await this.rest.write<wire.Status>(
      `create status on ${sha}`,
      'POST /repos/{owner}/{repo}/statuses/{sha}',
      {
        sha,
        state: status.state,
        context: status.context,
        description,
        ...(status.targetUrl !== undefined ? { target_url: status.targetUrl } : {}),
      },
    );
    return wire.status(data);
  }

  async listStatuses(sha: string): Promise<StatusRecord[]> {
    wire.checkSha(sha);
    const statuses: StatusRecord[] = [];
    for (let page = 1; ; page++) {
      const data = await this.rest.read<wire.Status[]>(
        `list statuses of ${sha}`,
        'GET /repos/{owner}/{repo}/commits/{ref}/statuses',
        { ref: sha, per_page: 100, page },
      );
      statuses.push(...data.map(wire.status));
      if (data.length < 100) return statuses;
    }
  }

  /** https://docs.github.com/rest/checks/runs#create-a-check-run */
  async createCheckRun(sha: string, run: CheckRun): Promise<number> {
    wire.checkSha(sha);
    const data = await this.rest.write<{ id: number }>(
      `create check run ${run.name} on ${sha}`,
      'POST /repos/{owner}/{repo}/check-runs',
      {
        name: run.name,
        head_sha: sha,
        status: 'completed',
        conclusion: run.conclusion,
        ...(run.detailsUrl !== undefined ? { details_url: run.detailsUrl } : {}),
        output: {
          title: run.title,
          summary: run.summary,
          ...(run.text !== undefined ? { text: run.text } : {}),
          annotations: run.annotations.map(annotation),
        },
      },
    );
    return data.id;
  }

  /** Annotations sent in an update are appended to the run's. https://docs.github.com/rest/checks/runs#update-a-check-run */
  async addCheckRunAnnotations(
    id: number,
    run: Pick<CheckRun, 'title' | 'summary' | 'annotations'>,
  ): Promise<void> {
    await this.rest.write(
      `add annotations to check run ${id}`,
      'PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}',
      {
        check_run_id: id,
        output: { title: run.title, summary: run.summary, annotations: run.annotations.map(annotation) },
      },
    );
  }

  /**
   * filter=all: the default (latest) hides an earlier run of the same name, and a forged one must not hide.
   * https://docs.github.com/rest/checks/runs#list-check-runs-for-a-git-reference
   */
  async screenReceipts(
    shas: string[],
    context: string,
    checkRuns: boolean,
  ): Promise<Map<string, ReceiptScreen>> {
    const out = new Map<string, ReceiptScreen>();
    const wanted = [...new Set(shas)].map(wire.checkSha);
    for (let i = 0; i < wanted.length; i += RECEIPT_COMMITS_PER_CALL) {
      const chunk = wanted.slice(i, i + RECEIPT_COMMITS_PER_CALL);
      try {
        const answer = await this.rest.graphql<ReceiptsAnswer>(
          `read the receipts on ${chunk.length} commits`,
          receiptsQuery(chunk, checkRuns),
          { context },
        );
        for (const [sha, screen] of receiptsOf(chunk, answer, checkRuns)) out.set(sha, screen);
      } catch {
        // GraphQL refused or failed: the caller lists these by REST
        break;
      }
    }
    return out;
  }

  async listCheckRuns(sha: string, name: string): Promise<CheckRunRecord[]> {
    wire.checkSha(sha);
    const runs: CheckRunRecord[] = [];
    for (let page = 1; ; page++) {
      const data = await this.rest.read<{ total_count: number; check_runs: wire.CheckRun[] }>(
        `list check runs "${name}" of ${sha}`,
        'GET /repos/{owner}/{repo}/commits/{ref}/check-runs',
        { ref: sha, check_name: name, filter: 'all', per_page: 100, page },
      );
      runs.push(...data.check_runs.map(wire.checkRun));
      if (data.check_runs.length < 100 || runs.length >= data.total_count) return runs;
    }
  }

  async listRunJobs(runId: number): Promise<WorkflowJob[]> {
    const jobs: WorkflowJob[] = [];
    for (let page = 1; ; page++) {
      const data = await this.rest.read<{ total_count: number; jobs: wire.Job[] }>(
        `list the jobs of run ${runId}`,
        'GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs',
        { run_id: runId, filter: 'all', per_page: 100, page },
      );
      jobs.push(...data.jobs.map(wire.job));
      if (data.jobs.length < 100 || jobs.length >= data.total_count) return jobs;
    }
  }

  /** https://docs.github.com/rest/actions/artifacts#list-workflow-run-artifacts */
  async listRunArtifacts(runId: number, name: string): Promise<RunArtifact[]> {
    const artifacts: RunArtifact[] = [];
    for (let page = 1; ; page++) {
      const data = await this.rest.read<{ total_count: number; artifacts: wire.Artifact[] }>(
        `list the artifacts "${name}" of run ${runId}`,
        'GET /repos/{owner}/{repo}/actions/runs/{run_id}/artifacts',
        { run_id: runId, name, per_page: 100, page },
      );
      artifacts.push(...data.artifacts.map(wire.artifact));
      if (data.artifacts.length < 100 || artifacts.length >= data.total_count) return artifacts;
    }
  }

  /**
   * POST /pulls, then the labels through the issues API (a pull request is an issue there).
   * https://docs.github.com/rest/pulls/pulls#create-a-pull-request
   * https://docs.github.com/rest/issues/labels#add-labels-to-an-issue
   */
  async createPullRequest(request: PullRequestRequest): Promise<{ number: number; url: string }> {
    const { labels, ...pull } = request;
    const data = await this.rest.write<{ number: number; html_url: string }>(
      `open a pull request from ${request.head}`,
      'POST /repos/{owner}/{repo}/pulls',
      pull,
    );
    if (labels.length > 0)
      await this.rest.write(
        `label pull request #${data.number}`,
        'POST /repos/{owner}/{repo}/issues/{issue_number}/labels',
        {
          issue_number: data.number,
          labels,
        },
      );
    return { number: data.number, url: data.html_url };
  }

  private conversations(): Conversations {
    return (this.conversationsRole ??= octokitConversations(this.rest, this.owner));
  }
  private conversationsRole: Conversations | undefined;
  findOpenPullRequest: Conversations['findOpenPullRequest'] = (head) =>
    this.conversations().findOpenPullRequest(head);
  updatePullRequest: Conversations['updatePullRequest'] = (n, change) =>
    this.conversations().updatePullRequest(n, change);
  addLabels: Conversations['addLabels'] = (n, labels) => this.conversations().addLabels(n, labels);
  createIssueComment: Conversations['createIssueComment'] = (n, body) =>
    this.conversations().createIssueComment(n, body);
  getThread: Conversations['getThread'] = (n, max) => this.conversations().getThread(n, max);
  getPermission: Conversations['getPermission'] = (login) => this.conversations().getPermission(login);

  async createPullRequestReview(
    number: number,
    review: PullRequestReview,
  ): Promise<{ id: number; url: string }> {
    const data = await this.rest.write<{ id: number; html_url: string }>(
      `review pull request #${number}`,
      'POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews',
      { pull_number: number, event: review.event, body: review.body, commit_id: review.commitId },
    );
    return { id: data.id, url: data.html_url };
  }

  async getPullRequest(number: number): Promise<PullRequestInfo> {
    const data = await this.rest.read<wire.Pull>(
      `get pull request #${number}`,
      'GET /repos/{owner}/{repo}/pulls/{pull_number}',
      { pull_number: number },
    );
    return wire.pull(data);
  }

  async listPullRequestCommits(number: number): Promise<CommitInfo[]> {
    const commits: CommitInfo[] = [];
    for (let page = 1; ; page++) {
      const data = await this.rest.read<wire.RestCommit[]>(
        `list the commits of pull request #${number}`,
        'GET /repos/{owner}/{repo}/pulls/{pull_number}/commits',
        { pull_number: number, per_page: 100, page },
      );
      for (const item of data) {
        const commit = wire.restCommit(item);
        this.commits.set(commit.sha, commit);
        commits.push(commit);
      }
      if (data.length < 100) return commits;
    }
  }

  async listOpenPullRequests(): Promise<Array<Omit<PullRequestInfo, 'commits'>>> {
    const pulls: Array<Omit<PullRequestInfo, 'commits'>> = [];
    for (let page = 1; ; page++) {
      const data = await this.rest.read<wire.Pull[]>(
        'list the open pull requests',
        'GET /repos/{owner}/{repo}/pulls',
        { state: 'open', per_page: 100, page },
      );
      for (const item of data) {
        // the list leaves out the commit count
        const { commits: _, ...listed } = wire.pull({ ...item, commits: 0 });
        pulls.push(listed);
      }
      if (data.length < 100) return pulls;
    }
  }

  async listPullRequestReviews(number: number): Promise<PullRequestReviewRecord[]> {
    const reviews: PullRequestReviewRecord[] = [];
    for (let page = 1; ; page++) {
      const data = await this.rest.read<
        Array<{ user: { login: string } | null; state: string; commit_id: string | null }>
      >(
        `list the reviews of pull request #${number}`,
        'GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews',
        {
          pull_number: number,
          per_page: 100,
          page,
        },
      );
      for (const review of data)
        reviews.push({ user: review.user?.login ?? null, state: review.state, commitId: review.commit_id });
      if (data.length < 100) return reviews;
    }
  }

  async getRepositoryFile(path: string, ref: string | null): Promise<RepositoryFile> {
    let read: ReturnType<typeof repositoryFileOf> = null;
    try {
      read = repositoryFileOf(
        await this.rest.graphql<RepositoryFileAnswer>(
          `get the repository and ${path}`,
          REPOSITORY_FILE,
          repositoryFileVariables(path, ref),
        ),
        ref,
      );
    } catch (error) {
      if (!(error instanceof UpstreamError)) throw error;
      // GraphQL refused or failed: REST, as below
    }
    if (read) {
      const repository = { defaultBranch: read.defaultBranch, private: read.private };
      this.repository ??= Promise.resolve(repository);
      // read at the commit the answer named, so the text is that commit's even if the branch moves meanwhile
      return { ...read, file: read.file ?? (await this.getFileAtRef(path, read.commit ?? read.ref)) };
    }
    const { defaultBranch } = await this.getRepository();
    const at = ref ?? defaultBranch;
    return { defaultBranch, ref: at, commit: null, file: await this.getFileAtRef(path, at) };
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

/** A whole-file annotation: GitHub needs a line range, so line 1. */
function annotation(a: CheckAnnotation): Record<string, unknown> {
  return {
    path: a.path,
    start_line: 1,
    end_line: 1,
    annotation_level: a.level,
    title: a.title,
    message: a.message,
  };
}
