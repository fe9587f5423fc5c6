import { z } from 'zod';
import type { TreeEntry } from '../../github/index.js';
import type { RepoView } from './repo-view.js';
import { decodeText } from '../../safety/binary-text.js';

/** Files larger than this are described, not sent: an agent's context is no place for them. */
export const MAX_READ_BYTES = 1_048_576;

export const fileAnswerSchema = z.object({
  path: z.string(),
  type: z.enum(['file', 'symlink', 'submodule']),
  sha: z.string(),
  size: z.number().optional(),
  executable: z.boolean().optional(),
  encoding: z.literal('utf-8').optional(),
  content: z.string().optional().describe('present for text files up to the size limit'),
  target: z.string().optional().describe('a symlink target, never followed'),
  note: z.string().optional().describe('why content is absent: binary or too large'),
});
export type FileAnswer = z.infer<typeof fileAnswerSchema>;

export async function answerFile(view: RepoView, entry: TreeEntry): Promise<FileAnswer> {
  const base = { path: entry.path, sha: entry.sha };
  if (entry.type === 'commit')
    return { ...base, type: 'submodule', note: `submodule at commit ${entry.sha}` };
  if (entry.size !== undefined && entry.size > MAX_READ_BYTES) return tooLarge(entry, entry.size);
  const data = await view.blob(entry.sha);
  if (data.length > MAX_READ_BYTES) return tooLarge(entry, data.length);
  const text = decodeText(data);
  if (entry.mode === '120000') {
    return {
      ...base,
      type: 'symlink',
      size: data.length,
      ...(text === null ? { note: 'symlink with a binary target' } : { target: text }),
    };
  }
  const file = { ...base, type: 'file' as const, size: data.length, executable: entry.mode === '100755' };
  if (text === null) return { ...file, note: `binary file, ${data.length} bytes; content not shown` };
  return { ...file, encoding: 'utf-8', content: text };
}

function tooLarge(entry: TreeEntry, size: number): FileAnswer {
  return {
    path: entry.path,
    sha: entry.sha,
    type: 'file',
    size,
    executable: entry.mode === '100755',
    note: `file too large to show: ${size} bytes, the limit is ${MAX_READ_BYTES}`,
  };
}
