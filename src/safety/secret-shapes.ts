import { RANK, type Finding } from './finding.js';

/**
 * Secrets known by their shape alone, where the shape is unambiguous: an AWS secret access key without
 * its key ID nearby (in prose, a CSV row, a string) is exactly 40 characters of base64 that read as
 * random. Random means mixed: most of the 64 characters used, the kind of character (upper, lower, digit,
 * symbol) changing at most places. Names, paths, hex digests and base64 of text are far from that. Hidden
 * when read, not refused in writes: a random string is no proof of a credential.
 */

const CANDIDATE = /(?<![A-Za-z0-9/+=_.-])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=_-]|\.[A-Za-z0-9])/g;
/** 40 random base64 characters hold about 30 different ones and change kind at about 25 of 39 places. */
const MIN_DISTINCT = 24;
const MIN_CHANGES = 17;

function kindOf(code: number): number {
  if (code >= 0x61) return 0; // a-z
  if (code >= 0x41) return 1; // A-Z
  if (code >= 0x30) return 2; // 0-9
  return 3; // + /
}

export function looksRandom(value: string): boolean {
  let changes = 0;
  const kinds = new Set<number>();
  for (let i = 0; i < value.length; i++) {
    const kind = kindOf(value.charCodeAt(i));
    kinds.add(kind);
    if (i > 0 && kind !== kindOf(value.charCodeAt(i - 1))) changes++;
  }
  return (
    kinds.has(0) &&
    kinds.has(1) &&
    kinds.has(2) &&
    changes >= MIN_CHANGES &&
    new Set(value).size >= MIN_DISTINCT
  );
}

export function secretShapeFindings(text: string): Finding[] {
  const found: Finding[] = [];
  for (const m of text.matchAll(CANDIDATE)) {
    if (!looksRandom(m[0])) continue;
    found.push({
      start: m.index,
      end: m.index + 40,
      kind: 'AWS secret access key',
      credential: false,
      rank: RANK.setting,
    });
  }
  return found;
}
