import { posix } from 'node:path';
import type { TreeEntry } from '../../github/index.js';
import { servesContent, type Perimeter } from '../../policy/index.js';
import type { RepoView } from './repo-view.js';
import type { ReadableView, TreeIndex } from './tree-index.js';
import type { TrustedInstructions } from './trusted-instructions.js';

/** A file of a workspace as git has it: a regular file, an executable or a symlink. */
export interface WorkspaceFile {
  path: string;
  mode: '100644' | '100755' | '120000';
  sha: string;
  size?: number | undefined;
}

export interface WorkspacePlan {
  /** every file the perimeter reads, with its mode and blob */
  files: WorkspaceFile[];
  /** readable entries that are not handed out, and why (a submodule) */
  leftOut: Array<{ path: string; reason: string }>;
  /** the directories holding something readable, for checking symlink targets */
  readable: ReadableView;
}

/**
 * What a perimeter's workspace holds: the files get_tree lists and get_file serves, from the same tree (the
 * branch's, with agent instruction files as the trusted ref has them) and the same decision
 * (TreeIndex.readable, which asks the perimeter's canRead). No second rule of what may be read lives here.
 */
export async function planWorkspace(
  view: RepoView,
  instructions: TrustedInstructions | null,
  perimeter: Perimeter,
  head: string,
): Promise<WorkspacePlan> {
  const { index } = await view.snapshotAt(head);
  return planFromIndex(instructions ? await instructions.overlay(perimeter, index) : index, perimeter);
}

export function planFromIndex(index: TreeIndex, perimeter: Perimeter): WorkspacePlan {
  const readable = index.readable(perimeter);
  const files: WorkspaceFile[] = [];
  const leftOut: WorkspacePlan['leftOut'] = [];
  // a perimeter whose tools serve no content (a writer without get_file) is handed out none either
  if (!servesContent(perimeter.tools)) {
    if (readable.files.size > 0)
      leftOut.push({
        path: '',
        reason:
          'no file is handed out: no tool of this perimeter serves file content (get_file, search, ...)',
      });
    return { files, leftOut, readable };
  }
  for (const path of [...readable.files].sort()) {
    const entry = index.get(path) as TreeEntry;
    if (entry.type === 'commit') {
      leftOut.push({ path, reason: `submodule at commit ${entry.sha}: not fetched` });
      continue;
    }
    const mode = entry.mode === '100755' || entry.mode === '120000' ? entry.mode : '100644';
    files.push({ path, mode, sha: entry.sha, size: entry.size });
  }
  return { files, leftOut, readable };
}

/**
 * The symlinks to leave out: one whose target, resolved from its folder without following anything, leaves
 * the repository or names nothing the perimeter reads (a hidden file, a file outside `read`), and one that
 * points at a symlink left out. A target that is not text is left out too. Returns path -> reason.
 */
export function symlinksOutsideView(
  plan: Pick<WorkspacePlan, 'files' | 'readable'>,
  targets: Map<string, string | null>,
): Map<string, string> {
  const out = new Map<string, string>();
  const links = plan.files.filter((f) => f.mode === '120000');
  const resolved = new Map<string, string | null>();
  for (const link of links) {
    const target = targets.get(link.path) ?? null;
    if (target === null || target === '' || target.includes('\0') || posix.isAbsolute(target)) {
      resolved.set(link.path, null);
      continue;
    }
    const joined = posix.normalize(posix.join(posix.dirname(link.path), target));
    resolved.set(
      link.path,
      joined === '.' ? '' : joined.startsWith('../') || joined === '..' ? null : joined,
    );
  }
  for (const [path, to] of resolved) {
    if (to === null) out.set(path, `symlink to ${JSON.stringify(targets.get(path))}: outside the repository`);
    else if (!plan.readable.files.has(to) && !plan.readable.dirs.has(to))
      out.set(path, `symlink to ${JSON.stringify(targets.get(path))}: not in what this perimeter reads`);
  }
  // a link to a link that is left out points outside the view too, however long the chain
  for (let changed = true; changed;) {
    changed = false;
    for (const [path, to] of resolved) {
      if (out.has(path) || to === null || !out.has(to)) continue;
      out.set(path, `symlink to ${JSON.stringify(targets.get(path))}: a symlink left out`);
      changed = true;
    }
  }
  return out;
}
