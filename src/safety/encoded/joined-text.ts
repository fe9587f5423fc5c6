import type { Decoded, Layer } from './layers.js';
import { MAX_RUN } from './layers.js';

/**
 * A value cut in two is a value still: a token split at a line end (with or without a continuation
 * character) and one joined from string literals (`"ghp_ab" + "cd..."`, Python's `'ab' 'cd'`, a template's
 * `${'...'}` pieces) are joined again. Each join keeps where its slices came from, so a credential found
 * across a seam maps back to the original characters. Linear: each line and each literal is looked at a
 * bounded number of times.
 */

type Slice = { at: number; from: number; length: number };

/** The shortest joined value worth a look: no credential format is shorter. */
const MIN_JOINED = 16;
/**
 * A credential has digits or letters of both cases (random characters have both, or hex of text all
 * digits); words joined at a line end (`incididunt.export`, `db.internalhostname:`) have neither.
 */
const mixed = (text: string): boolean => /[0-9]/.test(text) || (/[a-z]/.test(text) && /[A-Z]/.test(text));

function joined(slices: Array<[number, number]>, text: string): Decoded | null {
  const parts: Slice[] = [];
  let out = '';
  for (const [start, end] of slices) {
    if (end <= start) continue;
    parts.push({ at: start, from: out.length, length: end - start });
    out += text.slice(start, end);
  }
  if (parts.length < 2 || out.length < MIN_JOINED || out.length > MAX_RUN || !mixed(out)) return null;
  const first = parts[0]!;
  const last = parts.at(-1)!;
  return { start: first.at, end: last.at + last.length, text: out, slices: parts };
}

/** The characters a token is made of, by code: a table, as every line end is looked at. */
const TOKEN = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_+/=.:~-')
  TOKEN[c.charCodeAt(0)] = 1;
