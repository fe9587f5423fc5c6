import { structuredPatch } from 'diff';
import { clip } from './text-search.js';

/** One file's patch text at most; a longer one is cut and says so. */
export const MAX_PATCH_CHARS = 64 * 1024;

/**
 * A unified diff's hunks (`@@ -a,b +c,d @@` and their lines, no file header) between two shown texts, null
 * standing for no file. Lines are cut as search cuts them. Pure.
 */
export function unifiedHunks(before: string | null, after: string | null, context: number): string {
  const patch = structuredPatch('a', 'b', before ?? '', after ?? '', '', '', { context });
  let out = '';
  for (const hunk of patch.hunks) {
    // an empty range starts at the line before it, as diff and git write it (`@@ -0,0 +1,2 @@` for a new file)
    const range = (start: number, lines: number) => `${lines === 0 ? start - 1 : start},${lines}`;
    const header = `@@ -${range(hunk.oldStart, hunk.oldLines)} +${range(hunk.newStart, hunk.newLines)} @@\n`;
    const body = hunk.lines.map((line) => `${clip(line)}\n`).join('');
    if (out.length + header.length + body.length > MAX_PATCH_CHARS) {
      out += `[patch cut at ${MAX_PATCH_CHARS} characters]\n`;
      break;
    }
    out += header + body;
  }
  return out;
}
