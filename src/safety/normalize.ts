import { INVISIBLE, isInvisible } from './invisible.js';

/**
 * The text as a model reads it back: invisible characters dropped and compatibility forms folded
 * (NFKC: fullwidth `ｇｈｐ＿` is `ghp_`), so a token split by a zero-width space or written in
 * fullwidth letters is still found. `starts[i]` and `ends[i]` give, for each UTF-16 unit i of the
 * normalized text, the span of the original character it came from.
 */
export interface Normalized {
  text: string;
  starts: number[];
  ends: number[];
}

/** Null when normalizing changes nothing (every ASCII text, most others): detect on the text itself. */
export function normalizeForDetection(text: string): Normalized | null {
  // eslint-disable-next-line no-control-regex
  if (!/[^\u0000-\u007f]/.test(text)) return null;
  INVISIBLE.lastIndex = 0;
  if (!INVISIBLE.test(text) && text.normalize('NFKC') === text) return null;
  const starts: number[] = [];
  const ends: number[] = [];
  let out = '';
  for (let i = 0; i < text.length;) {
    const codePoint = text.codePointAt(i)!;
    const width = codePoint > 0xffff ? 2 : 1;
    if (codePoint < 0x80) {
      out += text[i];
      starts.push(i);
      ends.push(i + 1);
    } else if (!isInvisible(codePoint)) {
      const folded = text.slice(i, i + width).normalize('NFKC');
      out += folded;
      for (let k = 0; k < folded.length; k++) {
        starts.push(i);
        ends.push(i + width);
      }
    }
    i += width;
  }
  return { text: out, starts, ends };
}

/** A span of the normalized text as a span of the original. */
export function originalSpan(normalized: Normalized, start: number, end: number): [number, number] {
  const from = normalized.starts[start] ?? normalized.ends.at(-1) ?? 0;
  const to = normalized.ends[Math.max(start, end - 1)] ?? from;
  return [from, to];
}
