import { cpSync, mkdirSync, mkdtempSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { actionDir, REPO_ROOT } from '@perimeter/test-rigs';

export interface ForkClone {
  /** the clone's directory */
  dir: string;
  /** its HEAD, the commit a workflow init writes from it is pinned to */
  head: string;
  /** bin/perimeter.js in it, the file a user runs */
  cli: string;
}

/**
 * A clone of a fork of Perimeter as a user has it after `git clone https://github.com/octo-fork/perimeter`:
 * a git repository holding the CLI (bin/perimeter.js and the built dist/cli), the action's action.yml files,
 * an `origin` remote on github.com and the remote-tracking branch the clone fetched. `origin: null` leaves
 * the remote out, `pushed: false` the remote-tracking branch (a HEAD GitHub may not have).
 */
export async function makeForkClone(
  options: { origin?: string | null; pushed?: boolean } = {},
): Promise<ForkClone> {
  const built = await actionDir();
  const dir = mkdtempSync(join(tmpdir(), 'perimeter-fork-'));
  for (const sub of ['bin', 'dist', 'verify', 'apply']) mkdirSync(join(dir, sub));
  cpSync(join(REPO_ROOT, 'bin', 'perimeter.js'), join(dir, 'bin', 'perimeter.js'));
  cpSync(join(built, 'dist', 'cli'), join(dir, 'dist', 'cli'), { recursive: true });
  for (const file of ['action.yml', 'verify/action.yml', 'apply/action.yml'])
    cpSync(join(REPO_ROOT, file), join(dir, file));
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('-c', 'user.name=fork', '-c', 'user.email=fork@example.com', 'commit', '-q', '-m', 'fork');
  const origin = options.origin === undefined ? 'https://github.com/octo-fork/perimeter.git' : options.origin;
  if (origin !== null) {
    git('remote', 'add', 'origin', origin);
    if (options.pushed !== false) git('update-ref', 'refs/remotes/origin/main', 'HEAD');
  }
  return { dir, head: git('rev-parse', 'HEAD'), cli: join(dir, 'bin', 'perimeter.js') };
}
