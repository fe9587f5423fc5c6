/** The parts of GitHub's REST answers that Perimeter reads, and their mapping to the Upstream types. */
import {
  UpstreamError,
  type CheckRunRecord,
  type CommitIdentity,
  type CommitInfo,
  type EntryType,
  type PullRequestInfo,
  type PushActivity,
  type Signature,
  type StatusRecord,
  type TreeEntry,
  type RunArtifact,
  type WorkflowJob,
} from '../upstream.js';

export interface Repository {
  default_branch: string;
  private: boolean;
}
export interface Ref {
  ref: string;
  object: { sha: string; type: string };
}
export interface GitCommit {
  sha: string;
  tree: { sha: string };
  parents: Array<{ sha: string }>;
  message: string;
  author: Signature;
  committer: Signature;
}
export interface RestCommit {
  sha: string;
  commit: {
    message: string;
    tree: { sha: string };
    author: Signature | null;
    committer: Signature | null;
    verification?: { verified: boolean; reason: string };
  };
  /** the accounts GitHub links the commit's author and committer to */
  author?: { login: string; type: string } | null;
  committer?: { login: string; type: string } | null;
  parents: Array<{ sha: string }>;
}
export interface RestCommitWithFiles extends RestCommit {
  files?: Array<{ filename: string; previous_filename?: string; status: string; sha: string }>;
}
export interface Tree {
  sha: string;
  tree: Array<{ path: string; mode: string; type: string; sha: string; size?: number }>;
  truncated?: boolean;
}
export interface Blob {
  content: string;
  encoding: string;
}
export interface Compare {
  status: 'identical' | 'ahead' | 'behind' | 'diverged';
  total_commits: number;
  base_commit: RestCommit;
  commits: RestCommit[];
  files?: Array<{ filename: string; previous_filename?: string; status: string; sha: string }>;
}
export interface Activity {
  ref: string;
  before: string;
  after: string;
  activity_type: string;
  timestamp: string;
  actor: { login: string } | null;
}
export interface Status {
  id: number;
  state: 'success' | 'failure' | 'error' | 'pending';
  context: string;
  description: string | null;
  target_url: string | null;
  creator?: { login: string } | null;
  created_at: string;
}
export interface Job {
  id: number;
  run_id: number;
  run_attempt?: number;
  name: string;
  status: string;
  conclusion: string | null;
  started_at: string;
  completed_at: string | null;
  runner_name: string | null;
  steps?: Array<{
    name: string;
    number: number;
    status: string;
    conclusion: string | null;
    started_at?: string | null;
    completed_at?: string | null;
  }>;
}
export interface Artifact {
  id: number;
  name: string;
  created_at: string | null;
  digest?: string | null;
  expired: boolean;
}
export function artifact(data: Artifact): RunArtifact {
  return {
    id: data.id,
    name: data.name,
    createdAt: data.created_at ?? '',
    digest: data.digest ?? null,
    expired: data.expired,
  };
}
export interface CheckRun {
  id: number;
  name: string;
  status: string;
  conclusion: string | null;
  started_at: string | null;
  completed_at: string | null;
  output: { title: string | null };
  app: { slug?: string } | null;
}
export function checkRun(data: CheckRun): CheckRunRecord {
  return {
    id: data.id,
    name: data.name,
    status: data.status,
    conclusion: data.conclusion,
    title: data.output.title,
    startedAt: data.started_at,
    completedAt: data.completed_at,
    app: data.app?.slug ?? null,
  };
}
export function status(data: Status): StatusRecord {
  return {
    id: data.id,
    state: data.state,
    context: data.context,
    description: data.description,
    targetUrl: data.target_url,
    creator: data.creator?.login ?? null,
    createdAt: data.created_at,
  };
}
export function job(data: Job): WorkflowJob {
  return {
    id: data.id,
    runId: data.run_id,
    runAttempt: data.run_attempt ?? 1,
    name: data.name,
    status: data.status,
    conclusion: data.conclusion,
    startedAt: data.started_at,
    completedAt: data.completed_at,
    runnerName: data.runner_name,
    steps: (data.steps ?? []).map((step) => ({
      name: step.name,
      number: step.number,
      status: step.status,
      conclusion: step.conclusion,
      startedAt: step.started_at ?? null,
      completedAt: step.completed_at ?? null,
    })),
  };
}
export interface Pull {
  number: number;
  state: string;
  user: { login: string } | null;
  base: { ref: string; sha: string };
  head: { ref: string; sha: string; repo: { full_name: string } | null };
  commits: number;
}
export function pull(data: Pull): PullRequestInfo {
  if (!data.user?.login) throw new UpstreamError('invalid', `pull request #${data.number} names no author`);
  return {
    number: data.number,
    state: data.state,
    author: data.user.login,
    baseRef: data.base.ref,
    baseSha: checkSha(data.base.sha),
    headRef: data.head.ref,
    headSha: checkSha(data.head.sha),
    headRepository: data.head.repo?.full_name ?? null,
    commits: data.commits,
  };
}
export interface Contents {
  type: string;
  sha: string;
  size: number;
  encoding?: string;
  content?: string;
}

