/**
 * Globs read the way git reads them: wildmatch with WM_PATHNAME, the matcher behind `:(glob)` pathspecs
 * (https://git-scm.com/docs/gitglossary#Documentation/gitglossary.txt-glob). Matching is on UTF-8 bytes, as
 * in git: `?` and a bracket expression match one byte, so globs and paths are turned into byte strings (one
 * char per byte) before matching. Anything git would read differently (or not at all) is a problem, never
 * a guess:
 * - a bracket expression never matches `/` (`[+-0]`, `[[:punct:]]`, `[!a]` included), is parsed with git's
 *   rules (`]` first is literal, `-` first or last is literal, `[:class:]` only the twelve POSIX names), and
 *   becomes an explicit set of bytes; an unclosed `[` or a set that matches nothing is refused;
 * - `**` is a globstar only as a whole segment and refused inside a name (git reads `a**` two ways);
 *   `dir/**` matches what is inside `dir`, not a file named `dir`;
 * - braces `{a,b}` are Perimeter's one addition to git (git reads them literally): expanded here, not nested;
 * - every other character is literal.
 *
 * The matcher is a regular expression built here, not by picomatch: picomatch's expressions backtrack, and
 * a path crafted for a glob with several stars costs time exponential in the stars (`*_*_*_*.py`: 1.7 s on
 * one 255-byte name; `*_*\/*_*\/*_*\/*_*.py`: 325 s on one 3,766-byte path). Here every star and every globstar
 * takes the leftmost fit inside an atomic group (`(?=(?<a>...))\k<a>`), which is exact for globs (each piece
 * between stars has a fixed width, so the leftmost fit never loses a match) and never backtracks, so one
 * decision costs about (path length x glob length). bench/policy.ts shows the figures.
 */

/** Alternatives a glob's braces may expand to. */
export const MAX_ALTERNATIVES = 64;

export type Translation = { ok: true; source: string } | { ok: false; problem: string };

const CLASSES: Record<string, (c: number) => boolean> = {
  alnum: (c) => isAlpha(c) || isDigit(c),
  alpha: (c) => isAlpha(c),
  blank: (c) => c === 0x20 || c === 0x09,
  cntrl: (c) => c < 0x20 || c === 0x7f,
  digit: (c) => isDigit(c),
  graph: (c) => c > 0x20 && c < 0x7f,
  lower: (c) => c >= 0x61 && c <= 0x7a,
  print: (c) => c >= 0x20 && c < 0x7f,
  punct: (c) => c > 0x20 && c < 0x7f && !isAlpha(c) && !isDigit(c),
  space: (c) => c === 0x20 || (c >= 0x09 && c <= 0x0d),
  upper: (c) => c >= 0x41 && c <= 0x5a,
  xdigit: (c) => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66),
};

