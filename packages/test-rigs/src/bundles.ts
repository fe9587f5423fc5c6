/**
 * The action directory end-to-end tests run: the repository itself when the committed dist/ matches the
 * sources (dist/sources.json), else a fresh build of the bundles in a temporary directory, made once per
 * source digest and shared by every test file. CI separately checks that dist/ is committed fresh.
 */
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { sourceDigest } from '../../../scripts/source-digest.mjs';
import { REPO_ROOT } from './runner.js';

const ENTRIES = ['main', 'post', 'gateway', 'apply', 'verify', 'cli'];
/** the sub-actions, each an action.yml in its own folder whose `main` is ../dist/<name>/index.js */
const SUB_ACTIONS = ['apply', 'verify'];

function committedDigest(): string | null {
  try {
    return (
      (JSON.parse(readFileSync(join(REPO_ROOT, 'dist', 'sources.json'), 'utf8')) as { digest?: string })
        .digest ?? null
    );
  } catch {
    return null;
  }
}

export async function actionDir(): Promise<string> {
  const digest = sourceDigest(REPO_ROOT);
  if (
    committedDigest() === digest &&
    ENTRIES.every((e) => existsSync(join(REPO_ROOT, 'dist', e, 'index.js')))
  ) {
    return REPO_ROOT;
  }
  const dir = join(tmpdir(), `perimeter-action-${digest.slice(0, 16)}`);
  const done = join(dir, 'complete');
  const lock = `${dir}.lock`;
  for (;;) {
    if (existsSync(done)) return dir;
    try {
      mkdirSync(lock);
    } catch {
      // another test file is building; a lock older than 10 minutes belongs to a dead build
      const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 600_000) rmSync(lock, { recursive: true, force: true });
      await sleep(250);
      continue;
    }
    try {
      process.stderr.write(`dist/ is stale: building fresh bundles for the end-to-end tests in ${dir}\n`);
      rmSync(dir, { recursive: true, force: true });
      removeOldBuilds();
      execFileSync(
        process.execPath,
        [join(REPO_ROOT, 'scripts', 'bundle.mjs'), '--out', join(dir, 'dist'), ...ENTRIES],
        {
          stdio: ['ignore', 'ignore', 'inherit'],
        },
      );
      copyFileSync(join(REPO_ROOT, 'action.yml'), join(dir, 'action.yml'));
      for (const sub of SUB_ACTIONS) {
        mkdirSync(join(dir, sub), { recursive: true });
        copyFileSync(join(REPO_ROOT, sub, 'action.yml'), join(dir, sub, 'action.yml'));
      }
      writeFileSync(done, digest);
      return dir;
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}

/** Builds for sources that changed over an hour ago are not coming back. */
function removeOldBuilds(): void {
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith('perimeter-action-')) continue;
    const path = join(tmpdir(), name);
    const age = Date.now() - (statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
    if (age > 3_600_000) rmSync(path, { recursive: true, force: true });
  }
}