const NO_SIGNATURE: Signature = { name: '', email: '', date: '' };
const ENTRY_TYPES = new Set<string>(['blob', 'tree', 'commit']);

export function gitCommit(data: GitCommit): CommitInfo {
  return {
    sha: data.sha,
    tree: data.tree.sha,
    parents: data.parents.map((parent) => parent.sha),
    message: data.message,
    author: data.author ?? NO_SIGNATURE,
    committer: data.committer ?? NO_SIGNATURE,
  };
}

export function restCommit(data: RestCommit): CommitInfo {
  return {
    sha: data.sha,
    tree: data.commit.tree.sha,
    parents: data.parents.map((parent) => parent.sha),
    message: data.commit.message,
    author: data.commit.author ?? NO_SIGNATURE,
    committer: data.commit.committer ?? NO_SIGNATURE,
    github: {
      author: account(data.author),
      committer: account(data.committer),
      verified: data.commit.verification?.verified ?? false,
      reason: data.commit.verification?.reason ?? 'unsigned',
    },
  };
}

/** Only the login and type: a linked account's other fields (or an empty object GitHub sends) are not used. */
function account(user: { login: string; type: string } | null | undefined): CommitIdentity['author'] {
  return user && typeof user.login === 'string' ? { login: user.login, type: user.type } : null;
}

export function treeEntry(entry: Tree['tree'][number]): TreeEntry {
  if (!ENTRY_TYPES.has(entry.type))
    throw new UpstreamError('invalid', `unexpected tree entry type "${entry.type}"`);
  return {
    path: entry.path,
    mode: entry.mode,
    type: entry.type as EntryType,
    sha: entry.sha,
    ...(entry.size !== undefined ? { size: entry.size } : {}),
  };
}

export function blobBytes(data: Blob): Uint8Array {
  if (data.encoding === 'base64') return new Uint8Array(Buffer.from(data.content, 'base64'));
  if (data.encoding === 'utf-8' || data.encoding === 'utf8')
    return new Uint8Array(Buffer.from(data.content, 'utf8'));
  throw new UpstreamError('invalid', `unexpected blob encoding "${data.encoding}"`);
}

export function activity(data: Activity): PushActivity {
  return {
    ref: data.ref,
    before: data.before,
    after: data.after,
    actor: data.actor?.login ?? null,
    activityType: data.activity_type,
    timestamp: data.timestamp,
  };
}

/** The `after` cursor of a Link header's rel="next" URL (the Activity API pages by cursor), if any. */
export function nextCursor(link: string | undefined): string | undefined {
  const next = link?.split(',').find((part) => /rel="next"/.test(part));
  const url = next?.match(/<([^>]+)>/)?.[1];
  return url === undefined ? undefined : (new URL(url).searchParams.get('after') ?? undefined);
}

const CONTROL = /[\u0000-\u001f\u007f]/; // eslint-disable-line no-control-regex

/**
 * encodeURIComponent per path segment, keeping the slashes. Empty, `.` and `..` segments are refused: a URL
 * parser would resolve them and the request would reach another endpoint.
 */
export function segments(path: string, what: string): string {
  const parts = path.split('/');
  if (parts.some((part) => part === '' || part === '.' || part === '..') || CONTROL.test(path)) {
    throw new UpstreamError('invalid', `invalid ${what}: ${JSON.stringify(path)}`);
  }
  return parts.map(encodeURIComponent).join('/');
}

export function checkSha(sha: string): string {
  if (!/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/i.test(sha)) {
    throw new UpstreamError('invalid', `invalid object id: ${JSON.stringify(sha)}`);
  }
  return sha;
}

/** A complete recursive listing holds the direct entries of every subtree: tree SHA to its entries. */
export function subtrees(root: string, entries: TreeEntry[]): Map<string, TreeEntry[]> {
  const children = new Map<string, TreeEntry[]>([['', []]]);
  const shaOf = new Map<string, string>([['', root]]);
  for (const entry of entries) {
    if (entry.type !== 'tree') continue;
    children.set(entry.path, []);
    shaOf.set(entry.path, entry.sha);
  }
  for (const entry of entries) {
    const slash = entry.path.lastIndexOf('/');
    children
      .get(slash < 0 ? '' : entry.path.slice(0, slash))
      ?.push({ ...entry, path: entry.path.slice(slash + 1) });
  }
  const result = new Map<string, TreeEntry[]>();
  for (const [dir, list] of children) result.set(shaOf.get(dir) as string, list);
  return result;
}
