import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ActivityWindow, type PushActivity, UpstreamError } from '../../github/index.js';
import { accountForBranches, MARKER_PREFIX, startFromActivity, ZERO_SHA } from './ref-accounting.js';
import type { CaughtUpActivity, JobFacts, RefSnapshot, VerifyInput } from '../types.js';
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
  if (input.activity !== undefined) return settle(input.activity, input, facts);
  const marker = await placeMarker(input, facts);
  if (marker === null) return;
  try {
    const read = await readToMarker(input.upstream, marker.ref, {
      since: input.startedAt,
      attempts: input.activityAttempts,
      retryMs: input.activityRetryMs,
      accounted: (items) => accountForBranches(items, input.start, input.end).unaccounted.length === 0,
    });
    if ('problem' in read) facts.unchecked.push(read.problem);
    else settle(read, input, facts);
  } finally {
    await deleteMarker(input.upstream, marker.branch, facts.notes);
  }
}

/** The moves of the activity list read to the end marker, accounted for from the start to the end snapshot. */
function settle(read: CaughtUpActivity, input: VerifyInput, facts: JobFacts): void {
  const account = accountForBranches(read.items, input.start, input.end);
  facts.branchMoves = account.branches;
  // GitHub records this job's token as the marker's creator: that is who "this job" is, unless the
  // verification runs elsewhere and knows the job's identity from its own inputs.
  facts.identity = input.identity !== undefined ? input.identity : read.markerActor;
  facts.notes.push(...(read.notes ?? []));
  for (const problem of account.unaccounted) facts.unchecked.push(`what happened to ${problem}`);
}

/**
 * For a verification that learns the start from GitHub (a verify job): the activity list read back to
 * `since` and on to an end marker of its own, placed after the end snapshot at a commit some branch held
 * when the window opened. Answers why it could not be read instead, for an `error` receipt.
 */
export async function readJobActivity(
  upstream: VerifyInput['upstream'],
  options: { since: string; end: RefSnapshot; attempts?: number; retryMs?: number },
): Promise<CaughtUpActivity | { problem: string }> {
  const first = await readActivity(upstream, options.since);
  if ('problem' in first) return first;
  const sha = markerCommit(startFromActivity(first.items, options.end), options.end);
  if (sha === null) return { problem: 'the end marker: the repository has no branch to place it on' };
  const branch = `${MARKER_PREFIX}${randomUUID()}`;
  try {
    await upstream.createBranch(branch, sha);
  } catch (error) {
    return {
      problem: `whether GitHub's activity list has caught up with the end of the job: the end marker could not be created (${reason(error)})`,
    };
  }
  const read = await readToMarker(upstream, `refs/heads/${branch}`, {
    ...options,
    accounted: (items) => {
      const start = startFromActivity(items, options.end);
      return accountForBranches(items, start, options.end).unaccounted.length === 0;
    },
  });
  const notes: string[] = [];
  await deleteMarker(upstream, branch, notes);
  return 'problem' in read ? read : { ...read, notes };
}

/** A commit a branch held when the window opened and still holds: inert for every other job's verification. */
function markerCommit(start: RefSnapshot, end: RefSnapshot): string | null {
  const branches = Object.keys(start).filter((ref) => ref.startsWith('refs/heads/'));
  const still = branches.find((ref) => start[ref] === end[ref]) ?? branches[0];
  return still === undefined ? null : (start[still] as string);
}

/**
 * The activity list read until the marker's creation is in it and the moves before it account for every
 * branch: GitHub records ref updates in the order they land, so every move before the end snapshot is in the
 * list by then. A list that is behind is read again a few times.
 */
async function readToMarker(
  upstream: VerifyInput['upstream'],
  markerRef: string,
  options: {
    since: string;
    attempts?: number | undefined;
    retryMs?: number | undefined;
    accounted: (items: PushActivity[]) => boolean;
  },
): Promise<CaughtUpActivity | { problem: string }> {
  const attempts = options.attempts ?? ACTIVITY_ATTEMPTS;
  for (let attempt = 1; ; attempt++) {
    const window = await readActivity(upstream, options.since);
    if ('problem' in window) return window;
    const at = window.items.findIndex((item) => item.ref === markerRef && item.before === ZERO_SHA);
    const items = at < 0 ? null : window.items.slice(at + 1);
    if ((items !== null && options.accounted(items)) || attempt >= attempts) {
      if (items === null)
        return {
          problem:
            "GitHub's activity list has not caught up with the end of the job (the end marker is not in it yet), so moves in between may be missing",
        };
      return { items, markerActor: window.items[at]?.actor ?? null };
    }
    await sleep((options.retryMs ?? ACTIVITY_RETRY_MS) * attempt);
  }
}

/** The activity list back to `since`, whole, or why not. */
async function readActivity(
  upstream: VerifyInput['upstream'],
  since: string,
): Promise<ActivityWindow | { problem: string }> {
  let window: ActivityWindow;
  try {
    window = await upstream.listActivity({ since });
  } catch (error) {
    return { problem: `GitHub's activity list, the record of every branch move: ${reason(error)}` };
  }
  if (!window.complete)
    return {
      problem: `GitHub's activity list: more than ${window.items.length} branch moves since the job started, so the window was not read to its start`,
    };
  return window;
}

async function deleteMarker(upstream: VerifyInput['upstream'], branch: string, notes: string[]) {
  await upstream.deleteBranch(branch).catch((error: unknown) => {
    notes.push(`the end marker ${branch} could not be deleted: ${reason(error)}`);
  });
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
    if (input.writesStaged && cannotWrite(error)) {
      await readOnlyJob(input, facts, reason(error));
      return null;
    }
    facts.unchecked.push(
      `whether GitHub's activity list has caught up with the end of the job: the end marker could not be created (${reason(error)})`,
    );
    return null;
  }
}

/**
 * `writes: stage`, and GitHub refused the end marker as not accessible: the job's token may not write the
 * repository, so no ref change of the window is this job's, whoever made it (a teammate, another workflow).
 * The activity list is read once for who made them, to list them, never to judge them.
 */
async function readOnlyJob(input: VerifyInput, facts: JobFacts, refusal: string): Promise<void> {
  facts.tokenWroteNothing = `this job's token may not write the repository (GitHub refused the end marker: ${refusal})`;
  facts.notes.push(`${facts.tokenWroteNothing}: nothing that changed during the job is this job's`);
  if (facts.refChanges.length === 0) {
    // nothing ended elsewhere: others' moves that ended where they began are not read
    facts.branchMoves = new Map();
    return;
  }
  try {
    const window = await input.upstream.listActivity({ since: input.startedAt });
    const account = accountForBranches(window.items, input.start, input.end);
    facts.branchMoves = account.branches;
    if (!window.complete || account.unaccounted.length > 0)
      facts.notes.push(
        "GitHub's activity list does not yet show every move of the job's window, so some of those changes name no actor",
      );
  } catch (error) {
    facts.branchMoves = new Map();
    facts.notes.push(`who changed the refs is not known (GitHub's activity list: ${reason(error)})`);
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
