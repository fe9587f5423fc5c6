import { mkdtempSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { HandOver } from '../../gateway/control.js';
import { State, STOP_GRACE_MS } from '../constants.js';
import type { StateStore } from './state.js';

/** What main saved for post with isolation: user (State.Isolation). */
export interface ControlAccess {
  controlPort: number;
  controlSecret: string;
}

/** The state keys that hold paths in the gateway's directory, which post reads from its copy. */
const PATH_KEYS = new Set<State>([
  State.ConfigPath,
  State.StartRefsPath,
  State.LedgerPath,
  State.LogPath,
  State.StagePath,
]);

/**
 * With isolation, post (the runner's user again) can neither signal the gateway nor read its directory: it asks
 * the gateway's control endpoint to stop and hand its files over, writes them to a directory of its own, and
 * reads main's paths there. The digests in the runner's state still decide whether main's files are intact;
 * the ledger's chain key still decides whether the ledger is.
 */
export async function takeOverGateway(
  store: StateStore,
  access: ControlAccess,
  tempDir: string,
  problems: string[],
): Promise<StateStore> {
  let handOver: HandOver;
  try {
    const response = await fetch(`http://127.0.0.1:${access.controlPort}/stop`, {
      method: 'POST',
      headers: { authorization: `Bearer ${access.controlSecret}` },
      signal: AbortSignal.timeout(STOP_GRACE_MS * 6),
    });
    if (!response.ok) throw new Error(`the gateway answered ${response.status} to the stop request`);
    handOver = (await response.json()) as HandOver;
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    problems.push(`the gateway was not running when the job ended (it died or was stopped: ${why})`);
    return store;
  }
  const dir = mkdtempSync(join(tempDir, 'perimeter-post-'));
  for (const [name, content] of Object.entries(handOver.files)) {
    writeFileSync(join(dir, basename(name)), Buffer.from(content, 'base64'), { mode: 0o600 });
  }
  return {
    save: (key, value) => store.save(key, value),
    get: (key) => {
      const value = store.get(key);
      return PATH_KEYS.has(key) && value !== '' ? join(dir, basename(value)) : value;
    },
  };
}
