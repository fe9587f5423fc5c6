import { z } from 'zod';
import type { RepoView } from '../reads/repo-view.js';
import type { TreeEntry } from '../../github/index.js';
import { answerFile, fileAnswerSchema, MAX_READ_BYTES, type FileAnswer } from '../reads/file-answer.js';
import { validatePath } from '../../policy/index.js';
import { noteTrusted, readableTree } from '../reads/trusted-instructions.js';
import { defineTool } from './definition.js';

const MAX_PATHS = 100;
/** Total content one answer carries; files past it are described, to be read one by one. */
const MAX_ANSWER_BYTES = 4 * 1_048_576;

/**
 * Asks for the readable files' blobs at once, as many as fit one answer, so that the ones not yet cached come
 * in one upstream fetch (src/github/git-blobs.ts batches reads asked for together) rather than one by one.
 * A read that fails here is left to the answer below, which reports it as it always has.
 */
async function readTogether(
  view: RepoView,
  paths: string[],
  sized: ReadonlyMap<string, TreeEntry>,
): Promise<void> {
  let budget = MAX_ANSWER_BYTES;
  const shas = new Set<string>();
  for (const path of paths) {
    const entry = sized.get(path);
    // a file too large to show is described, not read
    const size = entry?.size ?? 0;
    if (entry?.type !== 'blob' || size > budget || size > MAX_READ_BYTES) continue;
    budget -= size;
    shas.add(entry.sha);
  }
  await Promise.allSettled([...shas].map((sha) => view.blob(sha)));
}

export const getFiles = defineTool({
  name: 'get_files',
  description: `Read up to ${MAX_PATHS} files at the head of the bound branch in one call. Each path answers with its content or with an error ("not found", "invalid path").`,
  readOnly: true,
  destructive: false,
  inputSchema: {
    paths: z.array(z.string()).min(1).max(MAX_PATHS).describe('repository-relative paths'),
  },
  outputSchema: {
    files: z.array(z.union([fileAnswerSchema, z.object({ path: z.string(), error: z.string() })])),
  },
  pathArguments: { paths: 'list' },
  async handler({ paths }, { perimeter, view, instructions, notes }) {
    notes.paths.push(...paths);
    // instruction files as the trusted ref holds them: the same list get_tree and get_file read
    const index = await readableTree(view, instructions, perimeter);
    const readable = index.readable(perimeter);
    const hidden: string[] = [];
    // the readable files' sizes first where the index has none (from the history copy), in one fetch: the
    // files too large for the answer are not read
    const wanted = paths.flatMap((p) => (readable.files.has(p) ? [index.get(p)!] : []));
    const sized = new Map((await view.sized(index.sha, wanted)).map((e) => [e.path, e]));
    await readTogether(view, paths, sized);
    let budget = MAX_ANSWER_BYTES;
    const files: Array<FileAnswer | { path: string; error: string }> = [];
    for (const path of paths) {
      const check = validatePath(path);
      const entry = check.ok ? index.get(path) : undefined;
      if (!check.ok) {
        files.push({ path, error: `invalid path: ${check.reason}` });
        continue;
      }
      if (entry?.type === 'tree' && readable.dirs.has(path)) {
        files.push({ path, error: 'is a directory; use get_tree' });
        continue;
      }
      if (!entry || entry.type === 'tree' || !readable.files.has(path)) {
        if (entry && entry.type !== 'tree') hidden.push(path);
        files.push({ path, error: 'not found' });
        continue;
      }
      const file = noteTrusted(
        await answerFile(view, sized.get(path) ?? entry),
        instructions,
        perimeter,
        path,
      );
      if (file.content !== undefined && file.content.length > budget) {
        const { content: _omitted, encoding: _none, ...rest } = file;
        files.push({
          ...rest,
          note: 'not shown: this answer reached its size limit; read this file on its own',
        });
        continue;
      }
      budget -= file.content?.length ?? 0;
      files.push(file);
    }
    if (hidden.length > 0) notes.reason = `hidden: ${hidden.join(', ')}`;
    return { structured: { files } };
  },
});
