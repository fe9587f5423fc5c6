/**
 * Characters that render as nothing (or only steer how neighbours render) yet reach a model as text:
 * zero-width spaces and joiners, bidirectional controls, invisible operators, soft hyphens, Hangul
 * fillers, variation selectors and Unicode tag characters (which can spell a whole hidden ASCII text).
 */
const RANGES: ReadonlyArray<[number, number]> = [
  [0x00ad, 0x00ad],
  [0x034f, 0x034f],
  [0x061c, 0x061c],
  [0x115f, 0x1160],
  [0x17b4, 0x17b5],
  [0x180b, 0x180f],
  [0x200b, 0x200f],
  [0x202a, 0x202e],
  [0x2060, 0x206f],
  [0x3164, 0x3164],
  [0xfe00, 0xfe0f],
  [0xfeff, 0xfeff],
  [0xffa0, 0xffa0],
  [0xfff9, 0xfffb],
  [0x1bca0, 0x1bca3],
  [0xe0000, 0xe007f],
  [0xe0100, 0xe01ef],
];

export function isInvisible(codePoint: number): boolean {
  for (const [low, high] of RANGES) if (codePoint >= low && codePoint <= high) return true;
  return false;
}

/** Matches one invisible character (a whole surrogate pair for the astral ones). */
export const INVISIBLE = new RegExp(
  `[${RANGES.map(([low, high]) => `\\u{${low.toString(16)}}-\\u{${high.toString(16)}}`).join('')}]`,
  'gu',
);

/** Bidirectional embeddings, overrides and isolates: they reorder what is displayed. */
export function isBidiControl(codePoint: number): boolean {
  return (
    (codePoint >= 0x202a && codePoint <= 0x202e) ||
    (codePoint >= 0x2066 && codePoint <= 0x2069) ||
    codePoint === 0x200e ||
    codePoint === 0x200f ||
    codePoint === 0x061c
  );
}
