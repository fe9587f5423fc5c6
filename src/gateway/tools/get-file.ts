import { z } from 'zod';
import { answerFile, fileAnswerSchema } from '../reads/file-answer.js';
import { noteTrusted, readableTree } from '../reads/trusted-instructions.js';
import { ToolError } from '../tool-answer.js';
import { defineTool } from './definition.js';
import { absent, requirePath } from './paths.js';

export const getFile = defineTool({
  name: 'get_file',
  description:
    'Read one file at the head of the bound branch. Text files come back as UTF-8 content; binary and very large files are described (size, note) instead.',
  readOnly: true,
  destructive: false,
  inputSchema: { path: z.string().describe('repository-relative path, e.g. "src/index.ts"') },
  outputSchema: fileAnswerSchema.shape,
  pathArguments: { path: 'one' },
  async handler({ path: raw }, { perimeter, view, instructions, notes }) {
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
    // its size first where the index has none (from the history copy): a file too large to show is not read
    const [sized] = await view.sized(index.sha, [entry]);
    const file = noteTrusted(await answerFile(view, sized!), instructions, perimeter, path);
    return { structured: file, ...(file.content !== undefined ? { text: file.content } : {}) };
  },
});
