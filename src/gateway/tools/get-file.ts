import { z } from 'zod';
import { answerFile, fileAnswerSchema } from '../reads/file-answer.js';
import { noteTrusted } from '../reads/trusted-instructions.js';
import { defineTool } from './definition.js';
import { readableFile } from './readable-file.js';

export const getFile = defineTool({
  name: 'get_file',
  description:
    'Read one file at the head of the bound branch. Text files come back as UTF-8 content; binary and very large files are described (size, note) instead.',
  readOnly: true,
  destructive: false,
  inputSchema: { path: z.string().describe('repository-relative path, e.g. "src/index.ts"') },
  outputSchema: fileAnswerSchema.shape,
  pathArguments: { path: 'one' },
  async handler({ path: raw }, context) {
    const { perimeter, view, instructions } = context;
    const { path, entry, index } = await readableFile(raw, context);
    // its size first where the index has none (from the history copy): a file too large to show is not read
    const [sized] = await view.sized(index.sha, [entry]);
    const file = noteTrusted(await answerFile(view, sized!), instructions, perimeter, path);
    return { structured: file, ...(file.content !== undefined ? { text: file.content } : {}) };
  },
});
