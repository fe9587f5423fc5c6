import { isInvisible } from './invisible.js';

/**
 * Markup that a renderer hides from the people who review a file, yet a model reads as text: HTML
 * entities that render as invisible characters (`&#8203;`, `&#x202E;`, `&zwj;`), elements with a
 * `hidden` attribute or a `display: none` style, Markdown link definitions with a title (the
 * `[//]: # (...)` comment idiom) and image alt text. Each span is preceded by a mark; every character of
 * the text stays as it was. Pure: called by `neutralize`, which counts the spans per kind.
 */
export const OPEN = '\u27ea';
export const CLOSE = '\u27eb';

type Kinds = Record<string, number>;

const count = (kinds: Kinds, kind: string): void => {
  kinds[kind] = (kinds[kind] ?? 0) + 1;
};

export const hex = (codePoint: number): string =>
  `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;

/** Named references (WHATWG) that decode to an invisible character; names are case-sensitive. */
const NAMED: Readonly<Record<string, number>> = {
  shy: 0xad,
  ZeroWidthSpace: 0x200b,
  NegativeVeryThinSpace: 0x200b,
  NegativeThinSpace: 0x200b,
  NegativeMediumSpace: 0x200b,
  NegativeThickSpace: 0x200b,
  zwnj: 0x200c,
  zwj: 0x200d,
  lrm: 0x200e,
  rlm: 0x200f,
  NoBreak: 0x2060,
  ApplyFunction: 0x2061,
  af: 0x2061,
  InvisibleTimes: 0x2062,
  it: 0x2062,
  InvisibleComma: 0x2063,
  ic: 0x2063,
};

// Numeric references need no `;` in HTML (a parse error browsers forgive); named ones here do, but `&shy`.
const ENTITY = /&(?:#(\d{1,8});?|#[xX]([0-9a-fA-F]{1,8});?|([A-Za-z]{2,22});|(shy)(?![A-Za-z;]))/g;

function invisibleEntity(match: RegExpExecArray): number | undefined {
  const [, decimal, hexadecimal, name, shy] = match;
  let codePoint: number | undefined;
  if (decimal !== undefined) codePoint = Number.parseInt(decimal, 10);
  else if (hexadecimal !== undefined) codePoint = Number.parseInt(hexadecimal, 16);
  else codePoint = NAMED[name ?? shy ?? ''];
  return codePoint !== undefined && isInvisible(codePoint) ? codePoint : undefined;
}

/** Marks each run of adjacent references to invisible characters once, before the run. */
function markEntities(text: string, kinds: Kinds): string {
  let out = '';
  let done = 0;
  let run: { start: number; end: number; codePoints: number[] } | undefined;
  const flush = (): void => {
    if (!run) return;
    out +=
      text.slice(done, run.start) + markInvisibleRun(text.slice(run.start, run.end), run.codePoints, kinds);
    done = run.end;
    run = undefined;
  };
  for (const match of text.matchAll(ENTITY)) {
    const codePoint = invisibleEntity(match);
    if (codePoint === undefined) continue;
    if (run?.end !== match.index) flush();
    run ??= { start: match.index, end: match.index, codePoints: [] };
    run.end = match.index + match[0].length;
    run.codePoints.push(codePoint);
  }
  flush();
  return out + text.slice(done);
}

function markInvisibleRun(run: string, codePoints: number[], kinds: Kinds): string {
  count(kinds, 'invisible character entities');
  const tags = codePoints.filter((c) => c >= 0xe0020 && c <= 0xe007e);
  if (tags.length > 0) {
    const spelled = String.fromCodePoint(...tags.map((c) => c - 0xe0000));
    return `${OPEN}hidden tag text as HTML entities: ${JSON.stringify(spelled)}${CLOSE}${run}`;
  }
  return `${OPEN}HTML entities for ${codePoints.map(hex).join(' ')}, invisible when rendered:${CLOSE}${run}`;
}

// `[^<>]` keeps the scan linear: a tag without its `>` ends at the next `<`.
const TAG = /<([a-zA-Z][a-zA-Z0-9-]*)(\s[^<>]*)?>/g;
const ATTRIBUTE = /([^\s"'<>/=]+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s"'=<>`]+))?/g;
const HIDING_STYLE = /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\b/i;

function attributesOf(source: string): Map<string, string> {
  const attributes = new Map<string, string>();
  for (const [, name, value] of source.matchAll(ATTRIBUTE)) {
    const unquoted = value?.replace(/^(["'])([^]*)\1$/, '$2') ?? '';
    if (!attributes.has(name!.toLowerCase())) attributes.set(name!.toLowerCase(), unquoted);
  }
  return attributes;
}

function markTags(text: string, kinds: Kinds): string {
  return text.replace(TAG, (tag, name: string, source: string | undefined) => {
    if (source === undefined) return tag;
    const attributes = attributesOf(source);
    if (attributes.has('hidden') || HIDING_STYLE.test(attributes.get('style') ?? '')) {
      count(kinds, 'hidden HTML element');
      return `${OPEN}HTML element hidden when rendered:${CLOSE}${tag}`;
    }
    if (name.toLowerCase() === 'img' && (attributes.get('alt') ?? '').trim() !== '') {
      count(kinds, 'image alt text');
      return `${OPEN}image alt text, not shown when the image renders:${CLOSE}${tag}`;
    }
    return tag;
  });
}

/**
 * A link reference definition with a title renders as nothing; `[//]: # (...)` and
 * `[comment]: <> (...)` use that as a comment. Titles may span lines (not a blank one).
 */
const DEFINITION =
  /^ {0,3}\[(?:[^\]\\\n]|\\.){1,999}\]:[ \t]*\n?[ \t]*(?:<[^<>\n]*>|[^\s<]\S*)[ \t]*\n?[ \t]*(?:"(?:[^"\\]|\\[^])*"|'(?:[^'\\]|\\[^])*'|\((?:[^()\\]|\\[^])*\))[ \t]*$/gm;

function markDefinitions(text: string, kinds: Kinds): string {
  return text.replace(DEFINITION, (definition) => {
    if (/\n[ \t]*\n/.test(definition)) return definition;
    count(kinds, 'Markdown comment');
    return `${OPEN}Markdown comment, not shown when rendered:${CLOSE}${definition}`;
  });
}

/**
 * `![alt](src)` and `![alt][ref]`: the alt text shows only when the image fails to load. One level of
 * brackets nests; a `!` after a word character (`vec![0][i]` in Rust) is no image.
 */
const IMAGE = /(?<!\w)!\[((?:[^[\]\\]|\\[^]|\[(?:[^[\]\\]|\\[^])*\]){1,2000})\](?=[([])/g;

function markImages(text: string, kinds: Kinds): string {
  return text.replace(IMAGE, (image, alt: string) => {
    if (alt.trim() === '') return image;
    count(kinds, 'image alt text');
    return `${OPEN}image alt text, not shown when the image renders:${CLOSE}${image}`;
  });
}

/** Marks each span of hidden markup; cheap when the text holds none of `&`, `<`, `]:`, `![`. */
export function markHiddenMarkup(text: string, kinds: Kinds): string {
  let out = text;
  if (out.includes('&')) out = markEntities(out, kinds);
  if (out.includes('<')) out = markTags(out, kinds);
  if (out.includes(']:')) out = markDefinitions(out, kinds);
  if (out.includes('![')) out = markImages(out, kinds);
  return out;
}
