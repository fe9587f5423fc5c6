import * as core from '@actions/core';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { State } from '../constants.js';
import type { Settings } from '../inputs.js';

/** Values main hands to post. The runner keeps them outside the job's reach until post starts. */
export interface StateStore {
  save(key: State, value: string): void;
  /** '' when main never saved the key */
  get(key: State): string;
}

/** The runner's store: core.saveState in main, STATE_<key> in post. */
export const actionsState: StateStore = {
  save: (key, value) => core.saveState(key, value),
  get: (key) => core.getState(key),
};

const sealOf = (saved: Map<string, string>): string =>
  sha256(
    JSON.stringify([...saved].filter(([key]) => key !== State.Seal).sort(([a], [b]) => (a < b ? -1 : 1))),
  );

/**
 * Main's store: each save also saves the seal anew, over everything saved so far (the runner hands post the last
 * value of each key), so post can tell main's state from variables of the same names a step exported. The
 * runner puts what main saved over an exported `STATE_<key>`, but not one main never saved: `STATE_stagePath`
 * in GITHUB_ENV reached post as if main had staged writes.
 */
export function sealingState(store: StateStore): StateStore {
  const saved = new Map<string, string>();
  return {
    save: (key, value) => {
      saved.set(key, value);
      store.save(key, value);
      store.save(State.Seal, sealOf(saved));
    },
    get: (key) => store.get(key),
  };
}

/**
 * Post's check of the seal, over every STATE_ variable in its environment: null when they are exactly what
 * main saved (or there are none: main saved nothing), else what is wrong.
 */
export function brokenSeal(env: NodeJS.ProcessEnv = process.env): string | null {
  const saved = new Map<string, string>();
  for (const [name, value] of Object.entries(env))
    if (name.startsWith('STATE_') && value !== undefined) saved.set(name.slice('STATE_'.length), value);
  if (saved.size === 0) return null;
  const seal = saved.get(State.Seal);
  if (seal === undefined) return "post's state has no seal from main, so it is not main's";
  if (seal !== sealOf(saved))
    return `post's state is not what main saved (a step set STATE_ variables: ${[...saved.keys()]
      .filter((key) => key !== State.Seal)
      .sort()
      .join(', ')})`;
  return null;
}

export const CONFIG_FILE_KEYS = { path: State.ConfigPath, digest: State.ConfigDigest };
export const START_REFS_KEYS = { path: State.StartRefsPath, digest: State.StartRefsDigest };

/**
 * The settings that decide the verdict, fixed by main: post takes them from the state rather than from its
 * environment, whatever later steps export.
 */
const JOB_SETTING_KEYS = [
  'owner',
  'repo',
  'apiUrl',
  'runUrl',
  'repositoryUrl',
  'directPushes',
  'statusContext',
  'failOnViolation',
  'ignoreRefs',
  'receiptBy',
  'receiptAs',
] as const satisfies ReadonlyArray<keyof Settings>;

export type JobSettings = Pick<Settings, (typeof JOB_SETTING_KEYS)[number]>;

export function jobSettingsOf(settings: Settings): JobSettings {
  return Object.fromEntries(JOB_SETTING_KEYS.map((key) => [key, settings[key]])) as JobSettings;
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/**
 * Hands text too large for a state variable (Linux caps one at 128 KiB) to post through a file: the file in
 * main's directory, its path and SHA-256 in the state, which the job's steps cannot change.
 */
export function saveStateFile(
  store: StateStore,
  keys: { path: State; digest: State },
  path: string,
  text: string,
): void {
  writeFileSync(path, text, { mode: 0o600 });
  store.save(keys.path, path);
  store.save(keys.digest, sha256(text));
}

/** The text main saved with saveStateFile; 'missing' or 'changed' when it cannot be trusted. */
export function readStateFile(
  store: StateStore,
  keys: { path: State; digest: State },
): string | 'missing' | 'changed' {
  const path = store.get(keys.path);
  let text: string;
  try {
    if (!path) return 'missing';
    text = readFileSync(path, 'utf8');
  } catch {
    return 'missing';
  }
  return sha256(text) === store.get(keys.digest) ? text : 'changed';
}
