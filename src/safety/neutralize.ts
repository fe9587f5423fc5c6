import { CLOSE, hex, markHiddenMarkup, OPEN } from './hidden-markup.js';
import { isInvisible } from './invisible.js';

/**
 * Text from the repository is untrusted input to the model, and some of it is invisible to the people
 * who review it: zero-width and bidi characters, Unicode tag characters (which can spell out a whole
 * ASCII text), HTML comments in rendered Markdown, and the markup `hidden-markup.ts` lists (entities of
 * invisible characters, hidden elements, Markdown comments, image alt text). Each such span is made
 * visible with a marker, so the model sees what a reviewer would not; visible characters stay as they were.
 */
export interface Neutralized {
  text: string;
  /** spans marked, per kind ('invisible characters', 'hidden tag text', 'HTML comment', 'image alt text'...) */
  kinds: Record<string, number>;
  count: number;
}

const COMMENT = /<!--[^]*?(?:-->|$)/g;
// eslint-disable-next-line no-control-regex
const PLAIN = /^[\u0000-\u007e\u00a0-\u00ac\u00ae-\u02ff]*$/;
const PICTOGRAPH = /\p{Extended_Pictographic}/u;

/** Invisible characters that are part of ordinary text: emoji joiners and presentation selectors, a leading BOM. */
function benign(chars: string[], i: number): boolean {
  const codePoint = chars[i]!.codePointAt(0)!;
  const before = chars[i - 1] ?? '';
  const after = chars[i + 1] ?? '';
  if (codePoint === 0xfeff) return i === 0;
  if (codePoint === 0x200d) return PICTOGRAPH.test(before) && PICTOGRAPH.test(after);
  if (codePoint === 0xfe0e || codePoint === 0xfe0f)
    return before !== '' && !isInvisible(before.codePointAt(0)!);
  return false;
}

function markInvisible(text: string, kinds: Record<string, number>): string {
  const chars = [...text];
  let out = '';
  for (let i = 0; i < chars.length;) {
    const codePoint = chars[i]!.codePointAt(0)!;
    if (!isInvisible(codePoint) || benign(chars, i)) {
      out += chars[i];
      i++;
      continue;
    }
    const run: number[] = [];
    while (i < chars.length && isInvisible(chars[i]!.codePointAt(0)!) && !benign(chars, i)) {
      run.push(chars[i]!.codePointAt(0)!);
      i++;
    }
    const tags = run.filter((c) => c >= 0xe0020 && c <= 0xe007e);
    if (tags.length > 0) {
      const spelled = String.fromCodePoint(...tags.map((c) => c - 0xe0000));
      out += `${OPEN}hidden tag text: ${JSON.stringify(spelled)}${CLOSE}`;
      kinds['hidden tag text'] = (kinds['hidden tag text'] ?? 0) + 1;
    } else {
      out += `${OPEN}${run.map(hex).join(' ')}${CLOSE}`;
      kinds['invisible characters'] = (kinds['invisible characters'] ?? 0) + 1;
    }
  }
  return out;
}

export function neutralize(text: string): Neutralized {
  const kinds: Record<string, number> = {};
  let out = PLAIN.test(text) ? text : markInvisible(text, kinds);
  if (out.includes('<!--')) {
    out = out.replace(COMMENT, (comment) => {
      kinds['HTML comment'] = (kinds['HTML comment'] ?? 0) + 1;
      return `${OPEN}HTML comment, not shown when rendered:${CLOSE}${comment}`;
    });
  }
  out = markHiddenMarkup(out, kinds);
  const count = Object.values(kinds).reduce((a, b) => a + b, 0);
  return { text: out, kinds, count };
}
