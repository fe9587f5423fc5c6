import { readRefChanges } from './activity-log.js';
import { ZERO_SHA } from './git.js';
import {
  emptyRepository,
  HttpError,
  isSha,
  linkHeader,
  notFound,
  pageParams,
  readJson,
  unprocessable,
  validationFailed,
} from './http-util.js';
import type { ApiResponse } from './http-util.js';
import { route } from './router.js';
import type { Route, RouteContext } from './router.js';
import { htmlUrl, minimalRepository, nodeId, repoApi, simpleUser, statusJson } from './shapes.js';

const STATES = ['error', 'failure', 'pending', 'success'];
/** Answers of the contents API carry the content only up to 1 MB. */
const CONTENTS_INLINE_LIMIT = 1024 * 1024;

async function createStatus(ctx: RouteContext): Promise<ApiResponse> {
  const body = await readJson(ctx.req);
  const sha = ctx.params.sha!;
  if (!isSha(sha) || !(await ctx.repo.readCommit(sha)))
    throw unprocessable(`No commit found for SHA: ${sha}`);
  if (typeof body.state !== 'string' || !STATES.includes(body.state)) {
    throw validationFailed('Status', 'state', 'custom', `state is not included in the list`);
  }
  if (body.description !== undefined && body.description !== null && typeof body.description !== 'string') {
    throw validationFailed('Status', 'description', 'invalid');
  }
  if (typeof body.description === 'string' && body.description.length > 140) {
    throw validationFailed(
      'Status',
      'description',
      'custom',
      'description is too long (maximum is 140 characters)',
    );
  }
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const status = {
    id: ctx.repo.statuses.length + 1,
    sha,
    state: body.state,
    description: typeof body.description === 'string' ? body.description : null,
    target_url: typeof body.target_url === 'string' ? body.target_url : null,
    context: typeof body.context === 'string' && body.context !== '' ? body.context : 'default',
    creator: ctx.actor,
    created_at: now,
    updated_at: now,
  };
  ctx.repo.statuses.push(status);
  return { status: 201, body: statusJson(ctx.base, ctx.repo, status, true) };
}

async function statusesFor(ctx: RouteContext): Promise<{ sha: string; list: typeof ctx.repo.statuses }> {
  if (await ctx.repo.isEmpty()) throw emptyRepository();
  const sha = await ctx.repo.resolveCommit(ctx.params.ref!);
  if (!sha) throw notFound();
  return { sha, list: ctx.repo.statuses.filter((s) => s.sha === sha).reverse() };
}

async function listStatuses(ctx: RouteContext): Promise<ApiResponse> {
  const { list } = await statusesFor(ctx);
  const { perPage, page } = pageParams(ctx.url);
  const lastPage = Math.max(1, Math.ceil(list.length / perPage));
  const link = linkHeader(ctx.url, page, page < lastPage, lastPage);
  const body = list
    .slice((page - 1) * perPage, page * perPage)
    .map((s) => statusJson(ctx.base, ctx.repo, s, true));
  return { status: 200, body, headers: link ? { link } : {} };
}

async function combinedStatus(ctx: RouteContext): Promise<ApiResponse> {
  const { sha, list } = await statusesFor(ctx);
  const latest = new Map<string, (typeof list)[number]>();
  for (const status of list) if (!latest.has(status.context)) latest.set(status.context, status);
  const states = [...latest.values()].map((s) => s.state);
  const state = states.some((s) => s === 'error' || s === 'failure')
    ? 'failure'
    : states.length === 0 || states.includes('pending')
      ? 'pending'
      : 'success';
  const api = repoApi(ctx.base, ctx.repo);
  return {
    status: 200,
    body: {
      state,
      statuses: [...latest.values()].map((s) => statusJson(ctx.base, ctx.repo, s, false)),
      sha,
      total_count: latest.size,
      repository: minimalRepository(ctx.base, ctx.repo),
      commit_url: `${api}/commits/${sha}`,
      url: `${api}/commits/${sha}/status`,
    },
  };
}

function contentEntry(
  ctx: RouteContext,
  path: string,
  sha: string,
  type: string,
  size: number,
  ref: string,
): Record<string, unknown> {
  const api = repoApi(ctx.base, ctx.repo);
  const encoded = path.split('/').map(encodeURIComponent).join('/');
  const kind = type === 'tree' ? 'dir' : type === 'commit' ? 'submodule' : 'file';
  const self = `${api}/contents/${encoded}?ref=${encodeURIComponent(ref)}`;
  const git = type === 'commit' ? null : `${api}/git/${type}s/${sha}`;
  const html = `${htmlUrl(ctx.base, ctx.repo)}/${type === 'tree' ? 'tree' : 'blob'}/${ref}/${encoded}`;
  return {
    type: kind,
    size,
    name: path.split('/').pop() ?? path,
    path,
    sha,
    url: self,
    git_url: git,
    html_url: html,
    download_url: kind === 'file' ? `${htmlUrl(ctx.base, ctx.repo)}/raw/${ref}/${encoded}` : null,
    _links: { self, git, html },
  };
}

