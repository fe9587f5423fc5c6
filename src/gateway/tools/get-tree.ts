import { z } from 'zod';
import type { TreeEntry } from '../../github/index.js';
import type { ReadableView, TreeIndex } from '../reads/tree-index.js';
import { readableTree } from '../reads/trusted-instructions.js';
import { ToolError } from '../tool-answer.js';
import { defineTool } from './definition.js';
import { absent, requirePath } from './paths.js';

const MAX_ENTRIES = 10_000;
const ROOT_HINT = ' (leave path out to list the repository root)';

const entrySchema = z.object({
  path: z.string(),
  type: z.enum(['file', 'dir', 'symlink', 'submodule']),
  size: z.number().optional(),
  sha: z.string().optional(),
});
type Entry = z.infer<typeof entrySchema>;

export const getTree = defineTool({
  name: 'get_tree',
  description:
    'List files and directories at the head of the bound branch, under an optional directory. Only what this endpoint may read is listed; a directory appears only if it holds something readable.',
  readOnly: true,
  destructive: false,
  inputSchema: {
    path: z.string().optional().describe('directory to list; the repository root when omitted'),
    recursive: z.boolean().optional().describe('list everything below, not only direct entries'),
  },
  outputSchema: {
    path: z.string(),
    entries: z.array(entrySchema),
    truncated: z.boolean().describe(`true when more than ${MAX_ENTRIES} entries were found`),
  },
  pathArguments: { path: 'one' },
  async handler({ path: raw, recursive }, { perimeter, view, instructions, notes }) {
    if (raw !== undefined) notes.paths.push(raw);
    const dir = raw === undefined || raw === '' ? '' : requirePath(raw, ROOT_HINT);
    // instruction files as the trusted ref holds them: the same list get_file and get_files read
    const index = await readableTree(view, instructions, perimeter);
    const readable = index.readable(perimeter);
    if (dir !== '' && !readable.dirs.has(dir)) {
      if (readable.files.has(dir))
        throw new ToolError(`${JSON.stringify(dir)} is a file; use get_file`, 'refused');
      notes.refused = index.get(dir) !== undefined;
      notes.reason = notes.refused ? 'hidden: nothing readable there' : 'no such directory';
      throw absent(dir);
    }
    const listed: TreeEntry[] = [];
    const truncated = list(index, readable, dir, recursive === true, listed);
    // sizes of the readable files listed, where the index has none (read from the history copy)
    const entries = (await view.sized(index.sha, listed)).map(describe);
    return { structured: { path: dir, entries, truncated } };
  },
});

/** Fills `out` with the readable entries in tree order; true when it stopped at the limit. */
function list(
  index: TreeIndex,
  readable: ReadableView,
  dir: string,
  recursive: boolean,
  out: TreeEntry[],
): boolean {
  for (const entry of [...index.children(dir)].sort(byPath)) {
    if (out.length >= MAX_ENTRIES) return true;
    if (entry.type === 'tree') {
      if (!readable.dirs.has(entry.path)) continue;
      out.push(entry);
      if (recursive && list(index, readable, entry.path, true, out)) return true;
    } else if (readable.files.has(entry.path)) {
      out.push(entry);
    }
  }
  return false;
}

function describe(entry: TreeEntry): Entry {
  if (entry.type === 'tree') return { path: entry.path, type: 'dir' };
  const type = entry.type === 'commit' ? 'submodule' : entry.mode === '120000' ? 'symlink' : 'file';
  const size = entry.size;
  return { path: entry.path, type, sha: entry.sha, ...(size !== undefined ? { size } : {}) };
}

function byPath(a: TreeEntry, b: TreeEntry): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}
