/**
 * The issue or pull request whose event started the run, read from the event payload (GITHUB_EVENT_PATH) by
 * main, before any agent step could change the file: the one thread the conversation tools may answer
 * besides the bound branch's pull request. The agent never names it.
 * https://docs.github.com/webhooks/webhook-events-and-payloads
 */

const ISSUE_EVENTS = new Set(['issues', 'issue_comment']);
const PULL_REQUEST_EVENTS = new Set([
  'pull_request',
  'pull_request_target',
  'pull_request_review',
  'pull_request_review_comment',
]);

/** The thread's number, or null when the event is of no issue or pull request (a push, a schedule). */
export function triggerThread(eventName: string, event: unknown): number | null {
  const payload = (event ?? {}) as { issue?: { number?: unknown }; pull_request?: { number?: unknown } };
  const number = ISSUE_EVENTS.has(eventName)
    ? payload.issue?.number
    : PULL_REQUEST_EVENTS.has(eventName)
      ? payload.pull_request?.number
      : undefined;
  return typeof number === 'number' && Number.isSafeInteger(number) && number > 0 ? number : null;
}
