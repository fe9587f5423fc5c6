import { execFileSync } from 'node:child_process';

/** The top-level directory of the git checkout containing `cwd`, or null outside one (or without git). */
export function tryGitToplevel(cwd: string): string | null {
  try {
    const out = execFileSync('git', ['rev-parse', '--show-toplevel'], {
      cwd,
      stdio: ['ignore', 'pipe', 'ignore'],
      encoding: 'utf8',
    });
    return out.trim() || null;
  } catch {
    return null;
  }
}

/** Tracked files of the checkout at `root`, exactly as git stores their names. */
export function listTrackedFiles(root: string): string[] {
  const out = execFileSync('git', ['ls-files', '-z'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
    maxBuffer: 1024 * 1024 * 1024,
  });
  return out.split('\0').filter((name) => name !== '');
}
