import { readEvent } from '../inputs.js';
import { InputError } from '../inputs.js';

type Env = Record<string, string | undefined>;

/** The events whose payload names a pull request the gate judges. */
export const PULL_REQUEST_EVENTS = ['pull_request_target', 'pull_request'] as const;

export function isPullRequestEvent(name: string | undefined): boolean {
  return (PULL_REQUEST_EVENTS as readonly string[]).includes(name ?? '');
}

/**
 * The number of the pull request the event is about, and nothing else from the payload: the gate reads the
 * pull request itself from GitHub (the payload is a snapshot from when the event fired; the head may have
 * moved since). https://docs.github.com/webhooks/webhook-events-and-payloads#pull_request
 */
export function pullRequestNumber(env: Env): number {
  const event = readEvent(env) as { pull_request?: { number?: unknown } } | null;
  const number = event?.pull_request?.number;
  if (typeof number !== 'number' || !Number.isSafeInteger(number) || number < 1)
    throw new InputError(
      `the ${env.GITHUB_EVENT_NAME} event payload at GITHUB_EVENT_PATH names no pull request number`,
    );
  return number;
}

/**
 * The head commit the event names (`pull_request.head.sha`), from GitHub's payload on this runner: where the
 * gate posts `pending` before any read that can fail, so a `success` an earlier run left there does not
 * stand while the gate cannot judge. Null when the payload has none.
 */
export function pullRequestHeadSha(env: Env): string | null {
  const event = readEvent(env) as { pull_request?: { head?: { sha?: unknown } } } | null;
  const sha = event?.pull_request?.head?.sha;
  return typeof sha === 'string' && /^[0-9a-f]{40}$/.test(sha) ? sha : null;
}
