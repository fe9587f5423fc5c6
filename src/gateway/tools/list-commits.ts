import { z } from 'zod';
import { MAX_SCAN } from '../history.js';
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
  async handler({ path: raw, per_page: perPage = 30, page = 1 }, { perimeter, view, history, notes }) {
    if (raw !== undefined) notes.paths.push(raw);
    const within =
      raw === undefined || raw === ''
        ? undefined
        : requirePath(raw, ' (leave path out for the whole branch)');
    const head = await view.upstream.getBranchHead(view.branch);
    const found = await history.list(perimeter, head, within, perPage, page);
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
