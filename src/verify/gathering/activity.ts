import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ActivityWindow, type PushActivity, UpstreamError } from '../../github/index.js';
import { accountForBranches, MARKER_PREFIX, ZERO_SHA } from './ref-accounting.js';
import type { BranchHistory, JobFacts, VerifyInput } from '../types.js';
import { accountForWindow } from './window.js';

const reason = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * The moves of every branch during the job, from GitHub's activity list read back to before the job. When
 * every ref ends where it started the list is the only evidence of what happened in between, so not reading
 * it, not reading back far enough, or finding it behind the refs is unchecked, never success.
 *
 * That the list has caught up is shown, not assumed: after the end snapshot the verification creates a
 * branch of its own (the end marker) and reads the list until the marker's creation is in it. GitHub records
 * ref updates in the order they land, so every move before the end snapshot is in the list by then; moves
 * after the marker are later than the job and left out. A list that is behind is read again a few times.
 */
export async function accountForMoves(input: VerifyInput, facts: JobFacts): Promise<void> {
  if (input.endedAt !== undefined) return accountForWindow(input, facts, input.endedAt);
  const marker = await placeMarker(input, facts);
  if (marker === null) return;
  try {
    const attempts = input.activityAttempts ?? ACTIVITY_ATTEMPTS;
    for (let attempt = 1; ; attempt++) {
      let window: ActivityWindow;
      try {
        window = await input.upstream.listActivity({ since: input.startedAt });
      } catch (error) {
        facts.unchecked.push(`GitHub's activity list, the record of every branch move: ${reason(error)}`);
        return;
      }
      if (!window.complete) {
        facts.unchecked.push(
          `GitHub's activity list: more than ${window.items.length} branch moves since the job started, so the window was not read to its start`,
        );
        return;
      }
      const at = window.items.findIndex((item) => item.ref === marker.ref && item.before === ZERO_SHA);
      const account = at < 0 ? null : accountForBranches(window.items.slice(at + 1), input.start, input.end);
      if ((account !== null && account.unaccounted.length === 0) || attempt >= attempts) {
        if (account === null) {
          facts.unchecked.push(
            "GitHub's activity list has not caught up with the end of the job (the end marker is not in it yet), so moves in between may be missing",
          );
          return;
        }
        facts.branchMoves = account.branches;
        // GitHub records this job's token as the marker's creator: that is who "this job" is, unless the
        // verification runs elsewhere and knows the job's identity from GitHub's record of its pending status.
        facts.identity = input.identity !== undefined ? input.identity : (window.items[at]?.actor ?? null);
        for (const problem of account.unaccounted) facts.unchecked.push(`what happened to ${problem}`);
        if (input.startTaken)
          checkStart(window.items.slice(at + 1), account.branches, input.startTaken, facts);
        return;
      }
      await sleep((input.activityRetryMs ?? ACTIVITY_RETRY_MS) * attempt);
    }
  } finally {
    await input.upstream.deleteBranch(marker.branch).catch((error: unknown) => {
      facts.notes.push(`the end marker ${marker.branch} could not be deleted: ${reason(error)}`);
    });
  }
}

/**
 * A start snapshot that came from elsewhere (a verify job's handoff) must agree with GitHub: every branch move
 * recorded after the snapshot was surely taken, and while the job ran, is one the account holds. A snapshot
 * that already shows a later move (a branch the job created, claimed as there from the start) hides it.
 */
function checkStart(
  items: readonly PushActivity[],
  branches: Map<string, BranchHistory>,
  taken: { before: string; jobEnded: string },
  facts: JobFacts,
): void {
  // `before` is a time GitHub gives in whole seconds: the snapshot may be up to a second later than it says,
  // so only a move a whole second after it is surely after the snapshot
  const after = Date.parse(taken.before) + 1_000;
  const until = Date.parse(taken.jobEnded);
  for (const item of items) {
    const at = Date.parse(item.timestamp);
    if (!item.ref.startsWith('refs/heads/') || item.ref.startsWith(`refs/heads/${MARKER_PREFIX}`)) continue;
    if (!(at >= after && at <= until)) continue;
    if (branches.get(item.ref)?.moves.includes(item)) continue;
    facts.unchecked.push(
      `what happened to ${item.ref}: GitHub records a move at ${item.timestamp} (${item.before.slice(0, 7)} → ${item.after.slice(0, 7)}, by ${item.actor ?? 'unknown'}), after the start snapshot was taken, that the start snapshot already shows: the handed-over start does not agree with GitHub`,
    );
  }
}

/** The verification's own branch, created after the end snapshot; null (and unchecked) when GitHub refuses it. */
async function placeMarker(
  input: VerifyInput,
  facts: JobFacts,
): Promise<{ branch: string; ref: string } | null> {
  // A commit some ref held at the start: a marker carries nothing new, so other jobs may ignore it (judge.ts).
  const sha = facts.startHead ?? Object.values(input.start)[0];
  const branch = `${MARKER_PREFIX}${randomUUID()}`;
  try {
    if (sha === undefined) throw new Error('the repository has no ref to place it on');
    await input.upstream.createBranch(branch, sha);
    return { branch, ref: `refs/heads/${branch}` };
  } catch (error) {
    if (input.writesStaged && cannotWrite(error) && facts.refChanges.length === 0) {
      facts.notes.push(
        `this job's token may not write the repository (GitHub refused the end marker: ${reason(error)}) and every ref ends where it started: nothing reached the repository from this job`,
      );
      // no move can be this job's; others' moves that ended where they began are not read
      facts.branchMoves = new Map();
      return null;
    }
    facts.unchecked.push(
      `whether GitHub's activity list has caught up with the end of the job: the end marker could not be created (${reason(error)})`,
    );
    return null;
  }
}

/**
 * GitHub's answer to a token without `contents: write`: 403 "Resource not accessible by integration".
 * https://docs.github.com/rest/overview/permissions-required-for-github-apps
 */
function cannotWrite(error: unknown): boolean {
  return (
    error instanceof UpstreamError &&
    error.code === 'forbidden' &&
    /not accessible by integration/i.test(error.message)
  );
}

const ACTIVITY_ATTEMPTS = 4;
const ACTIVITY_RETRY_MS = 1_500;
