import { execFile } from 'node:child_process';
import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { blobSha } from '../github/index.js';
import type { WorkspaceState } from '../clients/workspace-state.js';
import { decodeText } from '../safety/binary-text.js';

const run = promisify(execFile);

/** What changed in a workspace since it was handed out (or last pushed), as push_files takes it. */
export interface WorkspaceDiff {
  files: Array<{ path: string; content: string; encoding?: 'base64' }>;
  deletions: string[];
  /** the blob and mode of each file written, for the state after a push */
  written: Record<string, { mode: '100644' | '100755'; sha: string }>;
  /** changes push_files cannot carry: a push with any of these is refused before it is sent */
  refused: string[];
  /** changes left out, said so (a mode change alone) */
  notes: string[];
}

/**
 * The paths to compare: every file handed out, and every file git would see in the directory (tracked or
 * untracked and not ignored), so build output a .gitignore names stays home. Without a usable .git, every
 * file under the directory but `.git` itself.
 */
async function candidatePaths(state: WorkspaceState): Promise<Set<string>> {
  const paths = new Set(Object.keys(state.files));
  try {
    const { stdout } = await run(
      'git',
      ['-C', state.dir, 'ls-files', '-z', '--cached', '--others', '--exclude-standard'],
      { maxBuffer: 256 * 1024 * 1024 },
    );
    for (const path of stdout.split('\0')) if (path !== '') paths.add(path);
  } catch {
    for (const path of await walk(state.dir, '')) paths.add(path);
  }
  return paths;
}

async function walk(root: string, dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(join(root, dir), { withFileTypes: true })) {
    const path = dir === '' ? entry.name : `${dir}/${entry.name}`;
    if (dir === '' && entry.name === '.git') continue;
    if (entry.isDirectory()) out.push(...(await walk(root, path)));
    else out.push(path);
  }
  return out;
}

export async function diffWorkspace(state: WorkspaceState): Promise<WorkspaceDiff> {
  const diff: WorkspaceDiff = { files: [], deletions: [], written: {}, refused: [], notes: [] };
  for (const path of [...(await candidatePaths(state))].sort()) {
    const before = state.files[path];
    const full = join(state.dir, path);
    const stat = await lstat(full).catch(() => null);
    if (stat === null || stat.isDirectory()) {
      if (before) diff.deletions.push(path);
      continue;
    }
    if (stat.isSymbolicLink()) {
      const sha = blobSha(Buffer.from(await readlink(full), 'utf8'));
      if (before?.mode === '120000' && before.sha === sha) continue;
      diff.refused.push(
        `${path}: a symlink; push_files writes files only (and a new symlink breaks the perimeter)`,
      );
      continue;
    }
    if (!stat.isFile()) continue;
    const bytes = new Uint8Array(await readFile(full));
    const sha = blobSha(bytes);
    const mode = (stat.mode & 0o111) !== 0 ? '100755' : '100644';
    if (before?.sha === sha && before.mode !== '120000') {
      if (before.mode !== mode)
        diff.notes.push(`${path}: mode changed to ${mode}, not pushed (push_files keeps modes)`);
      continue;
    }
    // as text only when the text gives back the same bytes (a byte-order mark would be lost otherwise)
    const text = decodeText(bytes);
    diff.files.push(
      text !== null && Buffer.from(text, 'utf8').equals(bytes)
        ? { path, content: text }
        : { path, content: Buffer.from(bytes).toString('base64'), encoding: 'base64' },
    );
    diff.written[path] = { mode, sha };
  }
  return diff;
}
