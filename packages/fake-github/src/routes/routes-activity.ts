import { readRefChanges } from '../activity-log.js';
import { ZERO_SHA } from '../git/git.js';
import { pageParams, unprocessable } from '../http-util.js';
import type { ApiResponse } from '../http-util.js';
import { route } from '../router.js';
import type { Route, RouteContext } from '../router.js';
import { nodeId, simpleUser } from '../shapes.js';

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
  const until = Date.now() - ctx.activityLagMs;
  const { perPage } = pageParams(ctx.url);
  const rows: Array<Record<string, unknown>> = [];
  const ancestry = new Map<string, Promise<boolean>>();
  const isAncestor = (before: string, after: string): Promise<boolean> => {
    const key = `${before}..${after}`;
    if (!ancestry.has(key)) ancestry.set(key, ctx.repo.isAncestor(before, after));
    return ancestry.get(key)!;
  };
  for (const change of changes) {
    // GitHub lists branch activity only: `ref` is documented as refs/heads/<branch>, and tags or other
    // namespaces never appear. https://docs.github.com/rest/repos/repos#list-repository-activities
    if (!change.ref.startsWith('refs/heads/')) continue;
    if (Date.parse(change.timestamp) > until) continue;
    if (refFilter && change.ref !== refFilter && change.ref !== `refs/heads/${refFilter}`) continue;
    if (actorFilter && change.actor !== actorFilter) continue;
    if (Date.parse(change.timestamp) < since) continue;
    const activityType =
      change.before === ZERO_SHA
        ? 'branch_creation'
        : change.after === ZERO_SHA
          ? 'branch_deletion'
          : (await isAncestor(change.before, change.after))
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

export const activityRoutes: Route[] = [route('GET', '/repos/{owner}/{repo}/activity', listActivity)];
