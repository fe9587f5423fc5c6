import { decodeHTML } from 'entities';

/**
 * Layers of encoding a secret can be written under, each undone by one small function from a text to the
 * spans of it that decode, with what they decode to: base64 and base64url, hex, URL percent-encoding,
 * HTML entities and backslash escapes. Binary layers (base64, hex) keep only decodings that read as text;
 * textual ones (URL, entities, escapes) keep a span only where it changes. Each is one linear pass.
 */

/** A span of a text, and the text it stands for once one layer is undone. */
export interface Decoded {
  start: number;
  end: number;
  text: string;
  /**
   * Where the decoded text's characters come from, when it is made of slices of the span (joins, not
   * decodings): slice i is `text[from, from + length)`, taken from the original at `at`.
   */
  slices?: Array<{ at: number; from: number; length: number }>;
  /** the last slice is the start of a line that goes on (`next_key` of `next_key: 1`) */
  openEnd?: boolean;
}

export type Layer = (text: string) => Decoded[];

/** Longer runs are no single value worth decoding (and 1 MB is the most get_file shows). */
export const MAX_RUN = 1 << 20;

/** Decoded bytes a person could read: printable ASCII and whitespace, nearly all of them. */
function readable(bytes: Buffer): boolean {
  if (bytes.length === 0) return false;
  let printable = 0;
  for (const byte of bytes)
    if ((byte >= 0x20 && byte < 0x7f) || byte === 9 || byte === 10 || byte === 13) printable++;
  return printable / bytes.length >= 0.95;
}

function binaryLayer(pattern: RegExp, decode: (run: string) => Buffer): Layer {
  return (text) => {
    const found: Decoded[] = [];
    for (const m of text.matchAll(pattern)) {
      if (m[0].length > MAX_RUN) continue;
      const bytes = decode(m[0]);
      if (readable(bytes))
        found.push({ start: m.index, end: m.index + m[0].length, text: bytes.toString('latin1') });
    }
    return found;
  };
}

/** 24 characters: shorter runs cannot hold the shortest provider format once encoded. */
export const BASE64_RUN = /(?<![A-Za-z0-9+/_=-])[A-Za-z0-9+/_-]{24,}={0,2}(?![A-Za-z0-9+/_=-])/g;

export const base64Layer: Layer = binaryLayer(BASE64_RUN, (run) => Buffer.from(run, 'base64'));

/** Whole runs of hex pairs, bare (`6768...`, `0x6768...`) or one byte at a time (`67:68:...`, `67 68 ...`). */
const HEX_RUN =
  /(?<![0-9A-Fa-f])(?:[0-9A-Fa-f]{2}){12,}(?![0-9A-Fa-f])|(?<![0-9A-Fa-f]|[0-9A-Fa-f][: ])[0-9A-Fa-f]{2}(?:[: ][0-9A-Fa-f]{2}){11,}(?![0-9A-Fa-f])/g;

export const hexLayer: Layer = binaryLayer(HEX_RUN, (run) => Buffer.from(run.replace(/[: ]/g, ''), 'hex'));

/**
 * Each run of `runChar` around a match of `trigger`, widened by hand from the match (a regex would rescan
 * long runs), decoded whole; kept where decoding changes it.
 */
function textualLayer(trigger: RegExp, runChar: RegExp, decode: (run: string) => string | null): Layer {
  return (text) => {
    const found: Decoded[] = [];
    let covered = 0;
    for (const m of text.matchAll(trigger)) {
      if (m.index < covered) continue;
      let start = m.index;
      let end = m.index + m[0].length;
      while (start > covered && runChar.test(text[start - 1]!)) start--;
      while (end < text.length && runChar.test(text[end]!)) end++;
      covered = end;
      if (end - start > MAX_RUN) continue;
      const run = text.slice(start, end);
      const decoded = decode(run);
      if (decoded !== null && decoded !== run) found.push({ start, end, text: decoded });
    }
    return found;
  };
}

export const urlLayer: Layer = textualLayer(/%[0-9A-Fa-f]{2}/g, /[^\s"'`<>&=?#]/, (run) => {
  try {
    return decodeURIComponent(run);
  } catch {
    return null; // a stray `%` that is no escape
  }
});

/** Numeric references with or without `;`, named ones with it (`a=1&b=2` is no entity). */
export const htmlEntityLayer: Layer = textualLayer(
  /&(?:#[0-9]{1,7};?|#[xX][0-9A-Fa-f]{1,6};?|[A-Za-z][A-Za-z0-9]{1,31};)/g,
  /[^\s"'`<>]/,
  decodeHTML,
);

const SINGLE_ESCAPES: Record<string, string> = {
  n: '\n',
  r: '\r',
  t: '\t',
  b: '\b',
  f: '\f',
  v: '\v',
  '0': '\0',
};
const ESCAPE = /\\(?:x([0-9A-Fa-f]{2})|u([0-9A-Fa-f]{4})|u\{([0-9A-Fa-f]{1,6})\}|([0-7]{1,3})|([^xu0-7]))/g;

/** The escapes of C, JavaScript, JSON, Python and shell strings. */
function unescape(run: string): string {
  return run.replace(
    ESCAPE,
    (all, x?: string, u?: string, braced?: string, octal?: string, single?: string) => {
      const hex = x ?? u ?? braced;
      if (hex !== undefined) {
        const code = Number.parseInt(hex, 16);
        return code <= 0x10ffff ? String.fromCodePoint(code) : all;
      }
      if (octal !== undefined) return String.fromCharCode(Number.parseInt(octal, 8) & 0xff);
      return SINGLE_ESCAPES[single!] ?? single!;
    },
  );
}

export const escapeLayer: Layer = textualLayer(
  /\\(?:x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|u\{[0-9A-Fa-f]{1,6}\}|[0-7]{1,3}|[nrtbfv'"\\/])/g,
  /[^\s"'`<>]/,
  unescape,
);

export const DECODING_LAYERS: readonly Layer[] = [
  base64Layer,
  hexLayer,
  urlLayer,
  htmlEntityLayer,
  escapeLayer,
];
