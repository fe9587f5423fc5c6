/**
 * Which way a checked push can land, decided without I/O: GraphQL's createCommitOnBranch (one request, any
 * number of files) when it can express the change exactly, else the Git Data API. createCommitOnBranch writes
 * every file with mode 100644 and knows no symlinks or submodules
 * (https://docs.github.com/en/graphql/reference/input-objects#filechanges).
 */
import type { Perimeter } from '../../policy/index.js';
import { blobSha } from '../../github/index.js';
import type { PushPlan } from './push-plan.js';
import type { Snapshot } from '../reads/repo-view.js';

/**
 * Content per GraphQL push (decoded). GitHub documents no size limit for createCommitOnBranch, but a GraphQL
 * call that runs over 10 seconds is ended
 * (https://docs.github.com/en/graphql/overview/rate-limits-and-query-limits-for-the-graphql-api#timeouts);
 * larger pushes go by the Git Data API, whose blobs take up to 100 MB each.
 */
export const GRAPHQL_PUSH_BYTES = 4 * 1024 * 1024;

/** Why this push cannot land by createCommitOnBranch on `base` (empty: it can), one reason a line. */
export function graphqlCannot(
  base: Snapshot,
  plan: Pick<PushPlan, 'message' | 'files' | 'deletions'>,
  replaced: readonly string[] = [],
): string[] {
  const reasons: string[] = [];
  // GitHub takes a headline and a body: a message without a first line has no headline to give
  if (plan.message.split('\n', 1)[0]!.trim() === '') reasons.push('the message has no headline line');
  for (const { path } of plan.files) {
    const entry = base.index.get(path);
    // GitHub documents no way to write a file where a folder is: the Git Data API replaces it in order
    if (entry?.type === 'tree') reasons.push(`${path}: replacing a folder by REST only`);
    // an executable file would lose its bit, a symlink or submodule would become a file without saying so
    else if (entry !== undefined && entry.mode !== '100644')
      reasons.push(`${path}: mode ${entry.mode} is kept by REST only`);
  }
  for (const path of [...replaced, ...plan.deletions]) {
    const mode = base.index.get(path)?.mode;
    if (mode !== '100644' && mode !== '100755') reasons.push(`${path}: deleting mode ${mode} by REST only`);
  }
  const bytes = plan.files.reduce((sum, f) => sum + f.bytes.length, 0);
  if (bytes > GRAPHQL_PUSH_BYTES) reasons.push(`${bytes} bytes, over ${GRAPHQL_PUSH_BYTES} for GraphQL`);
  return reasons;
}

/**
 * Whether the push would leave the tree as it is, told from the index alone: no deletions, and every file
 * already a regular file with these bytes. As for the Git Data landing, a write to a file this perimeter
 * cannot read always commits, or "no change" would confirm a guess of its content.
 */
export function unchangedAt(perimeter: Perimeter, base: Snapshot, plan: PushPlan): boolean {
  return (
    plan.deletions.length === 0 &&
    plan.files.every((f) => {
      const entry = base.index.get(f.path);
      return (
        entry?.type === 'blob' &&
        entry.mode === '100644' &&
        entry.sha === blobSha(f.bytes) &&
        perimeter.canRead(f.path).allowed
      );
    })
  );
}
