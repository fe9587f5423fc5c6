import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ActionsRuntime } from './actions/actions-runtime.js';
import { AppBook, identityOf } from './apps.js';
import type { AppToken } from './apps.js';
import { handleApi } from './api-handler.js';
import { ArtifactStore, BLOB_ACCOUNT } from './actions/artifact-store.js';
import { handleBlob } from './actions/blob-service.js';
import { RateBudget, WriteWindow } from './budget.js';
import { handleControl } from './control.js';
import { FaultBox } from './fault-box.js';
import type { Fault } from './faults.js';
import { GIT_PATH, handleGit } from './git/git-http.js';
import { handleGraphql } from './graphql/graphql.js';
import { FakeRepo } from './repo.js';
import type { Route } from './router.js';
import { commitRouteLast, commitRoutes } from './routes/routes-commits.js';
import { TREE_BYTE_LIMIT, TREE_ENTRY_LIMIT, treeRoutes } from './routes/routes-git-data.js';
import { activityRoutes } from './routes/routes-activity.js';
import { actionsRoutes } from './routes/routes-actions.js';
import { checkRoutes } from './routes/routes-checks.js';
import type { JobConclusion, JobRecord, JobStart, StepRecord } from './actions/actions-jobs.js';
import { contentRoutes } from './routes/routes-contents.js';
import { artifactRoutes } from './routes/routes-artifacts.js';
import { refRoutes } from './routes/routes-refs.js';
import { handleResults, TWIRP_PREFIX } from './actions/results-service.js';
import { issueRoutes } from './routes/routes-issues.js';
import { pullRoutes } from './routes/routes-pulls.js';
import { reviewRoutes } from './routes/routes-reviews.js';
import { seedStatuses, statusRoutes } from './routes/routes-statuses.js';
import { mergeRoutes } from './rules/routes-merge.js';
import { rulesetRoutes } from './rules/routes-rulesets.js';
import { StatsCounter } from './stats.js';
import type { FakeStats, ServerState } from './stats.js';

export type { FakeStats } from './stats.js';

export interface FakeGithubOptions {
  /** default 0 = a free port on 127.0.0.1 */
  port?: number;
  /** the token REST calls and git must present; default 'test-token' */
  token?: string;
  /** 'owner/name' -> path of a bare git repository (created empty when missing) */
  repos: Record<string, string>;
  /** 'owner/name' of repositories reported as private */
  private?: string[];
  /** core REST budget per hour, default 5000 */
  rateLimit?: number;
  /** GraphQL points per hour (a budget of its own), default 5000; GITHUB_TOKEN has 1,000 of each */
  graphqlRateLimit?: number;
  /** login the token belongs to, default 'github-actions[bot]' */
  actor?: string;
  /**
   * more tokens, each with the login it belongs to (for pushes by someone else); a login `<slug>[bot]` acts as
   * that App, numbered by the stand-in unless `appTokens` or `addAppToken` gave it an id first
   */
  extraTokens?: Record<string, string>;
  /** GitHub App installation tokens: token -> the App it acts as (see `addAppToken`) */
  appTokens?: Record<string, AppToken>;
  /** content-creating requests (POST, PATCH, DELETE) allowed per minute before GitHub's secondary limit answers 403 with Retry-After; unlimited by default (GITHUB_TOKEN: 80) */
  writesPerMinute?: number;
  /**
   * The main token's `contents` permission: with 'read' (a job with `permissions: contents: read`) every
   * write to git data, refs and contents, every merge of a pull request and every git push is answered 403
   * as GitHub does, and a GraphQL createCommitOnBranch answers a FORBIDDEN error; statuses stay writable.
   * Default 'write'.
   */
  contents?: 'read' | 'write';
  /**
   * The main token's `checks` permission: 'read' may list check runs but not create or update one, 'none' may
   * do neither; both answer 403 as GitHub does. Default 'write' (a workflow's default GITHUB_TOKEN).
   */
  checks?: 'none' | 'read' | 'write';
  /**
   * The main token's `statuses` permission: 'read' may list commit statuses but not post one, 'none' may do
   * neither; both answer 403 as GitHub does. Default 'write'.
   */
  statuses?: 'none' | 'read' | 'write';
  /**
   * The main token's `pull-requests` permission: 'read' may read pull requests, their commits and reviews but
   * not open, change or review one, 'none' may do neither; both answer 403 as GitHub does for a private
   * repository (a public one serves public data to any token, so the stand-in's repositories are private).
   * Default 'write'.
   */
  pullRequests?: 'none' | 'read' | 'write';
  /**
   * The main token's `issues` permission: 'read' may read issues and their comments but not open, comment on
   * or label one, 'none' may do neither (a pull request's conversation also opens to `pull-requests`). Default
   * 'write'.
   */
  issues?: 'none' | 'read' | 'write';
  /** people with a permission on every repository (admin, maintain, write, triage, read); the owner is admin */
  collaborators?: Record<string, string>;
  /** The main token's `actions` permission (runs, jobs, artifacts through REST), as `pullRequests`. */
  actions?: 'none' | 'read' | 'write';
  /** whether the token may change .github/workflows (GITHUB_TOKEN may not: pushes refused, API 404); default false */
  workflowsPermission?: boolean;
  /** entries of a recursive tree answer before `truncated: true`; GitHub's 100,000 by default */
  treeEntryLimit?: number;
  /** UTF-8 bytes of a recursive tree answer before `truncated: true`; GitHub's 7 MB by default */
  treeByteLimit?: number;
}

