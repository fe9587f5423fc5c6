/**
 * Who triggered a run, and whether the owner's `trust` rule trusts them. Pure: the action reads the event
 * payload and hands it in. Associations are GitHub's `author_association` values:
 * https://docs.github.com/en/graphql/reference/enums#commentauthorassociation
 */

export const ASSOCIATIONS = [
  'OWNER',
  'MEMBER',
  'COLLABORATOR',
  'CONTRIBUTOR',
  'FIRST_TIME_CONTRIBUTOR',
  'FIRST_TIMER',
  'MANNEQUIN',
  'NONE',
] as const;

export type Association = (typeof ASSOCIATIONS)[number];

/** perimeters.yml `trust:`: who may trigger a run that exposes every selected perimeter. */
export interface TrustRule {
  associations: Association[];
  /** logins trusted whatever their association, e.g. "dependabot[bot]" */
  users: string[];
}

export interface TrustVerdict {
  trusted: boolean;
  /** one sentence naming who was judged and by what, e.g. 'comment author "mallory" is NONE' */
  reason: string;
}

/** Events only people with write access can start: a push, a manual or API dispatch, a schedule, a merge queue. */
const WRITE_ONLY_EVENTS = new Set([
  'push',
  'workflow_dispatch',
  'repository_dispatch',
  'schedule',
  'merge_group',
]);

/** Where each event carries the item that triggered it, whose author steers the agent. */
const ITEM_OF: Record<string, string> = {
  issue_comment: 'comment',
  pull_request_review_comment: 'comment',
  commit_comment: 'comment',
  discussion_comment: 'comment',
  issues: 'issue',
  pull_request: 'pull_request',
  pull_request_target: 'pull_request',
  pull_request_review: 'review',
  discussion: 'discussion',
};

/**
 * The payload field holding the item whose author steers a run of `eventName` (`comment` for `issue_comment`),
 * or null for an event that carries none. These are the events people without write access can start.
 */
export function triggerItem(eventName: string): string | null {
  return Object.hasOwn(ITEM_OF, eventName) ? ITEM_OF[eventName]! : null;
}

/** The events whose runs carry an item someone authored (`triggerItem`), in a fixed order. */
export const ITEM_EVENTS: readonly string[] = Object.keys(ITEM_OF);

type Json = Record<string, unknown>;

function object(value: unknown): Json | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : null;
}

function login(value: unknown): string | null {
  const user = object(value);
  return typeof user?.login === 'string' ? user.login : null;
}

function byLogin(rule: TrustRule, name: string | null): boolean {
  return name !== null && rule.users.some((user) => user.toLowerCase() === name.toLowerCase());
}

/**
 * Judges a run's trigger. The author of the triggering item (comment, issue, pull request, review,
 * discussion) is trusted by association or login; on pull requests the sender (who pushed or opened) is
 * judged too when it is someone else, by login only (the payload has no association for the sender). Other
 * people acting on an item (labelling, editing someone else's) need triage or write access, so they are not
 * judged. Events only writers can start are trusted; any other event trusts only a sender named in `users`.
 */
export function judgeTrigger(rule: TrustRule, eventName: string, payload: unknown): TrustVerdict {
  const event = object(payload) ?? {};
  const sender = login(event.sender);
  if (WRITE_ONLY_EVENTS.has(eventName))
    return { trusted: true, reason: `${eventName} runs can only be started by people with write access` };
  const field = triggerItem(eventName);
  if (field === null) {
    if (byLogin(rule, sender)) return { trusted: true, reason: `sender "${sender}" is in trust.users` };
    return {
      trusted: false,
      reason: `${eventName} events carry no author association, and the sender ${sender === null ? '(unknown)' : `"${sender}"`} is not in trust.users`,
    };
  }
  const item = object(event[field]);
  const author = login(item?.user);
  const association = typeof item?.author_association === 'string' ? item.author_association : null;
  const what = `${field.replace('_', ' ')} author ${author === null ? '(unknown)' : `"${author}"`}`;
  let verdict: TrustVerdict;
  if (byLogin(rule, author)) verdict = { trusted: true, reason: `${what} is in trust.users` };
  else if (association !== null && (rule.associations as string[]).includes(association))
    verdict = { trusted: true, reason: `${what} is ${association}` };
  else
    verdict = {
      trusted: false,
      reason: `${what} is ${association ?? 'of unknown association'}, not ${rule.associations.join(', ') || 'in trust.users'}`,
    };
  if (
    verdict.trusted &&
    field === 'pull_request' &&
    sender !== null &&
    sender !== author &&
    !byLogin(rule, sender)
  ) {
    return {
      trusted: false,
      reason: `${verdict.reason}, but the sender "${sender}" (who pushed or acted) is someone else and not in trust.users`,
    };
  }
  return verdict;
}
