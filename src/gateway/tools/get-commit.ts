import { z } from 'zod';
import { commitSummarySchema, summarize } from './commit-schema.js';
import { ToolError } from '../tool-answer.js';
import { defineTool } from './definition.js';

const SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

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
  async handler({ sha: raw }, { perimeter, view, history, notes }) {
    notes.sha = raw;
    const sha = raw.toLowerCase();
    if (!SHA.test(sha))
      throw new ToolError(
        `invalid commit SHA ${JSON.stringify(raw)}: expected 40 hexadecimal characters`,
        'refused',
      );
    const absent = new ToolError(`commit ${sha} not found`, 'absent');
    const head = await view.upstream.getBranchHead(view.branch);
    if (!(await history.reachable(sha, head))) {
      notes.refused = true;
      notes.reason = 'not reachable from the bound branch';
      throw absent;
    }
    const commit = await view.commit(sha);
    const changes = await history.commitChanges(commit);
    const files = changes.filter((c) => perimeter.canRead(c.path).allowed);
    if (files.length === 0) {
      notes.refused = true;
      notes.reason = 'changes no readable path';
      throw absent;
    }
    notes.paths.push(...files.map((f) => f.path));
    return {
      structured: {
        ...summarize(commit),
        files: files.map((f) => ({
          path: f.path,
          status: f.status,
          ...(f.sha ? { sha: f.sha } : {}),
          ...(f.previousSha ? { previous_sha: f.previousSha } : {}),
        })),
        omitted_count: changes.length - files.length,
      },
    };
  },
});