export interface FakeGithub {
  /** http://127.0.0.1:PORT ; REST at the root, git at `${url}/owner/name.git` */
  url: string;
  port: number;
  stats(): FakeStats;
  resetStats(): void;
  injectFault(fault: Fault): void;
  clearFaults(): void;
  /**
   * Calls `listener` with 'METHOD /path' whenever a request starts hanging (a `hang` fault): the moment a
   * test's clock may end the client's wait, as its timeout would.
   */
  onHang(listener: (request: string) => void): void;
  /**
   * A job starts on a runner: the runtime token (ACTIONS_RUNTIME_TOKEN) and results URL (ACTIONS_RESULTS_URL)
   * its action steps get, for the artifact service. Also at POST /_fake/actions/jobs.
   */
  startJob(job: { repository: string; runId: number; runAttempt?: number; job: string }): ActionsJob;
  /** The job ends: its runtime token stops working. Also at DELETE /_fake/actions/jobs/{jobBackendId}. */
  endJob(jobBackendId: string): void;
  /** The finalized artifacts, with their content, for tests to look at. */
  artifacts(): Array<{
    id: number;
    name: string;
    runId: number;
    size: number;
    digest: string;
    content: Buffer;
  }>;
  /**
   * Records a workflow job as started now (in_progress), for the Actions jobs API of `repo` ('owner/name').
   * Also at POST /_fake/workflow-jobs.
   */
  recordJob(repo: string, job: JobStart): JobRecord;
  /** Completes a recorded job now with a conclusion. */
  completeJob(repo: string, id: number, conclusion: JobConclusion): JobRecord;
  /** A recorded job's runner starts a step now (completing the running one, if any, as a success). */
  startStep(repo: string, id: number, name: string): StepRecord;
  /** A recorded job's running step ends now with a conclusion. */
  completeStep(repo: string, id: number, conclusion: JobConclusion): StepRecord;
  /**
   * Revokes a token: every later request with it answers 401 Bad credentials, as GITHUB_TOKEN does once its
   * job has finished (https://docs.github.com/actions/concepts/security/github_token).
   */
  revokeToken(token: string): void;
  /**
   * Accepts one more token, as the login it belongs to (a later job's GITHUB_TOKEN, say), with its `checks`,
   * `contents`, `statuses`, `pull-requests` and `actions` permissions (each default write), enforced as the
   * main token's are.
   */
  addToken(
    token: string,
    login: string,
    permissions?: {
      checks?: 'none' | 'read' | 'write';
      contents?: 'read' | 'write';
      statuses?: 'none' | 'read' | 'write';
      'pull-requests'?: 'none' | 'read' | 'write';
      actions?: 'none' | 'read' | 'write';
      issues?: 'none' | 'read' | 'write';
    },
  ): void;
  /**
   * Accepts one more token as a GitHub App's installation token: its login is `<slug>[bot]`, the statuses it
   * posts have that creator, its check runs carry `app: { id, slug, ... }`, and it may update only check runs
   * its App created. The main token is GitHub Actions' (id 15368) unless `actor` says otherwise. Throws when
   * the slug already has another id or the id another slug.
   */
  addAppToken(token: string, app: AppToken, permissions?: { checks?: 'none' | 'read' | 'write' }): void;
  /**
   * Adds `count` statuses of `context` to commit `sha` of `repo` ('owner/name') at once, as if posted one after
   * another by `creator` (default the main token's login) with `state` (default 'success'): a quick way to
   * bring a context near GitHub's limit of 1,000 a commit. Throws past the limit, as the API would refuse.
   */
  seedStatuses(
    repo: string,
    sha: string,
    context: string,
    count: number,
    options?: { state?: 'error' | 'failure' | 'pending' | 'success'; creator?: string },
  ): void;
  stop(): Promise<void>;
}

