import type { RestClient } from './octokit-client.js';
import { UpstreamError, type ActivityWindow, type PushActivity } from '../upstream.js';
import * as wire from './wire.js';

/** the activity list's largest page */
const ACTIVITY_PAGE = 100;
/** ref changes read back to a job's start before the window counts as not covered (30 pages) */
const MAX_ACTIVITY_ITEMS = 3_000;

/** The activity list back to `since`, newest first, paged by GitHub's cursors (Upstream.listActivity). */
export async function listActivity(
  rest: RestClient,
  options: { since: string; maxItems?: number },
): Promise<ActivityWindow> {
  const since = Date.parse(options.since);
  if (Number.isNaN(since)) throw new UpstreamError('invalid', `not a time: ${JSON.stringify(options.since)}`);
  const maxItems = options.maxItems ?? MAX_ACTIVITY_ITEMS;
  const items: PushActivity[] = [];
  let after: string | undefined;
  for (;;) {
    const { data, headers } = await rest.send<wire.Activity[]>(
      'list activity',
      'GET /repos/{owner}/{repo}/activity',
      { direction: 'desc', per_page: ACTIVITY_PAGE, ...(after !== undefined ? { after } : {}) },
    );
    for (const item of data.map(wire.activity)) {
      if (Date.parse(item.timestamp) < since) return { items, complete: true };
      if (items.length >= maxItems) return { items, complete: false };
      items.push(item);
    }
    after = wire.nextCursor(headers.link);
    if (after === undefined) return { items, complete: true };
  }
}
