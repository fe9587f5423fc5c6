/**
 * What a perimeter's conversation may do (perimeters.yml `conversation`): the pull request its
 * open_pull_request tool opens from the bound branch, and the comments add_comment posts. Pure: the gateway
 * asks, GitHub is never read here. Every refusal names the rule that refused, as `conversation.<key>`.
 */
import { branchGlobProblem, compileGlobList } from '../glob.js';

export interface ConversationRule {
  /** yaml `bases`: branch globs the pull request may target; null: the repository's default branch only */
  bases: string[] | null;
  /** yaml `draft-only`: the pull request is opened as a draft, never ready for review (default true) */
  draftOnly: boolean;
  /** yaml `labels`: the labels the agent may set on its pull request (default none) */
  labels: string[];
  /** yaml `comments`: whether add_comment may post at all (default true) */
  comments: boolean;
  /** yaml `comments-per-run`: how many comments the perimeter may post in one job (default 5) */
  commentsPerRun: number;
  /** yaml `mentions`: users (`octocat`) and teams (`org/team`) written text may notify; others are made inert */
  mentions: string[];
}

/** What a perimeter granted the conversation tools gets for every key `conversation` leaves out. */
export const CONVERSATION_DEFAULTS: Readonly<ConversationRule> = Object.freeze({
  bases: null,
  draftOnly: true,
  labels: [],
  comments: true,
  commentsPerRun: 5,
  mentions: [],
});

/** Far above a conversation's need; a cap a typo cannot lift to spam. */
export const MAX_COMMENTS_PER_RUN = 50;
/** More distinct mentions than this in one text is a mass mention, refused whatever the allow-list says. */
export const MAX_MENTIONS = 10;
/** GitHub refuses label names over 50 characters. */
const MAX_LABEL_LENGTH = 50;

/**
 * `@login` and `@org/team` as GitHub reads mentions: `@` not preceded by a word character, `/` or `@`, then a
 * login (letters, digits, single hyphens) and optionally `/team-slug`.
 * https://docs.github.com/get-started/writing-on-github/getting-started-with-writing-and-formatting-on-github/basic-writing-and-formatting-syntax#mentioning-people-and-teams
 */
export const MENTION = /(?<![\w/@`])@([A-Za-z0-9](?:-?[A-Za-z0-9])*(?:\/[A-Za-z0-9][A-Za-z0-9_.-]*)?)/g;

/** The distinct handles a text mentions (`octocat`, `org/team`), in order of first use. */
export function mentionsIn(text: string): string[] {
  const seen = new Map<string, string>();
  for (const match of text.matchAll(MENTION)) {
    const handle = match[1]!;
    if (!seen.has(handle.toLowerCase())) seen.set(handle.toLowerCase(), handle);
  }
  return [...seen.values()];
}

/** Whether the rule lets text notify `handle` (compared without case, as GitHub compares logins). */
export function mentionAllowed(rule: ConversationRule, handle: string): boolean {
  const lower = handle.toLowerCase();
  return rule.mentions.some((m) => m.toLowerCase() === lower);
}

/** A `mentions` entry: a login, or `org/team`. */
export function handleProblem(handle: string): string | null {
  return /^[A-Za-z0-9](?:-?[A-Za-z0-9])*(?:\/[A-Za-z0-9][A-Za-z0-9_.-]*)?$/.test(handle) &&
    handle.length <= 100
    ? null
    : 'not a GitHub login or team (e.g. "octocat" or "my-org/reviewers")';
}

export function labelProblem(label: string): string | null {
  if (label.trim() === '' || label !== label.trim()) return 'a label name has no leading or trailing space';
  return [...label].length > MAX_LABEL_LENGTH ? `longer than ${MAX_LABEL_LENGTH} characters` : null;
}

/** Why a mass mention is refused, or null: more than MAX_MENTIONS distinct handles in one text. */
export function massMentionProblem(text: string): string | null {
  const handles = mentionsIn(text);
  return handles.length > MAX_MENTIONS
    ? `mass mention: ${handles.length} people or teams mentioned, at most ${MAX_MENTIONS} in one text (rule: conversation mentions)`
    : null;
}

export interface PullRequestAsk {
  base: string;
  draft: boolean;
  labels: string[];
}

/** Why the rule refuses this pull request, or null. `defaultBranch` is what `bases` absent allows. */
export function pullRequestProblem(
  rule: ConversationRule,
  ask: PullRequestAsk,
  defaultBranch: string,
): string | null {
  const allowed =
    rule.bases === null ? ask.base === defaultBranch : compileGlobList(rule.bases).find(ask.base) !== null;
  if (!allowed) {
    const which =
      rule.bases === null
        ? `the default branch "${defaultBranch}" only`
        : rule.bases.map((b) => JSON.stringify(b)).join(', ');
    return `base "${ask.base}" is not one this perimeter's pull requests may target (rule: conversation.bases: ${which})`;
  }
  if (rule.draftOnly && !ask.draft)
    return 'this perimeter opens draft pull requests only (rule: conversation.draft-only); a person marks it ready';
  const unlisted = ask.labels.filter((label) => !rule.labels.includes(label));
  if (unlisted.length > 0) {
    const listed = rule.labels.length === 0 ? 'none' : rule.labels.map((l) => JSON.stringify(l)).join(', ');
    return `label ${unlisted.map((l) => JSON.stringify(l)).join(', ')} is not listed (rule: conversation.labels: ${listed})`;
  }
  return null;
}

/** Why the rule refuses one more comment, `posted` having been posted by this perimeter in this job, or null. */
export function commentProblem(rule: ConversationRule, posted: number): string | null {
  if (!rule.comments) return 'this perimeter may not comment (rule: conversation.comments: false)';
  if (posted >= rule.commentsPerRun)
    return `comment cap reached: ${posted} of ${rule.commentsPerRun} comments posted in this job (rule: conversation.comments-per-run)`;
  return null;
}

/** What is wrong with a rule not read from perimeters.yml (parseConfig never makes one of these). */
export function conversationProblems(rule: ConversationRule): string[] {
  const problems: string[] = [];
  const each = (key: string, values: readonly string[], check: (value: string) => string | null): void => {
    for (const value of values) {
      const problem = check(value);
      if (problem !== null) problems.push(`conversation.${key}: ${JSON.stringify(value)}: ${problem}`);
    }
  };
  if (rule.bases !== null && rule.bases.length === 0) problems.push('conversation.bases: empty list');
  each('bases', rule.bases ?? [], branchGlobProblem);
  each('labels', rule.labels, labelProblem);
  each('mentions', rule.mentions, handleProblem);
  const cap = rule.commentsPerRun;
  if (!Number.isSafeInteger(cap) || cap < 1 || cap > MAX_COMMENTS_PER_RUN)
    problems.push(`conversation.comments-per-run: expected 1 to ${MAX_COMMENTS_PER_RUN}, got ${cap}`);
  return problems;
}
