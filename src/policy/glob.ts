import { toBytes, translateGlob } from './git-glob.js';
import { isDotGitSegment, MAX_PATH_BYTES, pathProblem } from './path.js';

/**
 * The picomatch options Perimeter used before globs were read the way git reads them (see git-glob.ts).
 * Kept for callers that still hand raw globs to picomatch; decisions go through compileGlobList.
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
const GLOB_SYNTAX = /[*?[\]]/;
const EXTGLOB = /[@!+*?]\(/;

function segmentProblem(alternative: string): string | null {
  for (const segment of alternative.split('/')) {
    if (segment === '') return 'empty segment ("//" or a trailing "/"; write "dir/**" for a directory)';
    if (segment === '.' || segment === '..') return `"${segment}" segment can never match a valid path`;
    if (isDotGitSegment(segment))
      return `${JSON.stringify(segment)} segment can never match: .git paths are always refused`;
    const problem = GLOB_SYNTAX.test(segment) ? null : pathProblem(segment);
    if (problem !== null)
      return `segment ${JSON.stringify(segment)} can never match a valid path: ${problem}`;
  }
  return null;
}

/**
 * The matcher for a valid glob, over byte strings (see toBytes): what git's `:(glob)` pathspecs select.
 * Throws on a glob globProblem refuses.
 */
export function compileGlob(glob: string): RegExp {
  const translation = translateGlob(glob, () => null);
  if (!translation.ok) throw new Error(`invalid glob ${JSON.stringify(glob)}: ${translation.problem}`);
  return new RegExp(translation.source);
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
  const extglob = EXTGLOB.exec(glob);
  if (extglob !== null)
    return `"${extglob[0]}" reads like an extglob, which git does not have (there "(" is a literal); write "[(]" for a literal parenthesis, or list the globs`;
  const translation = translateGlob(glob, segmentProblem);
  return translation.ok ? null : translation.problem;
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
  const translation = translateGlob(glob, () => null);
  return translation.ok ? null : translation.problem;
}

export interface GlobList {
  readonly globs: readonly string[];
  /** The first glob matching `path`, or null. */
  find(path: string): string | null;
}

/** Compiles validated globs once; `find` reports which one matched. */
export function compileGlobList(globs: readonly string[]): GlobList {
  const compiled = globs.map((glob) => ({ glob, re: compileGlob(glob) }));
  // Matching is on UTF-8 bytes, as in git: `?` and brackets match one byte.
  const union = compiled.length > 0 ? new RegExp(compiled.map((c) => `(?:${c.re.source})`).join('|')) : null;
  return {
    globs: [...globs],
    find(path: string): string | null {
      if (union === null) return null;
      const bytes = toBytes(path);
      if (!union.test(bytes)) return null;
      for (const { glob, re } of compiled) if (re.test(bytes)) return glob;
      return null;
    },
  };
}
