import { z } from 'zod';
import { MAX_SCOPE_REASON, MAX_SCOPE_REQUESTS, scopeRequestProblem } from '../../policy/index.js';
import { ToolError } from '../tool-answer.js';
import { defineTool } from './definition.js';

export const requestScope = defineTool({
  name: 'request_scope',
  description: `Ask the repository owner for write access to a path this endpoint may not write, with a reason. Nothing changes now: the request goes into the job's receipt as a ready perimeters.yml change the owner may apply for a later run. At most ${MAX_SCOPE_REQUESTS} requests per job, reasons up to ${MAX_SCOPE_REASON} characters.`,
  readOnly: true,
  destructive: false,
  inputSchema: {
    path: z.string().describe('the path or perimeters.yml glob to write, e.g. "docs/api.md" or "docs/**"'),
    reason: z.string().describe('why the task needs it, for the owner who decides'),
  },
  outputSchema: {
    recorded: z.literal(true),
    remaining: z.number().describe('how many more requests this job may record'),
  },
  // a glob, not a path: the ledger keeps it in `scope`, never among the paths a call touched
  pathArguments: {},
  async handler({ path, reason }, { perimeter, scopeRequests, notes }) {
    const problem = scopeRequestProblem(path, reason, scopeRequests.recorded);
    if (problem !== null) {
      notes.reason = problem;
      throw new ToolError(`scope request refused: ${problem}`, 'refused');
    }
    if (perimeter.canWrite(path).allowed) {
      notes.reason = 'already writable';
      throw new ToolError(`${JSON.stringify(path)} is writable already; use push_files`, 'refused');
    }
    scopeRequests.recorded++;
    notes.scope = { glob: path, reason };
    return Promise.resolve({
      structured: { recorded: true, remaining: MAX_SCOPE_REQUESTS - scopeRequests.recorded },
    });
  },
});
