import { statSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * The git binary a trusted process runs: by an absolute path, never by PATH (a directory on PATH may be one
 * the agent can write), and only when the file and its directory are root's and writable by no one else, so
 * no program the agent wrote or placed runs with the token. Null when no such git is installed: the caller
 * reads another way.
 */
const CANDIDATES = ['/usr/bin/git', '/usr/local/bin/git', '/bin/git', '/opt/homebrew/bin/git'];

let found: string | null | undefined;

export function trustedGit(): string | null {
  if (found !== undefined) return found;
  found = CANDIDATES.find((path) => rootOwned(path) && rootOwned(dirname(path))) ?? null;
  return found;
}

/** owned by root and not writable by group or others (lstat's view for the file: a symlink is refused) */
function rootOwned(path: string): boolean {
  try {
    const stat = statSync(path);
    return stat.uid === 0 && (stat.mode & 0o022) === 0 && (stat.isDirectory() || stat.isFile());
  } catch {
    return false;
  }
}
