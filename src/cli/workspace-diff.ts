import { constants, type Stats } from 'node:fs';
import { lstat, open, readdir, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import picomatch from 'picomatch';
import { blobSha } from '../github/index.js';
import type { WorkspaceState, WorkspaceStateFile } from '../clients/workspace-state.js';
import { restoreHidden } from '../clients/workspace-restore.js';
import { OPEN } from '../safety/hidden-markup.js';
import { decodeText } from '../safety/binary-text.js';

/** What changed in a workspace since it was handed out (or last pushed), as push_files takes it. */
export interface WorkspaceDiff {
  files: Array<{ path: string; content: string; encoding?: 'base64' }>;
  deletions: string[];
  /** the blob and mode of each file written, for the state after a push */
  written: Record<string, WorkspaceStateFile>;
  /** changes push_files cannot carry: a push with any of these is refused before it is sent */
  refused: string[];
  /** changes left out, said so (a mode change alone) */
  notes: string[];
}

/**
 * The directory as it is on disk, read by the push command, which runs with the step's secrets: no program runs
 * in it (git would run the agent's `.git/config`: an fsmonitor, a clean filter) and nothing in it is followed.
 * Every entry is taken for what lstat says it is: a symlink is a symlink wherever it points, a directory
 * replaced by a symlink holds nothing, and `.git` is never read. Added files a `.gitignore` in the directory
 * names are left home (its patterns are data: they only choose what the agent's own push leaves out); a symlink
 * is judged whether or not a `.gitignore` names it.
 */
interface Entry {
  stat: Stats;
  ignored: boolean;
}

/** A .gitignore's patterns, as picomatch matchers relative to the directory that holds it. */
interface IgnoreRules {
  base: string;
  rules: Array<{ negate: boolean; dirOnly: boolean; match: (path: string) => boolean }>;
}

function parseIgnore(base: string, text: string): IgnoreRules {
  const rules: IgnoreRules['rules'] = [];
  for (const raw of text.split(/\r?\n/)) {
    let line = raw.replace(/(?<!\\)\s+$/, '');
    if (line === '' || line.startsWith('#')) continue;
    const negate = line.startsWith('!');
    if (negate) line = line.slice(1);
    const dirOnly = line.endsWith('/');
    if (dirOnly) line = line.replace(/\/+$/, '');
    // a pattern with a slash before its end is anchored to the .gitignore's directory; else any depth
    const anchored = line.includes('/');
    const glob = anchored ? line.replace(/^\//, '') : `**/${line}`;
    rules.push({ negate, dirOnly, match: picomatch(glob, { dot: true }) });
  }
  return { base, rules };
}

/** Whether the entry at `path` is ignored by the rules in force (the deepest .gitignore decides last). */
function isIgnored(stack: IgnoreRules[], path: string, isDir: boolean, parentIgnored: boolean): boolean {
  let ignored = parentIgnored;
  for (const { base, rules } of stack) {
    const rel = base === '' ? path : path.slice(base.length + 1);
    for (const rule of rules) if ((!rule.dirOnly || isDir) && rule.match(rel)) ignored = !rule.negate;
  }
  return ignored;
}

async function walk(root: string): Promise<Map<string, Entry>> {
  const found = new Map<string, Entry>();
  const visit = async (dir: string, stack: IgnoreRules[], dirIgnored: boolean): Promise<void> => {
    const full = dir === '' ? root : join(root, dir);
    const names = (await readdir(full)).sort();
    let rules = stack;
    if (names.includes('.gitignore')) {
      const text = await readRegular(join(full, '.gitignore'));
      if (text !== null) rules = [...stack, parseIgnore(dir, text.toString('utf8'))];
    }
    for (const name of names) {
      if (dir === '' && name === '.git') continue;
      const path = dir === '' ? name : `${dir}/${name}`;
      const stat = await lstat(join(root, path));
      const ignored = isIgnored(rules, path, stat.isDirectory(), dirIgnored);
      if (stat.isDirectory()) await visit(path, rules, ignored);
      else found.set(path, { stat, ignored });
    }
  };
  await visit('', [], false);
  return found;
}

/** A regular file's bytes, opened without following a link; null when it is no longer a regular file. */
async function readRegular(path: string, expected?: Stats): Promise<Buffer | null> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(
    () => null,
  );
  if (handle === null) return null;
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return null;
    if (expected && (stat.ino !== expected.ino || stat.dev !== expected.dev)) return null;
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** What marks a placeholder or a hidden span in a shown text: `[hidden: <kind>]`, and the marks' opening. */
const MARKS = ['[hidden: ', OPEN];

export async function diffWorkspace(state: WorkspaceState): Promise<WorkspaceDiff> {
  const diff: WorkspaceDiff = { files: [], deletions: [], written: {}, refused: [], notes: [] };
  const onDisk = await walk(state.dir);
  const paths = new Set([...Object.keys(state.files), ...onDisk.keys()]);
  for (const path of [...paths].sort()) {
    const before = state.files[path];
    const entry = onDisk.get(path);
    if (entry === undefined) {
      if (before) diff.deletions.push(path);
      continue;
    }
    const { stat } = entry;
    if (stat.isSymbolicLink()) {
      const sha = blobSha(Buffer.from(await readlink(join(state.dir, path)), 'utf8'));
      if (before?.mode === '120000' && before.sha === sha) continue;
      diff.refused.push(
        `${path}: a symlink; push_files writes files only (and a new symlink breaks the perimeter)`,
      );
      continue;
    }
    // a handed-out file is compared whatever a .gitignore says; an added one only when nothing ignores it
    if (!stat.isFile() || (entry.ignored && !before)) continue;
    const read = await readRegular(join(state.dir, path), stat);
    if (read === null) {
      diff.refused.push(`${path}: changed while it was read`);
      continue;
    }
    const bytes = new Uint8Array(read);
    const sha = blobSha(bytes);
    const mode = (stat.mode & 0o111) !== 0 ? '100755' : '100644';
    if (before?.sha === sha && before.mode !== '120000') {
      if (before.mode !== mode)
        diff.notes.push(`${path}: mode changed to ${mode}, not pushed (push_files keeps modes)`);
      continue;
    }
    // as text only when the text gives back the same bytes (a byte-order mark would be lost otherwise)
    const text = decodeText(bytes);
    if (before?.shown) {
      // handed out with placeholders: the lines left as they were go back as the values they stand for
      const restored =
        text === null ? null : restoreHidden(before.shown.text, before.shown.originals, text, MARKS);
      if (restored === null || 'refused' in restored) {
        const why = restored?.refused ?? ['no longer text, so the hidden values it held cannot be put back'];
        for (const reason of why) diff.refused.push(`${path}: ${reason}`);
        continue;
      }
      diff.files.push({ path, content: restored.text });
      diff.written[path] = { mode, sha, shown: { text: text!, originals: restored.originals } };
      continue;
    }
    diff.files.push(
      text !== null && Buffer.from(text, 'utf8').equals(bytes)
        ? { path, content: text }
        : { path, content: Buffer.from(bytes).toString('base64'), encoding: 'base64' },
    );
    diff.written[path] = { mode, sha };
  }
  return diff;
}