async function getContents(ctx: RouteContext): Promise<ApiResponse> {
  if (await ctx.repo.isEmpty()) throw new HttpError(404, 'This repository is empty.');
  const ref = ctx.url.searchParams.get('ref') ?? (await ctx.repo.defaultBranch());
  const commit = await ctx.repo.resolveCommit(ref);
  if (!commit) throw notFound();
  const path = (ctx.params.path ?? '').replace(/^\/+|\/+$/g, '');
  const object = await ctx.repo.readObject(path === '' ? `${commit}^{tree}` : `${commit}:${path}`);
  if (!object) throw notFound();
  if (object.type === 'tree') {
    const entries = await ctx.repo.lsTree(object.sha, false);
    const prefix = path === '' ? '' : `${path}/`;
    return {
      status: 200,
      body: entries.map((e) => contentEntry(ctx, `${prefix}${e.path}`, e.sha, e.type, e.size ?? 0, ref)),
    };
  }
  if (/application\/vnd\.github(\.v3)?\.raw/.test(String(ctx.req.headers.accept ?? ''))) {
    return { status: 200, body: object.data, headers: { 'content-type': 'application/vnd.github.raw' } };
  }
  const parent = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '';
  const listing = await ctx.repo.lsTree(parent === '' ? `${commit}^{tree}` : `${commit}:${parent}`, false);
  const mode = listing.find((e) => e.path === path.split('/').pop())?.mode;
  const entry = contentEntry(ctx, path, object.sha, object.type, object.data.length, ref);
  if (mode === '120000')
    return { status: 200, body: { ...entry, type: 'symlink', target: object.data.toString('utf8') } };
  const inline = object.data.length <= CONTENTS_INLINE_LIMIT;
  const content = inline ? (object.data.toString('base64').match(/.{1,60}/g) ?? []).join('\n') + '\n' : '';
  return { status: 200, body: { ...entry, content, encoding: inline ? 'base64' : 'none' } };
}

async function listActivity(ctx: RouteContext): Promise<ApiResponse> {
  const params = ctx.url.searchParams;
  const changes = await readRefChanges(ctx.repo.dir);
  const refFilter = params.get('ref');
  const actorFilter = params.get('actor');
  const typeFilter = params.get('activity_type');
  const periods: Record<string, number> = { day: 1, week: 7, month: 30, quarter: 91, year: 365 };
  const period = params.get('time_period');
  if (period && !(period in periods)) {
    throw unprocessable('Validation Failed', {
      errors: [`time_period must be one of: ${Object.keys(periods).join(', ')}`],
    });
  }
  const since = period ? Date.now() - periods[period]! * 86_400_000 : 0;
  const { perPage } = pageParams(ctx.url);
  const rows: Array<Record<string, unknown>> = [];
  for (const change of changes) {
    if (refFilter && change.ref !== refFilter && change.ref !== `refs/heads/${refFilter}`) continue;
    if (actorFilter && change.actor !== actorFilter) continue;
    if (Date.parse(change.timestamp) < since) continue;
    const activityType =
      change.before === ZERO_SHA
        ? 'branch_creation'
        : change.after === ZERO_SHA
          ? 'branch_deletion'
          : (await ctx.repo.isAncestor(change.before, change.after))
            ? 'push'
            : 'force_push';
    if (typeFilter && activityType !== typeFilter) continue;
    rows.push({
      id: change.id,
      node_id: nodeId('RepositoryActivity', `${ctx.repo.id}:${change.id}`),
      before: change.before,
      after: change.after,
      ref: change.ref,
      timestamp: change.timestamp,
      activity_type: activityType,
      actor: change.actor ? simpleUser(ctx.base, change.actor) : null,
    });
  }
  if (params.get('direction') !== 'asc') rows.reverse();
  return { status: 200, ...cursorPage(ctx.url, rows, perPage) };
}

/** GitHub pages the activity list with opaque `after`/`before` cursors named in the Link header. */
function cursorPage(
  url: URL,
  rows: Array<Record<string, unknown>>,
  perPage: number,
): { body: unknown; headers: Record<string, string> } {
  const cursorOf = (row: Record<string, unknown>): string =>
    Buffer.from(`cursor:${String(row.id)}`).toString('base64url');
  const indexOf = (cursor: string | null): number =>
    cursor === null ? -1 : rows.findIndex((row) => cursorOf(row) === cursor);
  const after = url.searchParams.get('after');
  const before = url.searchParams.get('before');
  let start = 0;
  if (after !== null) start = indexOf(after) + 1;
  else if (before !== null) start = Math.max(0, indexOf(before) - perPage);
  const end = before !== null && after === null ? Math.max(0, indexOf(before)) : start + perPage;
  const page = rows.slice(start, end);
  const link = (name: string, cursor: string, rel: string): string => {
    const copy = new URL(url.href);
    copy.searchParams.delete('after');
    copy.searchParams.delete('before');
    copy.searchParams.set(name, cursor);
    return `<${copy.href}>; rel="${rel}"`;
  };
  const links: string[] = [];
  if (page.length > 0 && end < rows.length)
    links.push(link('after', cursorOf(page[page.length - 1]!), 'next'));
  if (page.length > 0 && start > 0) links.push(link('before', cursorOf(page[0]!), 'prev'));
  return { body: page, headers: links.length > 0 ? { link: links.join(', ') } : {} };
}

export const miscRoutes: Route[] = [
  route('POST', '/repos/{owner}/{repo}/statuses/{sha}', createStatus),
  route('GET', '/repos/{owner}/{repo}/commits/{ref+}/statuses', listStatuses),
  route('GET', '/repos/{owner}/{repo}/commits/{ref+}/status', combinedStatus),
  route('GET', '/repos/{owner}/{repo}/contents/{path*}', getContents),
  route('GET', '/repos/{owner}/{repo}/activity', listActivity),
];
