import type { ReceiptScreen, Receipts } from '../../github/index.js';
import type { ForeignCheckRun, ForeignStatus, ReceiptWindow } from '../types.js';

/** commits whose statuses are read (in batched GraphQL reads, else one request each); more is unchecked */
export const MAX_STATUS_COMMITS = 100;

/**
 * GitHub keeps at most 1,000 statuses per commit and context and refuses the next: "This SHA and context has
 * reached the maximum number of statuses." (https://docs.github.com/rest/commits/statuses#create-a-commit-status)
 */
export const MAX_STATUSES_PER_CONTEXT = 1_000;

/**
 * The receipts on every commit at once where GitHub's GraphQL serves them (Receipts.screenReceipts): for
 * 100 commits one or two calls, where REST lists one commit a request. What it cannot tell is missing
 * from the map, and is listed by REST. Never throws: an empty map sends everything to REST.
 */
export async function screenReceipts(
  upstream: Pick<Receipts, 'screenReceipts'>,
  shas: readonly string[],
  window: ReceiptWindow,
): Promise<Map<string, ReceiptScreen>> {
  if (!upstream.screenReceipts) return new Map();
  return upstream
    .screenReceipts([...new Set(shas)], window.context, window.checkRuns === true)
    .catch(() => new Map());
}

/**
 * Every status on the receipt's context, on the given commits, posted since the window opened and not by
 * Perimeter; and the commits whose context is full, where no receipt can land as a status. GitHub lists
 * statuses per commit only, so the commits are the ones a reviewer sees. Throws when a list cannot be read.
 */
export async function findForeignStatuses(
  upstream: Pick<Receipts, 'listStatuses'>,
  shas: readonly string[],
  window: ReceiptWindow,
  screen: ReadonlyMap<string, ReceiptScreen> = new Map(),
): Promise<{ foreign: ForeignStatus[]; full: string[] }> {
  const since = Date.parse(window.since);
  const until = Date.parse(window.until);
  const known = new Set(window.known);
  const foreign: ForeignStatus[] = [];
  const full: string[] = [];
  for (const sha of [...new Set(shas)]) {
    // no status at all on the context: nothing foreign, and far from full
    if (screen.get(sha)?.hasStatus === false) continue;
    const statuses = (await upstream.listStatuses(sha)).filter((status) => status.context === window.context);
    if (statuses.length >= MAX_STATUSES_PER_CONTEXT) full.push(sha);
    for (const status of statuses) {
      if (known.has(status.id)) continue;
      const at = Date.parse(status.createdAt);
      // A time that does not parse is inside the window: strict.
      if (at < since) continue;
      foreign.push({ sha, status, inWindow: !(at > until) });
    }
  }
  return { foreign, full };
}

/**
 * Every check run named like the receipt on the given commits that Perimeter did not create and that may be
 * the job's: on a commit made during the job (`fresh`), any; on an older one, any that claims to have started
 * or completed since the window opened, or claims no time that parses. Its creator sets both times, so a
 * claim proves nothing either way; a run that claims to have started and completed before the job is taken
 * as an earlier job's receipt, and a newer receipt outranks it. Throws when a list cannot be read.
 */
export async function findForeignCheckRuns(
  upstream: Pick<Receipts, 'listCheckRuns'>,
  shas: readonly string[],
  window: ReceiptWindow,
  fresh: ReadonlySet<string> = new Set(),
  screen: ReadonlyMap<string, ReceiptScreen> = new Map(),
): Promise<ForeignCheckRun[]> {
  const since = Date.parse(window.since);
  const before = (time: string | null): boolean => Date.parse(time ?? '') < since;
  const found: ForeignCheckRun[] = [];
  for (const sha of [...new Set(shas)]) {
    const runs = screen.get(sha)?.checkRuns ?? (await upstream.listCheckRuns(sha, window.context));
    for (const run of runs) {
      if (run.name !== window.context || window.knownCheckRuns?.includes(run.id)) continue;
      if (!fresh.has(sha) && before(run.startedAt) && before(run.completedAt)) continue;
      found.push({ sha, run });
    }
  }
  return found;
}
