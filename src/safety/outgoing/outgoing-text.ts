/**
 * Text an agent writes to people (a pull request's title and body, a comment) passes the filters text read
 * from the repository passes, and then some, because GitHub acts on what it renders:
 * - a secret never leaves: text the answer filter would hide anything from is refused, not redacted (a
 *   redacted secret in a comment still says where one was);
 * - hidden text is marked (neutralize.ts): what a reader would not see is shown with a marker;
 * - an `@` mention notifies; one the perimeter does not list is made inert, and a mass mention is refused;
 * - a reference to another repository's issue or pull request (`owner/repo#1`, or its URL) puts a
 *   cross-reference in that thread, where its people see it; it is made inert.
 * Inert means split by an empty HTML comment, which GitHub renders as nothing: the reader sees the characters
 * as written, and neither GitHub's markdown nor its autolinker sees a mention or a reference.
 */
import type { AnswerFilter } from '../answer-filter.js';
import { neutralize } from '../neutralize.js';

/** An empty HTML comment: GitHub renders nothing for it, and it splits the text on either side in two. */
export const SPLIT = '<!-- -->';

/** Matches `@handle` and `@org/team`, as src/policy/conversation/rules.ts reads mentions (the same pattern). */
export interface OutgoingRules {
  /** the pattern mentions are found with (global) */
  mention: RegExp;
  /** whether the perimeter lets text notify this handle */
  mentionAllowed(handle: string): boolean;
  /** why the text is a mass mention, or null */
  massMention(text: string): string | null;
  /** owner/name of this repository: references to it stay links */
  repository: string;
}

export type Outgoing =
  | {
      ok: true;
      text: string;
      /** mentions made inert, in order */
      inert: string[];
      /** hidden spans marked, by kind */
      marked: Record<string, number>;
      /** references to other repositories made inert */
      references: string[];
    }
  | { ok: false; problem: string };

// owner/name#123 or owner/name!123 (GitHub autolinks owner/name#123 and GH- forms; a word boundary before owner)
const CROSS_REFERENCE = /(?<![\w./-])([A-Za-z0-9](?:-?[A-Za-z0-9])*\/[A-Za-z0-9_.-]+)#(\d+)/g;
// a URL of an issue, pull request or discussion on github.com (or any host: GitHub Enterprise Server)
const THREAD_URL =
  /\bhttps?:\/\/([A-Za-z0-9.-]+)\/([A-Za-z0-9-]+\/[A-Za-z0-9_.-]+)\/(?:issues|pull|discussions)\/\d+/g;

/** The text as it may be sent, or the rule it breaks. `what` names it in a refusal ("the title"). */
export async function prepareOutgoing(
  text: string,
  what: string,
  rules: OutgoingRules,
  filter: AnswerFilter,
): Promise<Outgoing> {
  const redaction = await filter.redact(text);
  if (redaction.hidden > 0) {
    const kinds = Object.keys(redaction.kinds).sort().join(', ');
    return {
      ok: false,
      problem: `${what} holds what looks like a secret (${kinds}); a secret never leaves in a title, body or comment (rule: secrets)`,
    };
  }
  const mass = rules.massMention(text);
  if (mass !== null) return { ok: false, problem: `${what}: ${mass}` };
  const marked = neutralize(text);
  const inert: string[] = [];
  const references: string[] = [];
  const here = rules.repository.toLowerCase();
  let out = marked.text.replace(rules.mention, (whole: string, handle: string) => {
    if (rules.mentionAllowed(handle)) return whole;
    inert.push(handle);
    return `@${SPLIT}${handle}`;
  });
  out = out.replace(CROSS_REFERENCE, (whole: string, repository: string, number: string) => {
    if (repository.toLowerCase() === here) return whole;
    references.push(`${repository}#${number}`);
    return `${repository}#${SPLIT}${number}`;
  });
  out = out.replace(THREAD_URL, (whole: string, _host: string, repository: string) => {
    if (repository.toLowerCase() === here) return whole;
    references.push(whole);
    return whole.replace('://', `:${SPLIT}//`);
  });
  return { ok: true, text: out, inert, marked: marked.kinds, references };
}
