import { appendFile, chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Every ref change the stand-in sees (REST writes, git pushes, commitToBare) is appended to a log kept
 * inside the bare repository, one line per change: `timestamp old new ref actor`. Pushes through
 * `git http-backend` reach it through a post-receive hook that writes only when the server asks it to.
 */
export const ACTIVITY_FILE = 'fake-github-activity.log';
export const ACTIVITY_ENV = 'FAKE_GITHUB_ACTIVITY';
export const ACTOR_ENV = 'FAKE_GITHUB_ACTOR';

const HOOK = `#!/bin/sh
# Installed by test/fake-github: records pushes for the Activity API.
[ -n "$${ACTIVITY_ENV}" ] || exit 0
now=$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ)
while read old new ref; do
  printf '%s %s %s %s %s\\n' "$now" "$old" "$new" "$ref" "$${ACTOR_ENV}" >> "$${ACTIVITY_ENV}"
done
`;

export interface RefChange {
  id: number;
  timestamp: string;
  before: string;
  after: string;
  ref: string;
  actor: string | null;
}

export function activityPath(dir: string): string {
  return join(dir, ACTIVITY_FILE);
}

export async function installActivityHook(dir: string): Promise<void> {
  const hooks = join(dir, 'hooks');
  await mkdir(hooks, { recursive: true });
  const path = join(hooks, 'post-receive');
  await writeFile(path, HOOK);
  await chmod(path, 0o755);
}

export async function recordRefChange(
  dir: string,
  change: { before: string; after: string; ref: string; actor: string | null },
): Promise<void> {
  const line = [new Date().toISOString(), change.before, change.after, change.ref, change.actor ?? ''];
  await appendFile(activityPath(dir), `${line.join(' ')}\n`);
}

export async function readRefChanges(dir: string): Promise<RefChange[]> {
  let text: string;
  try {
    text = await readFile(activityPath(dir), 'utf8');
  } catch {
    return [];
  }
  const changes: RefChange[] = [];
  for (const line of text.split('\n')) {
    const [timestamp, before, after, ref, actor] = line.split(' ');
    if (!timestamp || !before || !after || !ref || before === after) continue;
    changes.push({ id: changes.length + 1, timestamp, before, after, ref, actor: actor ? actor : null });
  }
  return changes;
}
