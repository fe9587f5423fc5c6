/**
 * Issues, issue comments (an issue's conversation, and a pull request's: a pull request is an issue there),
 * labels and a collaborator's permission, as GitHub documents them:
 * https://docs.github.com/rest/issues/issues, https://docs.github.com/rest/issues/comments,
 * https://docs.github.com/rest/issues/labels, https://docs.github.com/rest/collaborators/collaborators.
 *
 * Permissions as GitHub checks a GITHUB_TOKEN's or an App's
 * (https://docs.github.com/rest/authentication/permissions-required-for-github-apps): reading or writing an
 * issue, its comments or labels needs `issues`; on a pull request `pull-requests` does too ("Issues" or
 * "Pull requests", read to GET, write otherwise). The stand-in's repositories are private, so a token without
 * the permission is refused (403), never served as public data would be.
 */
import { HttpError, notFound, pageParams, readJson, validationFailed } from '../http-util.js';
import type { ApiResponse } from '../http-util.js';
import type { StoredComment, StoredIssue, StoredPull } from '../repo.js';
import { route } from '../router.js';
import type { Route, RouteContext } from '../router.js';
import { htmlUrl, nodeId, repoApi, simpleUser } from '../shapes.js';

/** GitHub's limits for a body and a title (422 "is too long" past them). */
export const BODY_LIMIT = 65_536;
export const TITLE_LIMIT = 256;

const NOT_ACCESSIBLE = 'Resource not accessible by integration';
const now = (): string => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

type Thread = { kind: 'issue'; issue: StoredIssue } | { kind: 'pull'; pull: StoredPull };

function threadOf(ctx: RouteContext): Thread {
  const number = ctx.params.issue_number;
  const issue = ctx.repo.issues.find((i) => String(i.number) === number);
  if (issue) return { kind: 'issue', issue };
  const pull = ctx.repo.pulls.find((p) => String(p.number) === number);
  if (pull) return { kind: 'pull', pull };
  throw notFound();
}

/** Refuses as GitHub does when the token may not `write` (or read) this issue or pull request. */
export function mayTouch(ctx: RouteContext, kind: 'issue' | 'pull', write: boolean): void {
  const rank = { none: 0, read: 1, write: 2 } as const;
  const need = write ? 2 : 1;
  const issues = rank[ctx.permissions.issues];
  const pulls = rank[ctx.permissions.pullRequests];
  const enough = kind === 'issue' ? issues >= need : Math.max(issues, pulls) >= need;
  if (!enough) throw new HttpError(403, NOT_ACCESSIBLE);
}

/** A body GitHub would keep, or the 422 it answers. */
export function checkedText(value: unknown, resource: string, field: string, limit: number): string {
  if (typeof value !== 'string') throw validationFailed(resource, field, 'missing_field');
  if ([...value].length > limit)
    throw validationFailed(
      resource,
      field,
      'custom',
      `${field} is too long (maximum is ${limit} characters)`,
    );
  return value;
}

function association(ctx: RouteContext, login: string): string {
  const permission = ctx.repo.permissionOf(login);
  if (permission === 'admin' && login.toLowerCase() === ctx.repo.owner.toLowerCase()) return 'OWNER';
  return permission === 'none' ? 'NONE' : 'COLLABORATOR';
}

function commentsOf(thread: Thread): StoredComment[] {
  return thread.kind === 'issue' ? (thread.issue.comments ??= []) : (thread.pull.comments ??= []);
}

function commentJson(ctx: RouteContext, number: number, comment: StoredComment): Record<string, unknown> {
  const api = repoApi(ctx.base, ctx.repo);
  return {
    id: comment.id,
    node_id: nodeId('IssueComment', comment.id),
    url: `${api}/issues/comments/${comment.id}`,
    html_url: `${htmlUrl(ctx.base, ctx.repo)}/issues/${number}#issuecomment-${comment.id}`,
    body: comment.body,
    user: simpleUser(ctx.base, comment.user),
    created_at: comment.created_at,
    updated_at: comment.created_at,
    issue_url: `${api}/issues/${number}`,
    author_association: association(ctx, comment.user),
  };
}

function labelJson(ctx: RouteContext, name: string): Record<string, unknown> {
  return {
    id: [...name].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % 1_000_000, 7),
    node_id: nodeId('Label', name),
    url: `${repoApi(ctx.base, ctx.repo)}/labels/${encodeURIComponent(name)}`,
    name,
    description: null,
    color: 'ededed',
    default: false,
  };
}

function issueJson(ctx: RouteContext, thread: Thread): Record<string, unknown> {
  const api = repoApi(ctx.base, ctx.repo);
  const item = thread.kind === 'issue' ? thread.issue : thread.pull;
  const html = `${htmlUrl(ctx.base, ctx.repo)}/${thread.kind === 'issue' ? 'issues' : 'pull'}/${item.number}`;
  return {
    id: ctx.repo.id * 1000 + item.number,
    node_id: nodeId('Issue', `${ctx.repo.id}/${item.number}`),
    url: `${api}/issues/${item.number}`,
    repository_url: api,
    labels_url: `${api}/issues/${item.number}/labels{/name}`,
    comments_url: `${api}/issues/${item.number}/comments`,
    events_url: `${api}/issues/${item.number}/events`,
    html_url: html,
    number: item.number,
    state: item.state,
    title: item.title,
    body: item.body,
    user: simpleUser(ctx.base, item.user),
    labels: item.labels.map((name) => labelJson(ctx, name)),
    assignee: null,
    assignees: [],
    milestone: null,
    locked: false,
    active_lock_reason: null,
    comments: commentsOf(thread).length,
    closed_at: null,
    created_at: item.created_at,
    updated_at: item.created_at,
    author_association: association(ctx, item.user),
    ...(thread.kind === 'pull' && {
      draft: thread.pull.draft,
      pull_request: {
        url: `${api}/pulls/${item.number}`,
        html_url: html,
        diff_url: `${html}.diff`,
        patch_url: `${html}.patch`,
        merged_at: thread.pull.merged_at,
      },
    }),
  };
}

