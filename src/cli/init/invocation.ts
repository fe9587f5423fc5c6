import { accessSync, constants, realpathSync } from 'node:fs';
import { shellWord } from '../../clients/client-config.js';
import { delimiter, isAbsolute, join, relative } from 'node:path';

/**
 * The command a user types to run this CLI again, as they ran it: `perimeter` when that name on PATH is the
 * file they ran, else `node <the file>` (relative to their directory when that is shorter), so the commands
 * init's closing lines name work when pasted.
 */
export function commandOf(script: string | undefined, cwd: string, path = process.env.PATH ?? ''): string {
  if (script === undefined || script === '') return 'perimeter';
  const real = tryRealpath(script);
  for (const dir of path.split(delimiter)) {
    if (dir === '' || !isAbsolute(dir)) continue;
    const candidate = join(dir, 'perimeter');
    if (real !== null && tryRealpath(candidate) === real && executable(candidate)) return 'perimeter';
  }
  const rel = relative(cwd, script);
  const shown = rel !== '' && rel.length < script.length ? rel : script;
  const runner = /\.[cm]?ts$/.test(script) ? 'npx tsx' : 'node';
  return `${runner} ${shellWord(shown)}`;
}

function tryRealpath(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
