import { lstatSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The directories trusted processes (main, post, the gateway, the push command) look programs up in: root's,
 * and writable by root only. Never /usr/local/bin, which GitHub's images make writable by everyone and which
 * sudo's secure_path puts first.
 */
export const TRUSTED_PATH = '/usr/bin:/bin:/usr/sbin:/sbin';

/**
 * The absolute path of `name` in `path`, checked: the file and every directory above it (links resolved)
 * root's and writable by no group or other, so no user of the job can have put it there or changed it; else
 * why each one found was refused. A trusted process runs a program by this path, never by PATH.
 */
export function findTrustedBinary(
  name: string,
  path = TRUSTED_PATH,
): { path: string } | { problems: string[] } {
  const problems: string[] = [];
  for (const dir of path.split(':')) {
    let real: string;
    try {
      real = realpathSync(join(dir, name));
    } catch {
      continue;
    }
    const bad = untrustedOwner(real);
    if (bad === null) return { path: real };
    problems.push(bad);
  }
  return { problems };
}

/** Why `path` (resolved) could have been written by someone other than root, or null. */
function untrustedOwner(path: string): string | null {
  for (let p = path; ; p = dirname(p)) {
    const stat = lstatSync(p);
    if (stat.uid !== 0) return `${p} belongs to uid ${stat.uid}, not root`;
    // a sticky directory (/tmp) still lets others create files in it, but not replace root's
    if ((stat.mode & 0o022) !== 0 && !(stat.isDirectory() && (stat.mode & 0o1000) !== 0 && p !== path))
      return `${p} is writable by others (mode ${(stat.mode & 0o7777).toString(8)})`;
    if (p === dirname(p)) return null;
  }
}

let git: string | null | undefined;

/** The git a trusted process runs (findTrustedBinary), or null when none is installed: the caller reads another way. */
export function trustedGit(): string | null {
  if (git !== undefined) return git;
  const found = findTrustedBinary('git');
  git = 'path' in found ? found.path : null;
  return git;
}