/** POST /repos/{owner}/{repo}/issues: title required (256 characters at most), body optional. */
async function createIssue(ctx: RouteContext): Promise<ApiResponse> {
  mayTouch(ctx, 'issue', true);
  const body = await readJson(ctx.req);
  const title = checkedText(body.title, 'Issue', 'title', TITLE_LIMIT);
  if (title.trim() === '') throw validationFailed('Issue', 'title', 'missing_field');
  const issue: StoredIssue = {
    number: ctx.repo.nextIssueNumber(),
    title,
    body:
      body.body === undefined || body.body === null
        ? null
        : checkedText(body.body, 'Issue', 'body', BODY_LIMIT),
    user: ctx.actor,
    labels: [],
    state: 'open',
    created_at: now(),
  };
  ctx.repo.issues.push(issue);
  return { status: 201, body: issueJson(ctx, { kind: 'issue', issue }) };
}

/** GET /repos/{owner}/{repo}/issues/{issue_number}: an issue, or a pull request as an issue. */
function getIssue(ctx: RouteContext): Promise<ApiResponse> {
  const thread = threadOf(ctx);
  mayTouch(ctx, thread.kind, false);
  return Promise.resolve({ status: 200, body: issueJson(ctx, thread) });
}

/** GET /repos/{owner}/{repo}/issues/{issue_number}/comments: oldest first, paged (30 by default, 100 at most). */
function listComments(ctx: RouteContext): Promise<ApiResponse> {
  const thread = threadOf(ctx);
  mayTouch(ctx, thread.kind, false);
  const { perPage, page } = pageParams(ctx.url);
  const number = Number(ctx.params.issue_number);
  const body = commentsOf(thread)
    .slice((page - 1) * perPage, page * perPage)
    .map((c) => commentJson(ctx, number, c));
  return Promise.resolve({ status: 200, body });
}

/** POST /repos/{owner}/{repo}/issues/{issue_number}/comments: a body of 65,536 characters at most. */
async function createComment(ctx: RouteContext): Promise<ApiResponse> {
  const thread = threadOf(ctx);
  mayTouch(ctx, thread.kind, true);
  const body = await readJson(ctx.req);
  const text = checkedText(body.body, 'IssueComment', 'body', BODY_LIMIT);
  if (text.trim() === '') throw validationFailed('IssueComment', 'body', 'missing_field');
  const comments = commentsOf(thread);
  const comment: StoredComment = {
    id: ctx.repo.id * 1_000_000 + Number(ctx.params.issue_number) * 1000 + comments.length + 1,
    user: ctx.actor,
    body: text,
    created_at: now(),
  };
  comments.push(comment);
  return { status: 201, body: commentJson(ctx, Number(ctx.params.issue_number), comment) };
}

/** POST /repos/{owner}/{repo}/issues/{issue_number}/labels: adds labels, answers them all. */
async function addLabels(ctx: RouteContext): Promise<ApiResponse> {
  const thread = threadOf(ctx);
  mayTouch(ctx, thread.kind, true);
  const body = await readJson(ctx.req);
  const names = Array.isArray(body.labels) ? body.labels : [];
  if (names.length === 0 || names.some((n) => typeof n !== 'string' || n === '' || [...n].length > 50))
    throw validationFailed('Label', 'name', 'invalid');
  const labels = thread.kind === 'issue' ? thread.issue.labels : thread.pull.labels;
  for (const name of names as string[]) if (!labels.includes(name)) labels.push(name);
  return { status: 200, body: labels.map((name) => labelJson(ctx, name)) };
}

/**
 * GET /repos/{owner}/{repo}/collaborators/{username}/permission: admin, write, read or none (maintain reads as
 * write and triage as read in `permission`; `role_name` keeps them). Needs metadata: read, which every token has.
 */
function getPermission(ctx: RouteContext): Promise<ApiResponse> {
  const login = ctx.params.username!;
  const role = ctx.repo.permissionOf(login);
  const permission = role === 'maintain' ? 'write' : role === 'triage' ? 'read' : role;
  return Promise.resolve({
    status: 200,
    body: { permission, role_name: role, user: { ...simpleUser(ctx.base, login), role_name: role } },
  });
}

export { labelJson };

export const issueRoutes: Route[] = [
  route('POST', '/repos/{owner}/{repo}/issues', createIssue),
  route('GET', '/repos/{owner}/{repo}/issues/{issue_number}', getIssue),
  route('GET', '/repos/{owner}/{repo}/issues/{issue_number}/comments', listComments),
  route('POST', '/repos/{owner}/{repo}/issues/{issue_number}/comments', createComment),
  route('POST', '/repos/{owner}/{repo}/issues/{issue_number}/labels', addLabels),
  route('GET', '/repos/{owner}/{repo}/collaborators/{username}/permission', getPermission),
];
