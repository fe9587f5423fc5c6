import { isInvisible } from '../../safety/invisible.js';
import { SPLIT } from '../../safety/outgoing/outgoing-text.js';

/**
 * Agent-writable text (paths, commit messages, the gateway log) escaped for where the receipt puts it.
 * An agent chooses file names and can write to the gateway's log, so nothing it controls may render as
 * Perimeter's own words: no markup, no reordered display, no extra lines.
 */

function escapeChar(codePoint: number): string {
  return codePoint > 0xffff
    ? `\\u{${codePoint.toString(16)}}`
    : `\\u${codePoint.toString(16).padStart(4, '0')}`;
}

/** Characters a reader would not see as themselves: controls, line and paragraph separators, invisible and bidi ones. */
function hidden(codePoint: number): boolean {
  return (
    codePoint < 0x20 ||
    (codePoint >= 0x7f && codePoint < 0xa0) ||
    codePoint === 0x2028 ||
    codePoint === 0x2029 ||
    isInvisible(codePoint)
  );
}

/** Fast path: text made only of these never needs escaping. */
const PLAIN = /^[\u0020-\u007e\u00a0-\u00ac\u00ae-\u02ff]*$/;

/** One line where every character shows as itself: the others become `\uXXXX` (a status description, a title). */
export function visible(value: string, keep: (codePoint: number) => boolean = () => false): string {
  if (PLAIN.test(value)) return value;
  let out = '';
  for (const char of value) {
    const codePoint = char.codePointAt(0)!;
    out += hidden(codePoint) && !keep(codePoint) ? escapeChar(codePoint) : char;
  }
  return out;
}

/**
 * Mentions and links made inert in text already escaped: GitHub turns `@name` into a mention (which notifies
 * where the text lands in a comment or review) and `https://...`, `www.x` and `a@b.example` into links, and it
 * does so both while reading the markdown (on the text, entities read back) and after (on the HTML's text).
 * An entity alone is read back; an empty comment after `@`, inside `://` and after `www` splits the text so
 * neither step sees a mention or a link, and the reader sees the characters as written.
 */
function inert(escaped: string): string {
  if (!/@|\/\/|www/i.test(escaped)) return escaped;
  return escaped
    .replace(/@/g, `&#64;${SPLIT}`)
    .replace(/(:|&#58;)\/\//g, `$1${SPLIT}//`)
    .replace(/(www)(\.)/gi, `$1${SPLIT}$2`);
}

/**
 * Text shown literally in markdown: visible, markdown and HTML punctuation as entities, and no mention or
 * link (inert).
 */
export function markdownText(value: string): string {
  return inert(visible(value).replace(/[&<>"'|*_`[\]\\~#!():]/g, (c) => `&#${c.charCodeAt(0)};`));
}

/**
 * One line of prose in markdown: visible, only the characters that start markup as entities (HTML, links,
 * emphasis, code, headings, tables), so quotes, parentheses and colons read as written, and no mention or
 * link (inert). The one neutraliser of agent and repository text in every summary: the receipt's, apply's,
 * the scope requests' and the review's.
 */
export function inlineText(value: string): string {
  return inert(visible(value).replace(/[&<>|*_`[\]\\~#!]/g, (c) => `&#${c.charCodeAt(0)};`));
}

/**
 * A fenced code block that the content cannot close: the fence is longer than any run of backticks
 * inside (CommonMark closes a fence only with at least as many). Lines and tabs stay; every other
 * hidden character shows as an escape.
 */
export function codeBlock(content: string, info = 'text'): string {
  const longest = Math.max(0, ...[...content.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  const shown = visible(content, (c) => c === 0x0a || c === 0x09);
  return `${fence}${info}\n${shown}\n${fence}`;
}

/** At most `max` characters (code points), the last one an ellipsis when anything was cut. */
export function clip(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}