const isToken = (text: string, at: number): boolean => TOKEN[text.charCodeAt(at)] === 1;
/** Line continuations: C, Python and shell `\`, cmd's `^`, PowerShell's backtick. */
const CONTINUATION = /[\\^`]/;

interface Line {
  /** the run of token characters the line starts with (after its indentation) */
  lead: [number, number];
  /** the run it ends with (before a continuation character) */
  trail: [number, number];
}

function lineOf(text: string, start: number, end: number): Line {
  let leadStart = start;
  while (leadStart < end && (text[leadStart] === ' ' || text[leadStart] === '\t')) leadStart++;
  let leadEnd = leadStart;
  while (leadEnd < end && isToken(text, leadEnd)) leadEnd++;
  let trailEnd = end;
  if (trailEnd > start && text[trailEnd - 1] === '\r') trailEnd--;
  if (trailEnd > start && CONTINUATION.test(text[trailEnd - 1]!)) trailEnd--;
  let trailStart = trailEnd;
  while (trailStart > leadEnd && isToken(text, trailStart - 1)) trailStart--;
  if (trailStart === leadEnd && leadEnd === trailEnd) trailStart = leadStart;
  return { lead: [leadStart, leadEnd], trail: [trailStart, trailEnd] };
}

/**
 * The run a line ends with, joined to the next line's first run, across every line that is one run. Where
 * whole lines (a wrapped value) sit between, the ends taken from lines with more on them may belong to
 * something else (`The token is` before it, `next:` after), so the join is also given without each of them.
 */
export const lineJoinLayer: Layer = (text) => {
  if (!text.includes('\n')) return [];
  const lines: Line[] = [];
  for (let start = 0; start <= text.length;) {
    const newline = text.indexOf('\n', start);
    const end = newline === -1 ? text.length : newline;
    lines.push(lineOf(text, start, end));
    start = end + 1;
  }
  const found: Decoded[] = [];
  const add = (slices: Array<[number, number]>, openEnd: boolean): void => {
    const join = joined(slices, text);
    if (join) found.push(openEnd ? { ...join, openEnd } : join);
  };
  for (let i = 0; i < lines.length - 1;) {
    const first = lines[i]!.trail;
    if (first[1] === first[0]) {
      i++;
      continue;
    }
    const wholes: Array<[number, number]> = [];
    let last: [number, number] | null = null;
    let j = i + 1;
    for (; j < lines.length && lines[j]!.lead[1] > lines[j]!.lead[0]; j++) {
      const { lead, trail } = lines[j]!;
      if (lead[0] !== trail[0] || lead[1] !== trail[1]) {
        last = lead;
        break;
      }
      wholes.push(lead);
    }
    add([first, ...wholes, ...(last ? [last] : [])], last !== null);
    if (wholes.length > 0) {
      const firstWhole = lines[i]!.lead[0] === first[0];
      if (last) add([first, ...wholes], false);
      if (!firstWhole) add([...wholes, ...(last ? [last] : [])], last !== null);
      if (!firstWhole && last) add(wholes, false);
    }
    i = Math.max(i + 1, last ? j : j - 1);
  }
  return found;
};

/** A closing quote, what may join two literals (space, a line continuation, one operator), an opening quote. */
const LINK = /(["'`])(\s*(?:\\\r?\n\s*)?(?:(?:\+|\.{1,2}|&|\|\|)\s*)?)(["'`])/g;

/** The other end of the literal whose quote is at `at`, on the same line; -1 if none. */
function otherQuote(text: string, at: number, step: 1 | -1): number {
  const quote = text[at];
  for (let i = at + step; i >= 0 && i < text.length; i += step) {
    const c = text[i];
    if (c === '\n') return -1;
    if (c === quote && text[i - 1] !== '\\') return i;
  }
  return -1;
}

/** Adjacent string literals joined by `+`, `.`, `..`, `&`, `||` or nothing, in a chain. */
export const literalJoinLayer: Layer = (text) => {
  const found: Decoded[] = [];
  let chain: Array<[number, number]> = [];
  let chainEnd = -1;
  const flush = (): void => {
    const join = joined(chain, text);
    if (join) found.push(join);
    chain = [];
  };
  for (const m of text.matchAll(LINK)) {
    const close = m.index;
    const open = m.index + m[1]!.length + m[2]!.length;
    if (m[1] !== m[3]) continue;
    const leftOpen = close === chainEnd ? -2 : otherQuote(text, close, -1);
    const rightClose = otherQuote(text, open, 1);
    if (rightClose === -1 || leftOpen === -1) continue;
    if (leftOpen !== -2) {
      if (chain.length > 0) flush();
      chain.push([leftOpen + 1, close]);
    }
    chain.push([open + 1, rightClose]);
    chainEnd = rightClose;
  }
  if (chain.length > 0) flush();
  return found;
};

/** A template literal whose `${...}` pieces are string literals: `` `ghp_${'abc'}def` ``. */
const TEMPLATE = /`((?:[^`\\]|\\[^])*)`/g;
const LITERAL_PIECE = /\$\{\s*(["'])((?:(?!\1)[^\\\n]|\\.)*)\1\s*\}/g;

export const templateLayer: Layer = (text) => {
  const found: Decoded[] = [];
  if (!text.includes('${')) return found;
  for (const m of text.matchAll(TEMPLATE)) {
    const body = m.index + 1;
    const slices: Array<[number, number]> = [];
    let at = 0;
    for (const piece of m[1]!.matchAll(LITERAL_PIECE)) {
      slices.push([body + at, body + piece.index]);
      const inner = body + piece.index + piece[0].indexOf(piece[1]!) + 1;
      slices.push([inner, inner + piece[2]!.length]);
      at = piece.index + piece[0].length;
    }
    if (slices.length === 0) continue;
    slices.push([body + at, body + m[1]!.length]);
    const join = joined(slices, text);
    if (join) found.push(join);
  }
  return found;
};

export const JOINING_LAYERS: readonly Layer[] = [lineJoinLayer, literalJoinLayer, templateLayer];
