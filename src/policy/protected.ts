import { foldSegment } from './path.js';

/**
 * The built-in protected set: never writable unless a perimeter names the path in `allow-protected`.
 * Each entry is a run of path segments matched at any depth, after folding case, Unicode compatibility
 * forms (NFKC, which also unifies NFC and NFD) and trailing dots and spaces, so `.GitHub/`, `ＣＬＡＵＤＥ.md`
 * and a decomposed `é` land where a case-insensitive checkout would put them. A directory entry also
 * matches a file of that name.
 */
export const PROTECTED_ENTRIES: readonly string[] = Object.freeze([
  '.github/**',
  'CODEOWNERS',
  '.gitmodules',
  '.gitattributes',
  'AGENTS.md',
  'AGENTS.override.md',
  'CLAUDE.md',
  'CLAUDE.local.md',
  'GEMINI.md',
  '.claude/**',
  '.codex/**',
  '.cursor/**',
  '.cursorrules',
  '.gemini/**',
  '.windsurf/**',
  '.windsurfrules',
  '.mcp.json',
  '.vscode/mcp.json',
]);

export const DEFAULT_CONFIG_FILE = 'perimeters.yml';

interface Entry {
  rule: string;
  segments: string[];
}

interface Entries {
  list: Entry[];
  /** Cheap exact test for ASCII paths: does any segment fold to the first name of an entry? */
  prefilter: RegExp;
}

const ASCII = /^[\x20-\x7e]*$/;

function toEntry(rule: string): Entry {
  const segments = rule
    .replace(/\/\*\*$/, '')
    .split('/')
    .filter((s) => s !== '' && s !== '.')
    .map(foldSegment);
  return { rule, segments };
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

const BUILT_IN = PROTECTED_ENTRIES.map(toEntry);
const cache = new Map<string, Entries>();

function entriesFor(configFile: string): Entries {
  let entries = cache.get(configFile);
  if (!entries) {
    const list = [toEntry(configFile), ...BUILT_IN].filter((e) => e.segments.length > 0);
    const firsts = [...new Set(list.map((e) => escape(e.segments[0]!)))];
    const prefilter = new RegExp(`(?:^|/)(?:${firsts.join('|')})[. ]*(?:/|$)`, 'i');
    entries = { list, prefilter };
    if (cache.size > 16) cache.clear();
    cache.set(configFile, entries);
  }
  return entries;
}

function containsRun(haystack: string[], needle: string[]): boolean {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

/** The protected-set entry matching this (validated) path, or null. Case/Unicode-NF insensitive, any depth. */
export function protectedRule(path: string, configFile: string = DEFAULT_CONFIG_FILE): string | null {
  const entries = entriesFor(configFile);
  if (ASCII.test(path) && !entries.prefilter.test(path)) return null;
  const segments = path.split('/').map(foldSegment);
  for (const entry of entries.list) {
    if (containsRun(segments, entry.segments)) return entry.rule;
  }
  return null;
}