export interface ActionsJob {
  token: string;
  resultsUrl: string;
  runBackendId: string;
  jobBackendId: string;
}

export async function startFakeGithub(options: FakeGithubOptions): Promise<FakeGithub> {
  const token = options.token ?? 'test-token';
  const actor = options.actor ?? 'github-actions[bot]';
  const apps = new AppBook();
  for (const app of Object.values(options.appTokens ?? {})) apps.register(identityOf(app));
  const tokens = new Map<string, string>([
    [token, actor],
    ...Object.entries(options.extraTokens ?? {}),
    ...Object.entries(options.appTokens ?? {}).map(([t, app]): [string, string] => [t, `${app.slug}[bot]`]),
  ]);
  // every App login gets its id now, in the order configured, so ids do not hang on the order of requests
  for (const login of tokens.values()) apps.forLogin(login);
  const runtime = new ActionsRuntime();
  const store = new ArtifactStore(runtime, () => state.baseUrl);
  const routes: Route[] = [
    ...refRoutes,
    ...artifactRoutes(store),
    ...treeRoutes({
      entries: options.treeEntryLimit ?? TREE_ENTRY_LIMIT,
      bytes: options.treeByteLimit ?? TREE_BYTE_LIMIT,
    }),
    ...commitRoutes,
    ...statusRoutes,
    ...pullRoutes,
    ...issueRoutes,
    ...reviewRoutes,
    ...mergeRoutes,
    ...rulesetRoutes,
    ...contentRoutes,
    ...activityRoutes,
    ...actionsRoutes,
    ...checkRoutes,
    commitRouteLast,
  ];
  const repos = new Map<string, FakeRepo>();
  let id = 1000;
  for (const [name, dir] of Object.entries(options.repos)) {
    const repo = await FakeRepo.open(name, dir, (options.private ?? []).includes(name), id++);
    for (const [login, permission] of Object.entries(options.collaborators ?? {}))
      repo.collaborators.set(login, permission);
    repos.set(name.toLowerCase(), repo);
  }
  const state: ServerState = {
    tokens,
    repos,
    routes,
    budget: new RateBudget(options.rateLimit ?? 5000),
    graphqlBudget: new RateBudget(options.graphqlRateLimit ?? 5000, 'graphql'),
    writes: options.writesPerMinute === undefined ? null : new WriteWindow(options.writesPerMinute),
    faults: new FaultBox(),
    stats: new StatsCounter(),
    baseUrl: '',
    canWriteWorkflows: options.workflowsPermission ?? false,
    artifacts: store,
    contentsReadOnly: new Set(options.contents === 'read' ? [token] : []),
    checks: new Map(options.checks && options.checks !== 'write' ? [[token, options.checks]] : []),
    statuses: new Map(options.statuses && options.statuses !== 'write' ? [[token, options.statuses]] : []),
    pullRequests: new Map(
      options.pullRequests && options.pullRequests !== 'write' ? [[token, options.pullRequests]] : [],
    ),
    actions: new Map(options.actions && options.actions !== 'write' ? [[token, options.actions]] : []),
    issues: new Map(options.issues && options.issues !== 'write' ? [[token, options.issues]] : []),
    apps,
    adminTokens: new Set([token]),
  };
  const setChecks = (token: string, checks: 'none' | 'read' | 'write' | undefined): void => {
    if (checks && checks !== 'write') state.checks.set(token, checks);
    else state.checks.delete(token);
  };
  const startJob: FakeGithub['startJob'] = (job) => {
    if (!repos.has(job.repository.toLowerCase())) throw new Error(`no repository ${job.repository}`);
    const started = runtime.startJob(job.repository, job.runId, job.runAttempt ?? 1, job.job);
    return {
      token: started.token,
      resultsUrl: `${state.baseUrl}/`,
      runBackendId: started.jobRun.runBackendId,
      jobBackendId: started.jobRun.jobBackendId,
    };
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', state.baseUrl);
    const work = url.pathname.startsWith('/_fake/')
      ? handleControl(state, req, res, url.pathname, startJob)
      : url.pathname.startsWith(TWIRP_PREFIX)
        ? handleResults(store, req, res, url.pathname)
        : url.pathname.startsWith(`/${BLOB_ACCOUNT}/`)
          ? handleBlob(store, req, res, url)
          : GIT_PATH.test(url.pathname)
            ? handleGit(state, req, res, url.pathname)
            : req.method === 'POST' && url.pathname === '/graphql'
              ? handleGraphql(state, req, res)
              : handleApi(state, req, res, url);
    work.catch((error: unknown) => {
      process.stderr.write(`fake-github: ${error instanceof Error ? error.stack : String(error)}\n`);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end();
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  state.baseUrl = `http://127.0.0.1:${port}`;

  return {
    url: state.baseUrl,
    port,
    stats: () => state.stats.snapshot(),
    resetStats: () => state.stats.reset(),
    injectFault: (fault) => state.faults.add(fault),
    clearFaults: () => state.faults.clear(),
    onHang: (listener) => state.faults.onHang(listener),
    startJob,
    endJob: (jobBackendId) => {
      if (!runtime.endJob(jobBackendId)) throw new Error(`no job ${jobBackendId}`);
    },
    artifacts: () =>
      store
        .finalized(() => true)
        .map((a) => ({
          id: a.id,
          name: a.name,
          runId: a.runId,
          size: a.size,
          digest: a.digest!,
          content: store.blobs.get(a.blobPath)!.committed!,
        })),
    recordJob: (repo, job) => repoNamed(repos, repo).jobs.start(job),
    completeJob: (repo, id, conclusion) => repoNamed(repos, repo).jobs.complete(id, conclusion),
    startStep: (repo, id, name) => repoNamed(repos, repo).jobs.startStep(id, name),
    completeStep: (repo, id, conclusion) => repoNamed(repos, repo).jobs.completeStep(id, conclusion),
    revokeToken: (token) => void tokens.delete(token),
    addToken: (token, login, permissions = {}) => {
      apps.forLogin(login);
      tokens.set(token, login);
      setChecks(token, permissions.checks);
      if (permissions.contents === 'read') state.contentsReadOnly.add(token);
      if (permissions.statuses && permissions.statuses !== 'write')
        state.statuses.set(token, permissions.statuses);
      const pullRequests = permissions['pull-requests'];
      if (pullRequests && pullRequests !== 'write') state.pullRequests.set(token, pullRequests);
      if (permissions.actions && permissions.actions !== 'write')
        state.actions.set(token, permissions.actions);
      if (permissions.issues && permissions.issues !== 'write') state.issues.set(token, permissions.issues);
    },
    addAppToken: (token, app, permissions = {}) => {
      apps.register(identityOf(app));
      tokens.set(token, `${app.slug}[bot]`);
      setChecks(token, permissions.checks);
    },
    seedStatuses: (repo, sha, context, count, seeded = {}) => {
      const creator = seeded.creator ?? actor;
      const status = { sha, context, state: seeded.state ?? 'success', creator };
      seedStatuses(
        repoNamed(repos, repo),
        { ...status, creatorApp: apps.forLogin(creator)?.id ?? null },
        count,
      );
    },
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      for (const repo of repos.values()) repo.close();
    },
  };
}

function repoNamed(repos: Map<string, FakeRepo>, name: string): FakeRepo {
  const repo = repos.get(name.toLowerCase());
  if (!repo) throw new Error(`the stand-in serves no repository ${name}`);
  return repo;
}
