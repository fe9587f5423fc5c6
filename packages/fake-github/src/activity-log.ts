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

export const NO_WORKFLOWS_ENV = 'FAKE_GITHUB_NO_WORKFLOWS';
/** The rulesets' lock rules for pre-receive, one `type pattern` a line (see lockPatterns in rules/ruleset.ts). */
export const LOCKS_ENV = 'FAKE_GITHUB_LOCKS';
/** Where a token without the `workflows` permission may not add or change files. */
export const WORKFLOWS_DIR = '.github/workflows';

const POST_RECEIVE = `#!/bin/sh
# Installed by the fake-github stand-in: records pushes for the Activity API.
[ -n "$${ACTIVITY_ENV}" ] || exit 0
now=$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ)
while read old new ref; do
  printf '%s %s %s %s %s\\n' "$now" "$old" "$new" "$ref" "$${ACTOR_ENV}" >> "$${ACTIVITY_ENV}"
done
`;

const PRE_RECEIVE = `#!/bin/sh
# Installed by the fake-github stand-in: refs/pull/* are GitHub's own (hidden refs no push may update), a ruleset's
# creation, update and deletion rules lock the refs they bind, and a token without the workflows permission
# cannot push workflow changes.
zero=0000000000000000000000000000000000000000
refused=0
while read old new ref; do
  case "$ref" in refs/pull/*) echo "deny updating a hidden ref: $ref"; refused=1; continue ;; esac
  if [ "$old" = $zero ]; then change=creation; elif [ "$new" = $zero ]; then change=deletion; else change=update; fi
  locked=$(printf '%s\n' "$${LOCKS_ENV}" | while read -r type pattern; do
    [ "$type" = "$change" ] || continue
    case "$ref" in $pattern) echo yes; break ;; esac
  done)
  if [ -n "$locked" ]; then
    case $change in
      creation) echo "Cannot create ref due to creations being restricted." ;;
      deletion) echo "Cannot delete this protected ref." ;;
      *) echo "Cannot update this protected ref." ;;
    esac
    refused=1
    continue
  fi
  [ "$${NO_WORKFLOWS_ENV}" = 1 ] || continue
  [ "$new" = 0000000000000000000000000000000000000000 ] && continue
  files=$(git log --format= --name-only -m "$new" --not --all -- ${WORKFLOWS_DIR} | sort -u)
  [ -n "$files" ] || continue
  printf '%s\\n' "$files" | while read -r file; do
    echo "refusing to allow a GitHub App to create or update workflow \\\`$file\\\` without \\\`workflows\\\` permission"
  done
  refused=1
done
exit $refused
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

/** post-receive records pushes; pre-receive refuses workflow changes when the server says so. */
export async function installHooks(dir: string): Promise<void> {
  const hooks = join(dir, 'hooks');
  await mkdir(hooks, { recursive: true });
  for (const [name, text] of [
    ['post-receive', POST_RECEIVE],
    ['pre-receive', PRE_RECEIVE],
  ] as const) {
    await writeFile(join(hooks, name), text);
    await chmod(join(hooks, name), 0o755);
  }
}

/** `at`: when GitHub recorded it, default now (a seeded repository's history is older than any test's job). */
export async function recordRefChange(
  dir: string,
  change: { before: string; after: string; ref: string; actor: string | null; at?: Date },
): Promise<void> {
  const line = [
    (change.at ?? new Date()).toISOString(),
    change.before,
    change.after,
    change.ref,
    change.actor ?? '',
  ];
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
