import { z } from 'zod';
import { commitSummarySchema, summarize } from './commit-schema.js';
import { defineTool } from './definition.js';
import { visibleCommit } from './visible-commit.js';

export const getCommit = defineTool({
  name: 'get_commit',
  description:
    'One commit of the bound branch: message, author, and the files it changed that this endpoint may read. omitted_count tells how many other changed files are not shown.',
  readOnly: true,
  destructive: false,
  inputSchema: { sha: z.string().describe('full commit SHA (40 hex characters)') },
  outputSchema: {
    ...commitSummarySchema.shape,
    files: z.array(
      z.object({
        path: z.string(),
        status: z.enum(['added', 'modified', 'deleted']),
        sha: z.string().optional(),
        previous_sha: z.string().optional(),
      }),
    ),
    omitted_count: z.number(),
  },
  pathArguments: {},
  async handler({ sha: raw }, context) {
    context.notes.sha = raw;
    const { commit, readable: files, omitted } = await visibleCommit(raw, context);
    context.notes.paths.push(...files.map((f) => f.path));
    return {
      structured: {
        ...summarize(commit),
        files: files.map((f) => ({
          path: f.path,
          status: f.status,
          ...(f.sha ? { sha: f.sha } : {}),
          ...(f.previousSha ? { previous_sha: f.previousSha } : {}),
        })),
        omitted_count: omitted,
      },
    };
  },
});
