import type { PushActivity } from '../../github/index.js';
import { accountForBranches, MARKER_PREFIX, ZERO_SHA } from './ref-accounting.js';
import type { JobFacts, VerifyInput } from '../types.js';

/** Clocks: the window's ends were taken on GitHub's clock (start) and the runner's (end). */
export const WINDOW_MARGIN_MS = 5_000;
/**
 * GitHub's clock is read from a Date header and the activity list's timestamps, both whole seconds: a move
 * up to a second after the window's opening may still be older than the start snapshot.
 */
const CLOCK_RESOLUTION_MS = 1_000;

const reason = (error: unknown): string => (error instanceof Error ? error.message : String(error));
const at = (time: string): number => Date.parse(time);

/**
 * The moves of every branch during a job that ended long ago (an audit): GitHub's activity list read back
 * to the window's start and cut at its end, with no end marker of its own (the job's marker, placed by its
 * post step, is in the list). The refs the record gives for the end must be where the list leaves each
 * branch at the end of the window, and those for the start where it finds them after the window opened:
 * refs that do not fit are unchecked, so a record cannot hide a move by claiming the branch never left.
 */
export async function accountForWindow(input: VerifyInput, facts: JobFacts, endedAt: string): Promise<void> {
  let items: PushActivity[];
  try {
    const window = await input.upstream.listActivity({ since: input.startedAt });
    if (!window.complete) {
      facts.unchecked.push(
        `GitHub's activity list: more than ${window.items.length} branch moves since the job started, so the window was not read to its start`,
      );
      return;
    }
    items = window.items;
  } catch (error) {
    facts.unchecked.push(`GitHub's activity list, the record of every branch move: ${reason(error)}`);
    return;
  }
  const until = at(endedAt) + WINDOW_MARGIN_MS;
  const opened = at(input.startedAt) + WINDOW_MARGIN_MS + CLOCK_RESOLUTION_MS;
  const inWindow = items.filter((item) => at(item.timestamp) <= until);
  // GitHub records the token of the job's own end marker, created right after its end snapshot.
  const marker = [...items]
    .reverse()
    .find(
      (item) =>
        item.ref.startsWith(`refs/heads/${MARKER_PREFIX}`) &&
        item.before === ZERO_SHA &&
        at(item.timestamp) >= at(endedAt) - WINDOW_MARGIN_MS,
    );
  facts.identity = marker?.actor ?? null;
  if (!marker)
    facts.notes.push(
      "the job's end marker is not in GitHub's activity list: every move in the window counts as the job's",
    );

  for (const [ref, moves] of byRef(inWindow)) {
    if (ref.startsWith(`refs/heads/${MARKER_PREFIX}`)) continue;
    const last = moves.at(-1)!;
    const end = input.end[ref] ?? ZERO_SHA;
    if (last.after !== end)
      facts.unchecked.push(
        `${ref}: the record says it ended at ${short(end)}, GitHub's activity list shows it at ${short(last.after)} at the end of the window`,
      );
    const first = moves[0]!;
    const start = input.start[ref] ?? ZERO_SHA;
    if (at(first.timestamp) > opened && first.before !== start)
      facts.unchecked.push(
        `${ref}: the record says it started at ${short(start)}, GitHub's activity list shows it moving from ${short(first.before)} in the window`,
      );
  }
  const account = accountForBranches(inWindow, input.start, input.end);
  facts.branchMoves = account.branches;
  for (const problem of account.unaccounted) facts.unchecked.push(`what happened to ${problem}`);
}

const short = (sha: string): string => (sha === ZERO_SHA ? 'nothing' : sha.slice(0, 7));

/** Moves by ref, oldest first. */
function byRef(items: readonly PushActivity[]): Map<string, PushActivity[]> {
  const refs = new Map<string, PushActivity[]>();
  for (const item of [...items].reverse()) refs.set(item.ref, [...(refs.get(item.ref) ?? []), item]);
  return refs;
}
