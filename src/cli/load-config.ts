import { readFileSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import {
  compilePerimeter,
  DEFAULT_CONFIG_FILE,
  parseConfig,
  type Config,
  type Perimeter,
} from '../policy/index.js';
import { tryGitToplevel } from './git.js';

export interface LoadedConfig {
  /** the file's text, as read */
  text: string;
  config: Config;
  perimeters: Perimeter[];
  /** The git checkout holding the config file, or null. */
  root: string | null;
  /** The config's path inside the checkout (what the protected set protects). */
  configInRepo: string;
}

/** Thrown when the config file cannot be read at all; parse problems throw ConfigError instead. */
export class ConfigFileError extends Error {
  readonly code = 'config-unreadable';
}

export function loadConfig(configArg: string | undefined, cwd: string): LoadedConfig {
  const display = configArg ?? DEFAULT_CONFIG_FILE;
  const absolute = resolve(cwd, display);
  let text: string;
  try {
    text = readFileSync(absolute, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (code ?? String(error));
    const hint = configArg === undefined ? ' (run from the repository root or pass --config FILE)' : '';
    throw new ConfigFileError(`cannot read ${display}: ${why}${hint}`);
  }
  const config = parseConfig(text, display);
  const root = tryGitToplevel(dirname(absolute));
  let configInRepo = basename(absolute);
  if (root !== null) {
    const inside = relative(realpathSync(root), realpathSync(absolute));
    if (inside !== '' && !inside.startsWith('..') && !isAbsolute(inside))
      configInRepo = inside.split(sep).join('/');
  }
  const perimeters = config.perimeters.map((spec) => compilePerimeter(spec, configInRepo));
  return { text, config, perimeters, root, configInRepo };
}
