import { createHash } from 'node:crypto';
import type { FakeRepo, ParsedCommit, StoredStatus } from './repo.js';
import { isWebFlowSignature } from './web-flow-key.js';

/** JSON shapes as api.github.com answers them (checked against @octokit/openapi in the tests). */

export const WEB_FLOW = { name: 'GitHub', email: 'noreply@github.com' };
const KNOWN_IDS: Record<string, number> = {
  'github-actions[bot]': 41898282,
  'web-flow': 19864447,
  octocat: 583231,
};

/**
 * Accounts GitHub reports as type "Bot" without the "[bot]" suffix of an App's bot: Copilot coding agent's
 * (https://api.github.com/users/Copilot answers "type": "Bot").
 */
const BOT_USERS = new Set(['Copilot']);

export function userId(login: string): number {
  return KNOWN_IDS[login] ?? createHash('sha1').update(login).digest().readUInt32BE(0) % 100_000_000;
}

export function noreplyEmail(login: string): string {
  return `${userId(login)}+${login}@users.noreply.github.com`;
}

export function nodeId(kind: string, key: string | number): string {
  return Buffer.from(`${kind}:${key}`).toString('base64').replace(/=+$/, '');
}

export function simpleUser(base: string, login: string): Record<string, unknown> {
  const url = `${base}/users/${encodeURIComponent(login)}`;
  return {
    login,
    id: userId(login),
    node_id: nodeId('User', login),
    avatar_url: `${base}/avatars/${encodeURIComponent(login)}`,
    gravatar_id: '',
    url,
    html_url: `${base}/${encodeURIComponent(login)}`,
    followers_url: `${url}/followers`,
    following_url: `${url}/following{/other_user}`,
    gists_url: `${url}/gists{/gist_id}`,
    starred_url: `${url}/starred{/owner}{/repo}`,
    subscriptions_url: `${url}/subscriptions`,
    organizations_url: `${url}/orgs`,
    repos_url: `${url}/repos`,
    events_url: `${url}/events{/privacy}`,
    received_events_url: `${url}/received_events`,
    type: login.endsWith('[bot]') || BOT_USERS.has(login) ? 'Bot' : 'User',
    site_admin: false,
  };
}

/** The login GitHub links a git identity to: noreply addresses and the web-flow committer. */
export function loginForEmail(email: string): string | null {
  if (email === WEB_FLOW.email) return 'web-flow';
  const match = /^(?:\d+\+)?([^@]+)@users\.noreply\.github\.com$/.exec(email);
  return match ? match[1]! : null;
}

export function repoApi(base: string, repo: FakeRepo): string {
  return `${base}/repos/${repo.owner}/${repo.name}`;
}

export function htmlUrl(base: string, repo: FakeRepo): string {
  return `${base}/${repo.owner}/${repo.name}`;
}

export function minimalRepository(base: string, repo: FakeRepo): Record<string, unknown> {
  const api = repoApi(base, repo);
  return {
    id: repo.id,
    node_id: nodeId('Repository', repo.id),
    name: repo.name,
    full_name: repo.fullName,
    owner: simpleUser(base, repo.owner),
    private: repo.isPrivate,
    html_url: htmlUrl(base, repo),
    description: null,
    fork: false,
    url: api,
    archive_url: `${api}/{archive_format}{/ref}`,
    assignees_url: `${api}/assignees{/user}`,
    blobs_url: `${api}/git/blobs{/sha}`,
    branches_url: `${api}/branches{/branch}`,
    collaborators_url: `${api}/collaborators{/collaborator}`,
    comments_url: `${api}/comments{/number}`,
    commits_url: `${api}/commits{/sha}`,
    compare_url: `${api}/compare/{base}...{head}`,
    contents_url: `${api}/contents/{+path}`,
    contributors_url: `${api}/contributors`,
    deployments_url: `${api}/deployments`,
    downloads_url: `${api}/downloads`,
    events_url: `${api}/events`,
    forks_url: `${api}/forks`,
    git_commits_url: `${api}/git/commits{/sha}`,
    git_refs_url: `${api}/git/refs{/sha}`,
    git_tags_url: `${api}/git/tags{/sha}`,
    hooks_url: `${api}/hooks`,
    issue_comment_url: `${api}/issues/comments{/number}`,
    issue_events_url: `${api}/issues/events{/number}`,
    issues_url: `${api}/issues{/number}`,
    keys_url: `${api}/keys{/key_id}`,
    labels_url: `${api}/labels{/name}`,
    languages_url: `${api}/languages`,
    merges_url: `${api}/merges`,
    milestones_url: `${api}/milestones{/number}`,
    notifications_url: `${api}/notifications{?since,all,participating}`,
    pulls_url: `${api}/pulls{/number}`,
    releases_url: `${api}/releases{/id}`,
    stargazers_url: `${api}/stargazers`,
    statuses_url: `${api}/statuses/{sha}`,
    subscribers_url: `${api}/subscribers`,
    subscription_url: `${api}/subscription`,
    tags_url: `${api}/tags`,
    teams_url: `${api}/teams`,
    trees_url: `${api}/git/trees{/sha}`,
  };
}

