import { z } from 'zod';
import { MAX_SCAN, type CommitPage } from '../reads/history.js';
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
    const answer = (found: CommitPage) => ({
      structured: {
        commits: found.commits.map(summarize),
        page,
        per_page: perPage,
        has_more: found.hasMore,
        incomplete: found.incomplete,
      },
    });
    // Decided first, from the head alone: whatever comes after depends on it
    const head = await view.upstream.getBranchHead(view.branch);
    if (within !== undefined && !(await visibleAtHead(view, perimeter, head, within)))
      return answer({ commits: [], hasMore: false, incomplete: false });
    const found =
      (within !== undefined && history.paths
        ? await history.paths
            .start(within, page * perPage + 1)
            .then((scan) => scan && history.paths!.list(perimeter, scan, within, perPage, page, MAX_SCAN))
        : null) ?? (await history.list(perimeter, head, within, perPage, page));
    return answer(found);
  },
});

/**
 * Whether something readable is at or below `path` at the head. A path with nothing readable there answers
 * "no commits" before any history is asked, whether it is hidden, gone or never was: asking would cost a
 * hidden folder with history more than a missing path, and that difference alone would tell them apart.
 * (Commits of readable files that are gone are still listed by list_commits without a path.)
 */
async function visibleAtHead(
  view: RepoView,
  perimeter: Perimeter,
  head: string,
  path: string,
): Promise<boolean> {
  const { index } = await view.snapshotAt(head);
  const readable = index.readable(perimeter);
  return readable.files.has(path) || readable.dirs.has(path);
}
