import picomatch from 'picomatch';
import { isDotGitSegment, MAX_PATH_BYTES, pathProblem } from './path.js';

/**
 * The one set of picomatch options every decision uses.
 * - `dot: true`: `*` and `**` match dot files and dot directories, as CODEOWNERS does (`src/**` covers
 *   `src/.eslintrc`).
 * - `nocase: false`: matching is case-sensitive, like git. (The protected set is matched separately and
 *   case-insensitively.)
 * - `windows: false`: POSIX paths; `/` is the only separator.
 * - `nonegate: true`: a leading `!` never inverts a glob (validation rejects it anyway).
 * - `noextglob: true`: `@(a|b)`, `+(x)` and friends are not special.
 * - `posix: true`: POSIX character classes such as `[[:alpha:]]` work inside brackets.
 * - no `basename`/`matchBase`: `*.md` matches at the root only; write `**\/*.md` for any depth.
 * Braces (`{src,test}/**`) and brackets (`[abc]`) keep their usual meaning.
 */
export const GLOB_OPTIONS = Object.freeze({
  dot: true,
  nocase: false,
  windows: false,
  nonegate: true,
  noextglob: true,
  posix: true,
  basename: false,
  contains: false,
});

// eslint-disable-next-line no-control-regex
const CONTROL_OR_INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]|\p{Default_Ignorable_Code_Point}/u;
const LITERAL_PARENS = /\[\(\]|\[\)\]/g;
const NEVER_MATCHES = '$^';
const GLOB_SYNTAX = /[*?[\]{}]/;

export function compileGlob(glob: string): RegExp {
  return picomatch.makeRe(glob, GLOB_OPTIONS);
}

/** Why `glob` cannot be used in perimeters.yml (it is malformed or could never match a valid path), or null. */
export function globProblem(glob: string): string | null {
  if (glob === '') return 'empty glob';
  if (glob.trim() !== glob) return 'leading or trailing whitespace';
  if (Buffer.byteLength(glob, 'utf8') > MAX_PATH_BYTES) return `longer than ${MAX_PATH_BYTES} bytes`;
  if (CONTROL_OR_INVISIBLE.test(glob)) return 'control or invisible character';
  if (glob.startsWith('!'))
    return 'negation ("!") is not supported: perimeters only grant, list what is allowed';
  if (glob.startsWith('/')) return 'leading "/": globs are relative to the repository root';
  if (glob.includes('\\'))
    return 'backslash: paths never contain one; write "[*]" to match a special character literally';
  if (glob.replace(LITERAL_PARENS, '').search(/[()]/) !== -1) {
    return 'parentheses: picomatch reads "(...)" as a group; write "[(]" or "[)]" to match one literally';
  }
  for (const segment of glob.split('/')) {
    if (segment === '') return 'empty segment ("//" or a trailing "/"; write "dir/**" for a directory)';
    if (segment === '.' || segment === '..') return `"${segment}" segment can never match a valid path`;
    if (isDotGitSegment(segment))
      return `${JSON.stringify(segment)} segment can never match: .git paths are always refused`;
    const problem = GLOB_SYNTAX.test(segment) ? null : pathProblem(segment);
    if (problem !== null)
      return `segment ${JSON.stringify(segment)} can never match a valid path: ${problem}`;
  }
  let source: string;
  try {
    source = compileGlob(glob).source;
  } catch (error) {
    return `cannot compile: ${(error as Error).message}`;
  }
  if (source === NEVER_MATCHES) return 'can never match anything (unbalanced brace or bracket?)';
  return null;
}

/** Why a `branches` glob is unusable, or null. Branch names follow git's ref rules, not path rules. */
export function branchGlobProblem(glob: string): string | null {
  if (glob === '') return 'empty glob';
  if (glob.trim() !== glob || /\s/.test(glob)) return 'whitespace: branch names never contain any';
  if (CONTROL_OR_INVISIBLE.test(glob)) return 'control or invisible character';
  if (glob.startsWith('!')) return 'negation ("!") is not supported';
  if (glob.startsWith('/') || glob.startsWith('refs/'))
    return 'give the branch name without "refs/heads/" or a leading "/"';
  if (glob.includes('\\')) return 'backslash: branch names never contain one';
  if (glob.includes('..') || glob.includes('//') || glob.endsWith('/'))
    return 'can never match a valid branch name';
  try {
    if (compileGlob(glob).source === NEVER_MATCHES)
      return 'can never match anything (unbalanced brace or bracket?)';
  } catch (error) {
    return `cannot compile: ${(error as Error).message}`;
  }
  return null;
}

export interface GlobList {
  readonly globs: readonly string[];
  /** The first glob matching `path`, or null. */
  find(path: string): string | null;
}

/** Compiles validated globs once; `find` reports which one matched. */
export function compileGlobList(globs: readonly string[]): GlobList {
  const compiled = globs.map((glob) => ({ glob, re: compileGlob(glob) }));
  const union = compiled.length > 0 ? new RegExp(compiled.map((c) => `(?:${c.re.source})`).join('|')) : null;
  return {
    globs: [...globs],
    find(path: string): string | null {
      if (union === null || !union.test(path)) return null;
      for (const { glob, re } of compiled) if (re.test(path)) return glob;
      return null;
    },
  };
}