export function fullRepository(base: string, repo: FakeRepo, defaultBranch: string): Record<string, unknown> {
  const created = '2024-01-01T00:00:00Z';
  return {
    ...minimalRepository(base, repo),
    clone_url: `${base}/${repo.fullName}.git`,
    git_url: `${base.replace(/^http/, 'git')}/${repo.fullName}.git`,
    ssh_url: `git@127.0.0.1:${repo.fullName}.git`,
    svn_url: htmlUrl(base, repo),
    mirror_url: null,
    homepage: null,
    language: null,
    license: null,
    default_branch: defaultBranch,
    visibility: repo.isPrivate ? 'private' : 'public',
    forks: 0,
    forks_count: 0,
    stargazers_count: 0,
    watchers: 0,
    watchers_count: 0,
    open_issues: 0,
    open_issues_count: 0,
    network_count: 0,
    subscribers_count: 0,
    size: 0,
    has_issues: true,
    has_projects: false,
    has_wiki: false,
    has_pages: false,
    has_discussions: false,
    archived: false,
    disabled: false,
    pushed_at: created,
    created_at: created,
    updated_at: created,
    permissions: { admin: false, maintain: false, push: true, triage: false, pull: true },
    topics: [],
    is_template: false,
    allow_forking: true,
    web_commit_signoff_required: false,
    temp_clone_token: null,
  };
}

export function refJson(
  base: string,
  repo: FakeRepo,
  ref: string,
  sha: string,
  type: string,
): Record<string, unknown> {
  const api = repoApi(base, repo);
  const kind = type === 'tag' ? 'tags' : type === 'tree' ? 'trees' : type === 'blob' ? 'blobs' : 'commits';
  return {
    ref,
    node_id: nodeId('Ref', `${repo.id}:${ref}`),
    url: `${api}/git/${ref}`,
    object: { type, sha, url: `${api}/git/${kind}/${sha}` },
  };
}

/**
 * GitHub's verification object: `valid` only for a signature that verifies, by a key of the committer
 * (web-flow's for the commits GitHub makes). The stand-in holds no key of anyone else's: another signature is
 * `unknown_key`, web-flow's over other content `invalid`, and web-flow's key on a commit naming someone else
 * as committer `bad_email` (the key does not belong to that committer).
 * https://docs.github.com/rest/git/commits#signature-verification-object
 */
function verification(commit: ParsedCommit): Record<string, unknown> {
  const unverified = (reason: string) => ({
    verified: false,
    reason,
    signature: commit.signature,
    payload: commit.signature === null ? null : commit.payload,
    verified_at: null,
  });
  if (commit.signature === null) return unverified('unsigned');
  if (!isWebFlowSignature(commit.signature, commit.payload))
    return unverified(commit.signature.includes('=fake') ? 'invalid' : 'unknown_key');
  if (commit.committer.email !== WEB_FLOW.email) return unverified('bad_email');
  return {
    verified: true,
    reason: 'valid',
    signature: commit.signature,
    payload: commit.payload,
    verified_at: commit.committer.date,
  };
}

export function gitCommitJson(base: string, repo: FakeRepo, commit: ParsedCommit): Record<string, unknown> {
  const api = repoApi(base, repo);
  return {
    sha: commit.sha,
    node_id: nodeId('Commit', commit.sha),
    url: `${api}/git/commits/${commit.sha}`,
    html_url: `${htmlUrl(base, repo)}/commit/${commit.sha}`,
    author: commit.author,
    committer: commit.committer,
    tree: { sha: commit.tree, url: `${api}/git/trees/${commit.tree}` },
    message: commit.message,
    parents: commit.parents.map((sha) => ({
      sha,
      url: `${api}/git/commits/${sha}`,
      html_url: `${htmlUrl(base, repo)}/commit/${sha}`,
    })),
    verification: verification(commit),
  };
}

export function commitJson(base: string, repo: FakeRepo, commit: ParsedCommit): Record<string, unknown> {
  const api = repoApi(base, repo);
  const authorLogin = loginForEmail(commit.author.email);
  const committerLogin = loginForEmail(commit.committer.email);
  const git = gitCommitJson(base, repo, commit);
  return {
    url: `${api}/commits/${commit.sha}`,
    sha: commit.sha,
    node_id: nodeId('Commit', commit.sha),
    html_url: `${htmlUrl(base, repo)}/commit/${commit.sha}`,
    comments_url: `${api}/commits/${commit.sha}/comments`,
    commit: {
      url: git.url,
      author: commit.author,
      committer: commit.committer,
      message: commit.message,
      tree: git.tree,
      comment_count: 0,
      verification: git.verification,
    },
    author: authorLogin ? simpleUser(base, authorLogin) : null,
    committer: committerLogin ? simpleUser(base, committerLogin) : null,
    parents: git.parents,
  };
}

export function statusJson(
  base: string,
  repo: FakeRepo,
  status: StoredStatus,
  withCreator: boolean,
): Record<string, unknown> {
  const json: Record<string, unknown> = {
    url: `${repoApi(base, repo)}/statuses/${status.sha}`,
    avatar_url: `${base}/avatars/${encodeURIComponent(status.creator)}`,
    id: status.id,
    node_id: nodeId('StatusContext', status.id),
    state: status.state,
    description: status.description,
    target_url: status.target_url,
    context: status.context,
    created_at: status.created_at,
    updated_at: status.updated_at,
  };
  if (withCreator) json.creator = simpleUser(base, status.creator);
  return json;
}
