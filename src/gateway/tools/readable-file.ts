import type { TreeEntry } from '../../github/index.js';
import type { TreeIndex } from '../reads/tree-index.js';
import { readableTree } from '../reads/trusted-instructions.js';
import { ToolError } from '../tool-answer.js';
import type { ToolContext } from './definition.js';
import { absent, requirePath } from './paths.js';

/**
 * One readable file at the head, as get_file decides it (and blame after it): an invalid path is refused, a
 * readable directory is refused with a hint, anything else not readable (hidden, missing, a hidden directory)
 * answers "not found" alike, the real reason only in the ledger's notes.
 */
export async function readableFile(
  raw: string,
  {
    perimeter,
    view,
    instructions,
    notes,
  }: Pick<ToolContext, 'perimeter' | 'view' | 'instructions' | 'notes'>,
): Promise<{ path: string; entry: TreeEntry; index: TreeIndex }> {
  notes.paths.push(raw);
  const path = requirePath(raw);
  // instruction files as the trusted ref holds them: the same list get_tree and get_files read
  const index = await readableTree(view, instructions, perimeter);
  const entry = index.get(path);
  const readable = index.readable(perimeter);
  if (entry?.type === 'tree' && readable.dirs.has(path)) {
    throw new ToolError(`${JSON.stringify(path)} is a directory; use get_tree`, 'refused');
  }
  if (!entry || entry.type === 'tree' || !readable.files.has(path)) {
    notes.refused = entry !== undefined;
    notes.reason = instructions?.applies(perimeter, path)
      ? `agent instruction file, not at the trusted ref ${instructions.ref} or not readable`
      : entry && entry.type !== 'tree'
        ? `hidden: ${perimeter.canRead(path).rule}`
        : entry
          ? 'hidden directory'
          : 'no such file';
    throw absent(path);
  }
  return { path, entry, index };
}
