import * as core from '@actions/core';
import { State } from './constants.js';

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

/** A store that keeps values in memory, for running main and post in one process (tests, the CLI). */
export function memoryState(initial: Partial<Record<State, string>> = {}): StateStore {
  const values = new Map<State, string>(Object.entries(initial) as [State, string][]);
  return {
    save: (key, value) => void values.set(key, value),
    get: (key) => values.get(key) ?? '',
  };
}

/** A store that keeps nothing: for a gateway started without a post step. */
export const nullState: StateStore = {
  save: () => undefined,
  get: () => '',
};
