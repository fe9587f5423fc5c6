import type { PushActivity, RepoReads } from '../../github/index.js';
import { listNewCommits } from './new-commits.js';
import { ZERO_SHA } from './ref-accounting.js';
import type { BranchHistory } from '../types.js';

/**
 * Whether every move of a ref was made by someone other than `identity` (the actor GitHub records for this
 * job's token). A move with no recorded actor, or no known identity, counts as this job's: strict.
 */
export function movedByOthersOnly(moves: readonly PushActivity[], identity: string | null): boolean {
  return (
    identity !== null &&
    moves.length > 0 &&
    moves.every((move) => move.actor !== null && move.actor !== identity)
  );
}

/**
 * The commits other actors brought onto the bound branch during the job: for each of their moves, the
 * commits its new head has that its old head had not. Throws when a move's commits cannot all be listed.
 */
export async function commitsOfOthers(
  upstream: RepoReads,
  history: BranchHistory | undefined,
  identity: string | null,
  max: number,
): Promise<Set<string>> {
  const theirs = new Set<string>();
  if (identity === null) return theirs;
  for (const move of history?.moves ?? []) {
    if (move.actor === null || move.actor === identity) continue;
    if (move.before === ZERO_SHA || move.after === ZERO_SHA) continue;
    const listed = await listNewCommits(upstream, move.before, move.after, max);
    if (!listed.complete)
      throw new Error(
        `the commits ${move.actor} pushed (${move.before.slice(0, 7)} → ${move.after.slice(0, 7)}) are too many to list`,
      );
    for (const commit of listed.commits) theirs.add(commit.sha);
  }
  return theirs;
}
