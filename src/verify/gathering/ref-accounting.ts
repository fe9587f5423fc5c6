import type { PushActivity } from '../../github/index.js';
import type { BranchHistory, RefSnapshot } from '../types.js';

/** How the activity list shows a ref that is absent (before a creation, after a deletion). */
export const ZERO_SHA = '0000000000000000000000000000000000000000';

/**
 * Branches the verification creates and deletes to mark the end of a job in the activity list, always at a
 * commit some ref held at the start. Pushes made with GITHUB_TOKEN start no workflow runs:
 * https://docs.github.com/actions/security-for-github-actions/security-guides/automatic-token-authentication#using-the-github_token-in-a-workflow
 */
export const MARKER_PREFIX = 'perimeter-marker/';

/**
 * Whether a ref is an end marker (this job's or a concurrent one's) that carried nothing new: under the
 * marker prefix, and every commit it held is one some ref held at the start. Anything else under that name
 * is judged like any other branch.
 */
export function isInertMarker(ref: string, held: Iterable<string>, start: RefSnapshot): boolean {
  if (!ref.startsWith(`refs/heads/${MARKER_PREFIX}`)) return false;
  const known = new Set([ZERO_SHA, ...Object.values(start)]);
  for (const sha of held) if (!known.has(sha)) return false;
  return true;
}

export interface RefAccount {
  /** every branch the activity list shows moving during the job, by full ref name */
  branches: Map<string, BranchHistory>;
  /** branches whose moves the list does not account for from start to end (each alone: not proven) */
  unaccounted: string[];
}

const value = (sha: string | undefined): string => sha ?? ZERO_SHA;
const short = (sha: string): string => (sha === ZERO_SHA ? 'nothing' : sha.slice(0, 7));

/**
 * Accounts for every branch from the start snapshot to the end snapshot with the activity list read back to
 * before the job (newest first, as GitHub lists it). A branch is accounted for when its moves form one
 * unbroken chain that leaves its start value and arrives at its end value; its moves during the job are
 * that chain, from the first move away from the start value to the last arrival at the end value (moves
 * before are earlier than the job, moves after are later than the end snapshot). A branch that changed
 * between the snapshots without such a chain, or whose chain breaks, is unaccounted: the list is behind or
 * incomplete, and nothing proves what happened to it. Only `refs/heads/*`: GitHub records nothing else.
 */
export function accountForBranches(
  activity: readonly PushActivity[],
  start: RefSnapshot,
  end: RefSnapshot,
): RefAccount {
  const byRef = new Map<string, PushActivity[]>();
  for (const item of [...activity].reverse()) {
    const list = byRef.get(item.ref) ?? [];
    list.push(item);
    byRef.set(item.ref, list);
  }
  const names = new Set([...Object.keys(start), ...Object.keys(end), ...byRef.keys()]);
  const branches = new Map<string, BranchHistory>();
  const unaccounted: string[] = [];
  for (const ref of [...names].filter((name) => name.startsWith('refs/heads/')).sort()) {
    const from = value(start[ref]);
    const to = value(end[ref]);
    const result = chainOf(byRef.get(ref) ?? [], from, to);
    if (typeof result === 'string') unaccounted.push(`${ref}: ${result}`);
    else if (result.length > 0) branches.set(ref, { ref, moves: result });
  }
  return { branches, unaccounted };
}

/** The moves from `from` to `to` (oldest first), or why the list does not account for them. */
function chainOf(items: PushActivity[], from: string, to: string): PushActivity[] | string {
  const first = items.findIndex((item) => item.before === from);
  if (first < 0) {
    return from === to
      ? []
      : `the activity list shows no move away from ${short(from)}, yet it is at ${short(to)}`;
  }
  let at = from;
  // index of the last move that arrives at `to`; with from === to, staying put counts as arriving
  let lastArrival = from === to ? first - 1 : -1;
  for (let i = first; i < items.length; i++) {
    const item = items[i] as PushActivity;
    if (item.before !== at) {
      return `the activity list is not continuous: a move from ${short(item.before)} follows one to ${short(at)}`;
    }
    at = item.after;
    if (at === to) lastArrival = i;
  }
  if (from !== to && lastArrival === -1) {
    return `the activity list does not show it arriving at ${short(to)} (it may not have caught up yet)`;
  }
  return items.slice(first, lastArrival + 1);
}

/**
 * The refs as they were when the window opened, from the end snapshot and GitHub's record of every branch
 * move since (newest first, as GitHub lists it): a branch that moved starts where its oldest move in the
 * window left from, absent when that move created it; every other ref starts where it ends. GitHub records
 * no moves of refs outside refs/heads, so those start where they end: a tag the job made looks as old as the
 * window (SECURITY.md). A verify job learns the start so, from GitHub alone, never from the agent's job.
 */
export function startFromActivity(activity: readonly PushActivity[], end: RefSnapshot): RefSnapshot {
  const start: RefSnapshot = { ...end };
  // newest first: the last one met for a ref is its oldest move in the window
  for (const item of activity) {
    if (!item.ref.startsWith('refs/heads/')) continue;
    if (item.before === ZERO_SHA) delete start[item.ref];
    else start[item.ref] = item.before;
  }
  return Object.fromEntries(Object.entries(start).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
