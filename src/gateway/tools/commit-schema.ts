import { z } from 'zod';
import type { CommitInfo } from '../../github/index.js';

const signature = z.object({ name: z.string(), email: z.string(), date: z.string() });

/** A commit as agents see it. Parents are left out: a parent may be a commit this endpoint hides. */
export const commitSummarySchema = z.object({
  sha: z.string(),
  message: z.string(),
  author: signature,
  committer: signature,
  staged: z
    .literal(true)
    .optional()
    .describe(
      'the commit is staged: reads see it, and a later job writes it to GitHub after checking it again',
    ),
});

export function summarize(commit: CommitInfo): z.infer<typeof commitSummarySchema> {
  return {
    sha: commit.sha,
    message: commit.message,
    author: commit.author,
    committer: commit.committer,
    ...(commit.staged ? { staged: true as const } : {}),
  };
}
