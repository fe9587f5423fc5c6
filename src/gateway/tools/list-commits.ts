import { z } from 'zod';
import { MAX_SCAN, type CommitPage, type History } from '../reads/history.js';
import type { Perimeter } from '../../policy/index.js';
import type { RepoView } from '../reads/repo-view.js';
import { commitSummarySchema, summarize } from './commit-schema.js';
import { defineTool } from './definition.js';
import { requirePath } from './paths.js';

export const listCommits = defineTool({
  name: 'list_commits',
  description:
    'Commits on the bound branch that change files this endpoint may read, newest first, optionally only those changing a file or directory.',
  readOnly: true,
  destructive: false,
  inputSchema: {
    path: z.string().optional().describe('only commits changing this file or something below this directory'),
    per_page: z.number().int().min(1).max(100).optional().describe('commits per page, default 30'),
    page: z.number().int().min(1).max(100).optional().describe('page number, default 1'),
  },
  outputSchema: {
    commits: z.array(commitSummarySchema),
    page: z.number(),
    per_page: z.number(),
    has_more: z.boolean(),
    incomplete: z.boolean().describe(`true when the search stopped after examining ${MAX_SCAN} commits`),
  },
  pathArguments: { path: 'one' },
  async handler({ path: raw, per_page: perPage = 30, page = 1 }, { perimeter, view, history, notes }) {
    if (raw !== undefined) notes.paths.push(raw);
    const within =
      raw === undefined || raw === ''
        ? undefined
        : requirePath(raw, ' (leave path out for the whole branch)');
    const found =
      (await listBelow(within, perPage, page, { perimeter, view, history })) ?? (await listByRest());
    async function listByRest(): Promise<CommitPage> {
      const head = await view.upstream.getBranchHead(view.branch);
      return within !== undefined && (await hiddenAtHead(view, perimeter, head, within))
        ? history.asIfNoHistory(head, within)
        : history.list(perimeter, head, within, perPage, page);
    }
    return {
      structured: {
        commits: found.commits.map(summarize),
        page,
        per_page: perPage,
        has_more: found.hasMore,
        incomplete: found.incomplete,
      },
    };
  },
});

/**
 * Below a path, by batched GraphQL reads (History.paths): the head and the path's commits come in one call,
 * and a hidden path is answered "no commits" right after it, as a missing one is (the same call, nothing
 * examined). Null when GraphQL cannot serve it.
 */
async function listBelow(
  within: string | undefined,
  perPage: number,
  page: number,
  { perimeter, view, history }: { perimeter: Perimeter; view: RepoView; history: History },
): Promise<CommitPage | null> {
  if (within === undefined || !history.paths) return null;
  const scan = await history.paths.start(within, page * perPage + 1);
  if (!scan) return null;
  if (await hiddenAtHead(view, perimeter, scan.head, within))
    return { commits: [], hasMore: false, incomplete: false };
  return history.paths.list(perimeter, scan, within, perPage, page, MAX_SCAN);
}

/**
 * A path that exists at the head with nothing readable at or below it. Its history is not looked into:
 * examining it costs a request per commit where a missing path costs none, and that difference alone
 * would tell a hidden directory from a missing one. (Readable files that were there once and are gone
 * are then not listed for it; list_commits without a path still lists their commits.)
 */
async function hiddenAtHead(
  view: RepoView,
  perimeter: Perimeter,
  head: string,
  path: string,
): Promise<boolean> {
  const { index } = await view.snapshotAt(head);
  if (index.get(path) === undefined) return false;
  const readable = index.readable(perimeter);
  return !readable.files.has(path) && !readable.dirs.has(path);
}
