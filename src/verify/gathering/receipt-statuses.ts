import type { Receipts } from '../../github/index.js';
import type { ForeignCheckRun, ForeignStatus, ReceiptWindow } from '../types.js';

/** commits whose statuses are read, one request each; more is unchecked */
export const MAX_STATUS_COMMITS = 100;

/**
 * Every status on the receipt's context, on the given commits, posted since the window opened and not by
 * Perimeter. GitHub lists statuses per commit only, so the commits are the ones a reviewer sees: the bound
 * branch's heads during the job and its new commits. Throws when a list cannot be read.
 */
export async function findForeignStatuses(
  upstream: Pick<Receipts, 'listStatuses'>,
  shas: readonly string[],
  window: ReceiptWindow,
): Promise<ForeignStatus[]> {
  const since = Date.parse(window.since);
  const until = Date.parse(window.until);
  const known = new Set(window.known);
  const found: ForeignStatus[] = [];
  for (const sha of [...new Set(shas)]) {
    for (const status of await upstream.listStatuses(sha)) {
      if (status.context !== window.context || known.has(status.id)) continue;
      const at = Date.parse(status.createdAt);
      // A time that does not parse is inside the window: strict.
      if (at < since) continue;
      found.push({ sha, status, inWindow: !(at > until) });
    }
  }
  return found;
}

/**
 * Every check run named like the receipt on the given commits that claims to have started since the window
 * opened (Perimeter creates its own after this look). Its creator sets started_at, so a claim of a later time
 * proves nothing and is forged too; one without a time that parses is forged (strict). A run that claims an
 * earlier time is taken as an earlier job's receipt: SECURITY.md says what that leaves. Throws when a list
 * cannot be read.
 */
export async function findForeignCheckRuns(
  upstream: Pick<Receipts, 'listCheckRuns'>,
  shas: readonly string[],
  window: ReceiptWindow,
): Promise<ForeignCheckRun[]> {
  const since = Date.parse(window.since);
  const found: ForeignCheckRun[] = [];
  for (const sha of [...new Set(shas)]) {
    for (const run of await upstream.listCheckRuns(sha, window.context)) {
      if (run.name !== window.context || window.knownCheckRuns?.includes(run.id)) continue;
      if (Date.parse(run.startedAt ?? '') < since) continue;
      found.push({ sha, run });
    }
  }
  return found;
}
