import { RANK, type Finding } from './finding.js';
import { isPlaceholder } from './placeholders.js';
import { PROVIDER_FORMATS } from './provider-formats.js';

/**
 * A whole private-key block, whatever its content (placeholders too: a false positive costs a look).
 * Without its END line (or with another BEGIN first), the block runs on over the lines of key material
 * (base64, `Proc-Type:` headers). Also matches JSON-escaped text. Each block ends before the next BEGIN,
 * which keeps the scan linear however many BEGIN lines a text holds.
 */
const KEY_LABEL = String.raw`[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?`;
const KEY_BLOCKS = [
  {
    begin: new RegExp(String.raw`-----BEGIN ?${KEY_LABEL}-----`, 'g'),
    end: new RegExp(String.raw`-----END ?${KEY_LABEL}-----`, 'g'),
  },
  { begin: /PuTTY-User-Key-File-\d+:[^\n]{0,200}/g, end: /Private-(?:MAC|Hash): *[0-9a-fA-F]+/g },
];
const KEY_MATERIAL = /(?:[ \t]*(?:\r?\n|\\n)[ \t]*(?:[A-Za-z0-9+/=]{8,}|[A-Za-z-]{3,30}: [^\n\\]{0,200}))*/y;
const MAX_KEY_BLOCK = 20_000;

function keyBlocks(text: string, begin: RegExp, end: RegExp): Array<[number, number]> {
  const begins = [...text.matchAll(begin)];
  const ends = [...text.matchAll(end)];
  const blocks: Array<[number, number]> = [];
  let e = 0;
  let covered = 0;
  for (const [i, b] of begins.entries()) {
    const start = b.index ?? 0;
    if (start < covered) continue;
    const headerEnd = start + b[0].length;
    const limit = Math.min(headerEnd + MAX_KEY_BLOCK, begins[i + 1]?.index ?? text.length);
    while (e < ends.length && (ends[e]?.index ?? 0) < headerEnd) e++;
    const closing = ends[e];
    let stop: number;
    if (closing && (closing.index ?? 0) + closing[0].length <= limit) {
      stop = (closing.index ?? 0) + closing[0].length;
    } else {
      KEY_MATERIAL.lastIndex = headerEnd;
      stop = headerEnd + (KEY_MATERIAL.exec(text)?.[0].trimEnd().length ?? 0);
    }
    blocks.push([start, stop]);
    covered = stop;
  }
  return blocks;
}

/** `scheme://user:password@host`: the password; `scheme://long-credential@host`: the credential. */
const URL_USERINFO = /:\/\/(?<user>[^\s:/@?#"'`<>\\]*)(?::(?<password>[^\s/@?#"'`<>\\]+))?@(?=[A-Za-z0-9[])/g;
/** Checked only where `://` is, backwards: far faster than a pattern that opens with the scheme. */
const URL_SCHEME = /(?:^|[^A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{1,30}$/;
const CREDENTIAL_LIKE_USER = /^(?=[^]*[0-9])(?=[^]*[A-Za-z])[A-Za-z0-9_.~%+=-]{20,}$/;

function* matches(pattern: RegExp, text: string): Generator<RegExpMatchArray & { index: number }> {
  pattern.lastIndex = 0;
  for (const match of text.matchAll(pattern)) {
    if (match[0].length > 0) yield match as RegExpMatchArray & { index: number };
  }
}

export function formatFindings(text: string): Finding[] {
  const found: Finding[] = [];
  const add = (start: number, end: number, kind: string, rank: number): void => {
    found.push({ start, end, kind, credential: true, rank });
  };
  for (const { kind, pattern, from = 0, anchor } of PROVIDER_FORMATS) {
    if (anchor) {
      for (let i = text.indexOf(anchor.literal); i !== -1; i = text.indexOf(anchor.literal, i + 1)) {
        pattern.lastIndex = i - anchor.lead;
        const m = i >= anchor.lead ? pattern.exec(text) : null;
        if (m) add(m.index, m.index + m[0].length, kind, RANK.format);
      }
      continue;
    }
    for (const m of matches(pattern, text)) add(m.index + from, m.index + m[0].length, kind, RANK.format);
  }
  for (const { begin, end } of KEY_BLOCKS) {
    for (const [start, stop] of keyBlocks(text, begin, end)) add(start, stop, 'private key', RANK.format);
  }
  for (const m of matches(URL_USERINFO, text)) {
    const { user = '', password } = m.groups ?? {};
    if (!URL_SCHEME.test(text.slice(Math.max(0, m.index - 32), m.index))) continue;
    const userStart = m.index + 3;
    if (password !== undefined) {
      if (isPlaceholder(password)) continue;
      const start = userStart + user.length + 1;
      add(start, start + password.length, 'password', RANK.urlPassword);
    } else if (CREDENTIAL_LIKE_USER.test(user)) {
      add(userStart, userStart + user.length, 'URL credential', RANK.urlPassword);
    }
  }
  return found;
}
