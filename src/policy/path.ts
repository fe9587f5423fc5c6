export type PathCheck = { ok: true; path: string } | { ok: false; reason: string };

export const MAX_PATH_BYTES = 4096;
export const MAX_SEGMENT_BYTES = 255;

// C0 controls, DEL, C1 controls and the Unicode line and paragraph separators.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
// Zero-width and other invisible code points; HFS+ ignores several of them in file names, so
// ".gi\u200ct" would land on ".git" there.
const INVISIBLE = /\p{Default_Ignorable_Code_Point}/u;
const ASCII = /^[\x20-\x7e]*$/;
const LONE_SURROGATE = /\p{Surrogate}/u;

function codePoint(char: string): string {
  return `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

const TRAILING_DOTS_AND_SPACES = /[. ]+$/;

/**
 * Case- and compatibility-insensitive form of a name: NFKC, then upper and lower case, so that letters
 * which only meet in upper case (dotless `ı` and `I`, long `ſ` and `S`) fold together as well.
 */
function caseFold(text: string): string {
  return ASCII.test(text) ? text.toLowerCase() : text.normalize('NFKC').toUpperCase().toLowerCase();
}

/**
 * Folded form of one path segment, the way a case-insensitive or Windows file system could see it:
 * caseFold, then trailing dots and spaces removed.
 */
export function foldSegment(segment: string): string {
  const folded = caseFold(segment);
  const last = folded.charCodeAt(folded.length - 1);
  return last === 0x2e || last === 0x20 ? folded.replace(TRAILING_DOTS_AND_SPACES, '') : folded;
}

const DOT_GIT = /^(?:\.git|git~1)[. ]*(?::.*)?$/;

/** True for `.git` in any case or compatibility form, with trailing dots or spaces, as an NTFS stream or 8.3 name. */
export function isDotGitSegment(segment: string): boolean {
  return DOT_GIT.test(caseFold(segment));
}

function segmentProblem(segment: string, ascii: boolean): string | null {
  if (segment === '') return 'empty segment ("//" or a trailing "/")';
  if (segment === '.' || segment === '..') return `"${segment}" segment`;
  const bytes = ascii ? segment.length : Buffer.byteLength(segment, 'utf8');
  if (bytes > MAX_SEGMENT_BYTES) return `a segment is longer than ${MAX_SEGMENT_BYTES} bytes`;
  const first = segment.charCodeAt(0) | 0x20; // '.' stays '.', 'G' becomes 'g'
  if ((!ascii || first === 0x2e || first === 0x67) && isDotGitSegment(segment)) {
    return `${JSON.stringify(segment)} segment: the git directory is off limits`;
  }
  if (!ascii) {
    const compat = segment.normalize('NFKC');
    if (compat === '.' || compat === '..' || compat.includes('/') || compat.includes('\\')) {
      return `${JSON.stringify(segment)} segment folds to ${JSON.stringify(compat)} under Unicode NFKC`;
    }
  }
  return null;
}

/** Why `input` is not a valid repository-relative POSIX path, or null when it is. */
export function pathProblem(input: unknown): string | null {
  if (typeof input !== 'string') {
    return `expected a string, got ${input === null ? 'null' : Array.isArray(input) ? 'array' : typeof input}`;
  }
  if (input === '') return 'empty path';
  // Printable ASCII (the common case) has no controls, invisibles or surrogates, and one byte per character.
  const ascii = ASCII.test(input);
  if (!ascii) {
    if (LONE_SURROGATE.test(input)) return 'not well-formed Unicode (lone surrogate)';
    const control = CONTROL.exec(input);
    if (control) return `control character ${codePoint(control[0])}`;
    const invisible = INVISIBLE.exec(input);
    if (invisible) return `invisible character ${codePoint(invisible[0])}`;
  }
  if (input.length > MAX_PATH_BYTES || (!ascii && Buffer.byteLength(input, 'utf8') > MAX_PATH_BYTES)) {
    return `longer than ${MAX_PATH_BYTES} bytes`;
  }
  if (input.includes('\\')) return 'backslash (paths use "/" only)';
  if (input.charCodeAt(0) === 0x2f) return 'leading "/" (paths are relative to the repository root)';
  for (const segment of input.split('/')) {
    const problem = segmentProblem(segment, ascii);
    if (problem) return problem;
  }
  return null;
}

/** Strict repository-relative POSIX path validation: reject, never repair. */
export function validatePath(input: unknown): PathCheck {
  const reason = pathProblem(input);
  return reason === null ? { ok: true, path: input as string } : { ok: false, reason };
}