function isAlpha(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

const SLASH = 0x2f;

/** Bytes a valid path can hold: printable ASCII and every byte of multi-byte UTF-8; never `/`. */
function possible(c: number): boolean {
  return c !== SLASH && ((c >= 0x20 && c < 0x7f) || c >= 0x80);
}

/** Turns text into a byte string: one char (U+0000..U+00FF) per UTF-8 byte. */
export function toBytes(text: string): string {
  // eslint-disable-next-line no-control-regex
  return /^[\x00-\x7f]*$/.test(text) ? text : Buffer.from(text, 'utf8').toString('latin1');
}

function fromBytes(bytes: string): string {
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

interface Bracket {
  /** index just past the closing `]`; -1 when there is none */
  end: number;
  /** the bytes it matches; `/` never */
  set: Set<number> | null;
  problem: string | null;
}

const UNCLOSED = 'unclosed "["; write "[[]" for a literal one';

/** Parses the bracket expression at `start` (a `[`) with git's wildmatch rules. */
function parseBracket(p: string, start: number): Bracket {
  let i = start + 1;
  const members = new Set<number>();
  const negated = p[i] === '!' || p[i] === '^';
  if (negated) i++;
  let prev = -1;
  for (;;) {
    if (i >= p.length) return { end: -1, set: null, problem: UNCLOSED };
    const c = p.charCodeAt(i);
    let current = c;
    if (c === 0x2d && prev !== -1 && i + 1 < p.length && p[i + 1] !== ']') {
      const high = p.charCodeAt(++i);
      for (let b = prev; b <= high; b++) members.add(b);
      current = -1;
    } else if (c === 0x5b && p[i + 1] === ':') {
      const close = p.indexOf(']', i + 2);
      if (close === -1) return { end: -1, set: null, problem: UNCLOSED };
      const name = p.slice(i + 2, close - 1);
      if (close - 1 < i + 2 || p[close - 1] !== ':') {
        members.add(c); // git: no ":]" here, so "[" is a member and parsing goes on after it
      } else {
        const test = CLASSES[name];
        if (test === undefined)
          return {
            end: close + 1,
            set: null,
            problem: `unknown character class "[:${name}:]"; expected one of ${Object.keys(CLASSES).join(', ')}`,
          };
        for (let b = 0; b < 0x80; b++) if (test(b)) members.add(b);
        i = close;
        current = -1;
      }
    } else {
      members.add(c);
    }
    prev = current;
    i++;
    if (p[i] === ']') break;
  }
  const set = new Set<number>();
  for (let b = 0; b < 0x100; b++) if (possible(b) && members.has(b) !== negated) set.add(b);
  if (set.size === 0) {
    return {
      end: i + 1,
      set: null,
      problem: `bracket expression ${JSON.stringify(fromBytes(p.slice(start, i + 1)))} can never match a path character (it never matches "/")`,
    };
  }
  return { end: i + 1, set, problem: null };
}

function hex(b: number): string {
  return `\\x${b.toString(16).padStart(2, '0')}`;
}

/** A regular expression for exactly the bytes of `set` (one char of a byte string). */
function setSource(set: Set<number>): string {
  let all = true;
  for (let b = 0; b < 0x100 && all; b++) if (possible(b) && !set.has(b)) all = false;
  if (all) return '[^/]';
  const bytes = [...set].sort((a, b) => a - b);
  if (bytes.length === 1) return hex(bytes[0]!);
  let out = '';
  for (let i = 0; i < bytes.length;) {
    let j = i;
    while (j + 1 < bytes.length && bytes[j + 1] === bytes[j]! + 1) j++;
    out += j > i ? `${hex(bytes[i]!)}-${hex(bytes[j]!)}` : hex(bytes[i]!);
    i = j + 1;
  }
  return `[${out}]`;
}

/**
 * git itself reads `a**` two ways: wildmatch (.gitignore) as `a*`, pathspecs as `a` then a globstar (they strip
 * the literal prefix first, so `a**` selects `ab/c`). Neither is what the glob says at a glance: refused.
 */
const STARS_IN_NAME =
  '"**" inside a name: it is special only as a whole segment ("src/**", "**/x", "a/**/b"); write "*" within a name';

type Segment = 'globstar' | Array<Set<number> | 'star'>;

/** The segments of one brace-free alternative (a byte string), or a problem. */
function segments(p: string): Segment[] | { problem: string } {
  const out: Segment[] = [];
  for (const text of splitSegments(p)) {
    if (/^\*{2,}$/.test(text)) {
      out.push('globstar');
      continue;
    }
    const tokens: Array<Set<number> | 'star'> = [];
    for (let i = 0; i < text.length;) {
      const ch = text[i]!;
      if (ch === '[') {
        const bracket = parseBracket(text, i);
        if (bracket.set === null) return { problem: bracket.problem! };
        tokens.push(bracket.set);
        i = bracket.end;
      } else if (ch === '*') {
        if (text[i + 1] === '*') return { problem: STARS_IN_NAME };
        if (tokens.at(-1) !== 'star') tokens.push('star');
        i++;
      } else if (ch === '?') {
        tokens.push(ANY);
        i++;
      } else {
        tokens.push(new Set([ch.charCodeAt(0)]));
        i++;
      }
    }
    out.push(tokens);
  }
  return out;
}

/** Splits at the `/` that separate segments: a `/` inside a bracket expression belongs to it (git). */
function splitSegments(p: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < p.length;) {
    if (p[i] === '[') {
      const end = parseBracket(p, i).end;
      if (end !== -1) {
        current += p.slice(i, end);
        i = end;
        continue;
      }
    }
    if (p[i] === '/') {
      parts.push(current);
      current = '';
    } else current += p[i];
    i++;
  }
  parts.push(current);
  return parts;
}

const ANY: Set<number> = (() => {
  const set = new Set<number>();
  for (let b = 0; b < 0x100; b++) if (possible(b)) set.add(b);
  return set;
})();

/** Group names are unique in the process, so matchers can be joined into one expression. */
let groups = 0;

class Builder {
  /** `source` matched atomically: once it matched, the engine never comes back to try it another way. */
  atomic(source: string): string {
    groups = (groups + 1) % Number.MAX_SAFE_INTEGER;
    const name = `a${groups}`;
    return `(?=(?<${name}>${source}))\\k<${name}>`;
  }

  /** One segment: fixed-width pieces between stars; each star takes the leftmost fit of the next piece. */
  segment(tokens: Array<Set<number> | 'star'>): string {
    const pieces: string[][] = [[]];
    for (const token of tokens) {
      if (token === 'star') pieces.push([]);
      else pieces.at(-1)!.push(setSource(token));
    }
    if (pieces.length === 1) return pieces[0]!.join('');
    let out = pieces[0]!.join('');
    for (const middle of pieces.slice(1, -1)) out += this.atomic(`[^/]*?${middle.join('')}`);
    // One star: the piece after it must end the segment, so there is one way to match and nothing to undo.
    if (pieces.length === 2) return `${out}[^/]*${pieces[1]!.join('')}`;
    out += `[^/]*${pieces.at(-1)!.join('')}(?=/|$)`;
    return this.atomic(out);
  }

  /** A whole alternative: runs of segments between globstars, each middle run at its leftmost fit. */
  alternative(segs: Segment[]): string {
    const runs: string[][] = [[]];
    for (const seg of segs) {
      if (seg === 'globstar') {
        if (runs.at(-1)!.length > 0 || runs.length === 1) runs.push([]);
      } else runs.at(-1)!.push(this.segment(seg));
    }
    if (runs.length === 1) return `^${runs[0]!.join('\\/')}$`;
    let out = `^${runs[0]!.map((s) => `${s}\\/`).join('')}`;
    for (const run of runs.slice(1, -1))
      out += this.atomic(`(?:[^/]*\\/)*?${run.map((s) => `${s}\\/`).join('')}`);
    const last = runs.at(-1)!;
    out += last.length === 0 ? '[^]*$' : `(?:[^/]*\\/)*${last.join('\\/')}$`;
    return out;
  }
}

/** Index just past the `]` closing the bracket at `start`, by git's rules, or -1; brace expansion skips brackets. */
function bracketEnd(p: string, start: number): number {
  return parseBracket(p, start).end;
}

/** Expands `{a,b}` groups (not nested) into alternatives, skipping bracket expressions. */
function expandBraces(p: string): { alternatives: string[] } | { problem: string } {
  let alternatives = [''];
  let i = 0;
  let literal = '';
  while (i < p.length) {
    const ch = p[i]!;
    if (ch === '[') {
      const end = bracketEnd(p, i);
      if (end === -1) return { problem: UNCLOSED };
      literal += p.slice(i, end);
      i = end;
    } else if (ch === '}') {
      return { problem: 'unmatched "}"; write "[}]" for a literal one' };
    } else if (ch === '{') {
      const options: string[] = [];
      let current = '';
      let j = i + 1;
      for (; j < p.length && p[j] !== '}'; j++) {
        if (p[j] === '{') return { problem: 'nested braces are not supported; list the globs instead' };
        if (p[j] === '[') {
          const end = bracketEnd(p, j);
          if (end === -1) return { problem: UNCLOSED };
          current += p.slice(j, end);
          j = end - 1;
        } else if (p[j] === ',') {
          options.push(current);
          current = '';
        } else current += p[j];
      }
      if (j >= p.length) return { problem: 'unclosed "{"; write "[{]" for a literal one' };
      options.push(current);
      if (options.length < 2)
        return { problem: 'braces without a comma; write "{a,b}", or "[{]" for a literal brace' };
      const next: string[] = [];
      for (const head of alternatives) for (const option of options) next.push(head + literal + option);
      if (next.length > MAX_ALTERNATIVES)
        return { problem: `braces expand to more than ${MAX_ALTERNATIVES} globs; list fewer` };
      alternatives = next;
      literal = '';
      i = j + 1;
    } else {
      literal += ch;
      i++;
    }
  }
  return { alternatives: [...new Set(alternatives.map((a) => fromBytes(a + literal)))] };
}

/**
 * The matcher source (over byte strings) that means what git reads in `glob`, or why there is none. `check`
 * runs on each expanded alternative (in text form) first.
 */
export function translateGlob(glob: string, check: (alternative: string) => string | null): Translation {
  const expanded = expandBraces(toBytes(glob));
  if ('problem' in expanded) return { ok: false, problem: expanded.problem };
  const builder = new Builder();
  const sources: string[] = [];
  for (const alternative of expanded.alternatives) {
    const problem = check(alternative);
    const where = expanded.alternatives.length > 1 ? ` (in ${JSON.stringify(alternative)})` : '';
    if (problem !== null) return { ok: false, problem: `${problem}${where}` };
    const segs = segments(toBytes(alternative));
    if ('problem' in segs) return { ok: false, problem: `${segs.problem}${where}` };
    sources.push(builder.alternative(segs));
  }
  return { ok: true, source: sources.length === 1 ? sources[0]! : sources.map((x) => `(?:${x})`).join('|') };
}
