import { z } from 'zod';
import { defineTool } from './definition.js';

export const pushFiles = defineTool({
  name: 'push_files',
  description:
    'Write and delete files on the bound branch in one commit. Every path must be writable by this endpoint and within its limits; if anything is wrong the whole call is refused and nothing is written. If the branch moved and the same files changed meanwhile, the call fails with a conflict and the new head. Content carrying credentials is refused, binary content too (its readable text is scanned). Deleting needs read access to the path. With staged writes, paths the perimeter sends to review are accepted and listed in `review`: the changes then go to a draft pull request a person decides on.',
  readOnly: false,
  destructive: true,
  inputSchema: {
    message: z.string().min(1).max(65_536).describe('commit message'),
    files: z
      .array(
        z.object({
          path: z.string().describe('repository-relative path'),
          content: z.string().describe('the whole new content of the file'),
          encoding: z.enum(['utf-8', 'base64']).optional().describe('how content is encoded; default utf-8'),
        }),
      )
      .describe('files to create or replace'),
    deletions: z.array(z.string()).optional().describe('paths of files to delete'),
  },
  outputSchema: {
    commit: z
      .string()
      .nullable()
      .describe(
        'the new commit, or null when nothing changed (a write to a file this endpoint cannot read always commits)',
      ),
    head: z.string().describe('the branch head after this call'),
    files: z.array(z.string()),
    deletions: z.array(z.string()),
    unscanned: z
      .array(z.string())
      .optional()
      .describe('binary files whose compressed or encrypted content could not be scanned for credentials'),
    staged: z
      .literal(true)
      .optional()
      .describe(
        'the commit is staged: reads see it, and a later job writes it to GitHub after checking it again',
      ),
    review: z
      .array(z.string())
      .optional()
      .describe(
        'paths this endpoint may not change on its own: the staged changes go to a draft pull request a person reviews, not to the branch',
      ),
  },
  pathArguments: { files: 'items', deletions: 'list' },
  async handler(args, { perimeter, pusher, notes }) {
    const result = await pusher.push(perimeter, args, notes);
    return { structured: { ...result } };
  },
});
