import { diffArrays } from 'diff';
import type { RepoReads } from '../../github/index.js';

/** One state of a file: the commit that made it, and its lines (null where the file is not there as text). */
export interface FileVersion {
  commit: string;
  lines: string[] | null;
}

/**
 * Which commit brought each line of the newest version, from the versions newest first, each compared with
 * the one before it (`git blame --first-parent` in spirit: a line is owed to the newest commit in the list
 * whose version has it and whose older neighbour does not). Lines still unowed when the versions run out are
 * the oldest version's when the list is `complete` (that commit made the file), else null: older than what
 * was examined. Pure: the caller reads the versions.
 */
export function blameLines(versions: FileVersion[], complete: boolean): Array<string | null> {
  const newest = versions[0]?.lines ?? [];
  const owners: Array<string | null | undefined> = newest.map(() => undefined);
  // where each newest line sits in the version being compared, -1 once owned
  let at = newest.map((_, i) => i);
  for (let k = 0; k + 1 < versions.length && at.some((i) => i >= 0); k++) {
    const newer = versions[k]!;
    const older = versions[k + 1]!.lines;
    if (newer.lines === null) break;
    if (older === null) {
      at.forEach((i, line) => i >= 0 && (owners[line] = newer.commit));
      at = at.map(() => -1);
      break;
    }
    // newer index -> older index, or -1 for a line the newer commit added
    const back = new Array<number>(newer.lines.length).fill(-1);
    let o = 0;
    let n = 0;
    for (const part of diffArrays(older, newer.lines)) {
      const count = part.value.length;
      if (part.added) n += count;
      else if (part.removed) o += count;
      else for (let j = 0; j < count; j++) back[n++] = o++;
    }
    at = at.map((i, line) => {
      if (i < 0) return -1;
      if (back[i] === -1) owners[line] = newer.commit;
      return back[i]!;
    });
  }
  const last = versions.at(-1)?.commit ?? null;
  return owners.map((owner, line) =>
    owner !== undefined ? owner : at[line]! >= 0 ? (complete ? last : null) : null,
  );
}

/** The blob at `path` in a tree (by SHA), walking one listing per directory; null where no file is there. */
export async function blobAt(
  reads: Pick<RepoReads, 'getTree'>,
  tree: string,
  path: string,
): Promise<{ sha: string; size?: number | undefined } | null> {
  const names = path.split('/');
  let sha = tree;
  for (const [i, name] of names.entries()) {
    const entry = (await reads.getTree(sha)).find((e) => e.path === name);
    if (!entry) return null;
    if (i === names.length - 1) return entry.type === 'blob' ? { sha: entry.sha, size: entry.size } : null;
    if (entry.type !== 'tree') return null;
    sha = entry.sha;
  }
  return null;
}
