import { RE2JS } from 're2js';

/**
 * The matcher behind search: RE2's linear-time engine (re2js, a port of Google's RE2), so a pattern's cost
 * grows with the text searched and never with how it backtracks. What only a backtracking engine can do
 * (backreferences, lookaround) is refused at compile time, and the refusal says so. The pattern is data: it
 * reaches the engine as one argument, never as options or a command line.
 */
export interface LineMatcher {
  test(line: string): boolean;
}

export const MAX_PATTERN_CHARS = 1_000;

/** A matcher for a literal text or a regular expression; throws a SearchPatternError saying what is wrong. */
export function compileMatcher(
  pattern: string,
  options: { regex: boolean; caseSensitive: boolean },
): LineMatcher {
  if (pattern.length === 0) throw new SearchPatternError('the pattern is empty');
  if (pattern.length > MAX_PATTERN_CHARS)
    throw new SearchPatternError(
      `the pattern has ${pattern.length} characters, at most ${MAX_PATTERN_CHARS}`,
    );
  if (!options.regex && options.caseSensitive) return { test: (line) => line.includes(pattern) };
  const source = options.regex ? pattern : RE2JS.quote(pattern);
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(source, options.caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE);
  } catch (error) {
    const why = error instanceof Error ? error.message : 'invalid';
    throw new SearchPatternError(
      `${why}. Backreferences and lookaround are not supported: the engine (RE2) never backtracks, so no pattern can make a search run long`,
    );
  }
  return { test: (line) => compiled.matcher(line).find() };
}

export class SearchPatternError extends Error {
  readonly code = 'invalid-pattern';
  constructor(message: string) {
    super(message);
    this.name = 'SearchPatternError';
  }
}

export interface LineHit {
  /** 1-based */
  line: number;
  text: string;
  before?: string[];
  after?: string[];
}

/** Longest line an answer carries; longer ones are cut, and say so. */
export const MAX_LINE_CHARS = 400;

export function clip(line: string): string {
  return line.length <= MAX_LINE_CHARS
    ? line
    : `${line.slice(0, MAX_LINE_CHARS)}\u2026 [line cut at ${MAX_LINE_CHARS} of ${line.length} characters]`;
}

/** The matching lines of one text's lines, at most `max`, each with `context` lines either side. */
export function matchLines(lines: string[], matcher: LineMatcher, context: number, max: number): LineHit[] {
  const hits: LineHit[] = [];
  for (let i = 0; i < lines.length && hits.length < max; i++) {
    if (!matcher.test(lines[i]!)) continue;
    const hit: LineHit = { line: i + 1, text: clip(lines[i]!) };
    if (context > 0) {
      hit.before = lines.slice(Math.max(0, i - context), i).map(clip);
      hit.after = lines.slice(i + 1, i + 1 + context).map(clip);
    }
    hits.push(hit);
  }
  return hits;
}
