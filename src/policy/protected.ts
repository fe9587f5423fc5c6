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

function toEntry(rule: string): Entry {
  const segments = rule
    .replace(/\/\*\*$/, '')
    .split('/')
    .filter((s) => s !== '')
    .map(foldSegment);
  return { rule, segments };
}

const BUILT_IN = PROTECTED_ENTRIES.map(toEntry);
const cache = new Map<string, Entry[]>();

function entriesFor(configFile: string): Entry[] {
  let entries = cache.get(configFile);
  if (!entries) {
    entries = [toEntry(configFile), ...BUILT_IN].filter((e) => e.segments.length > 0);
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
  const segments = path.split('/').map(foldSegment);
  for (const entry of entriesFor(configFile)) {
    if (containsRun(segments, entry.segments)) return entry.rule;
  }
  return null;
}
