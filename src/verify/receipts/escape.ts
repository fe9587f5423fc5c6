import { isInvisible } from '../../safety/invisible.js';

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

/** Text shown literally in markdown: visible, and markdown and HTML punctuation as entities. */
export function markdownText(value: string): string {
  return visible(value).replace(/[&<>"'|*_`[\]\\~#!():]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * One line of prose in markdown: visible, and only the characters that start markup as entities (HTML,
 * links, emphasis, code, headings, tables), so quotes, parentheses and colons read as written.
 */
export function inlineText(value: string): string {
  return visible(value).replace(/[&<>|*_`[\]\\~#!]/g, (c) => `&#${c.charCodeAt(0)};`);
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
