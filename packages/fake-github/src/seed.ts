import { mkdir } from 'node:fs/promises';
import { installHooks, recordRefChange } from './activity-log.js';
import { git, gitText, ZERO_SHA } from './git/git.js';

/**
 * The actor recorded in the activity list for commits made by seedRepo and commitToBare: the stand-in's
 * default token's login, so a commitToBare is a push with the job's own token (pass `actor` for someone else).
 */
export const SEED_ACTOR = 'github-actions[bot]';

/** Creates the bare repository at `dir` when missing (HEAD on `branch`); safe to call on an existing one. */
export async function initBare(dir: string, branch = 'main'): Promise<void> {
  await mkdir(dir, { recursive: true });
  await git(dir, ['init', '--quiet', '--bare', `--initial-branch=${branch}`]);
  await installHooks(dir);
}

/**
 * Creates a bare repo at `dir` with one commit of `files` on `branch` (default 'main'); returns the commit sha.
 * The activity list records the branch's creation an hour ago: a repository exists before the jobs run on it.
 */
export async function seedRepo(
  dir: string,
  files: Record<string, string | Uint8Array>,
  options: { branch?: string; message?: string } = {},
): Promise<string> {
  const branch = options.branch ?? 'main';
  await initBare(dir, branch);
  return importCommit(
    dir,
    branch,
    files,
    options.message ?? 'Initial commit',
    true,
    SEED_ACTOR,
    SEEDED_AGO_MS,
  );
}

/** Commits `files` (null = delete) on top of `branch` directly in the bare repo (like a push); returns new sha. */
export async function commitToBare(
  dir: string,
  branch: string,
  files: Record<string, string | Uint8Array | null>,
  message = 'Direct commit',
  options: { actor?: string | null } = {},
): Promise<string> {
  return importCommit(
    dir,
    branch,
    files,
    message,
    false,
    options.actor === undefined ? SEED_ACTOR : options.actor,
  );
}

async function tryHead(dir: string, ref: string): Promise<string | null> {
  try {
    return (await gitText(dir, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`])).trim();
  } catch {
    return null;
  }
}

const SEEDED_AGO_MS = 3_600_000;

async function importCommit(
  dir: string,
  branch: string,
  files: Record<string, string | Uint8Array | null>,
  message: string,
  replaceTree: boolean,
  actor: string | null,
  agoMs = 0,
): Promise<string> {
  const ref = `refs/heads/${branch}`;
  const before = await tryHead(dir, ref);
  const seconds = Math.floor(Date.now() / 1000);
  const parts: Buffer[] = [];
  const text = (value: string): void => void parts.push(Buffer.from(value, 'utf8'));
  const data = (value: string | Uint8Array): void => {
    const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : Buffer.from(value);
    text(`data ${bytes.length}\n`);
    parts.push(bytes);
    text('\n');
  };
  text(`commit ${ref}\ncommitter Octocat <octocat@users.noreply.github.com> ${seconds} +0000\n`);
  data(message);
  if (before) text(`from ${before}\n`);
  if (replaceTree) text('deleteall\n');
  for (const [path, content] of Object.entries(files)) {
    if (/[\n"]/.test(path) || path.startsWith('/'))
      throw new Error(`unsupported path for seeding: ${JSON.stringify(path)}`);
    if (content === null) {
      text(`D ${path}\n`);
    } else {
      text(`M 100644 inline ${path}\n`);
      data(content);
    }
  }
  text('\n');
  // glibc otherwise grows and trims the heap once per object (brk storms): 3x slower on 100,000 files.
  const env = { MALLOC_TOP_PAD_: String(128 << 20), MALLOC_TRIM_THRESHOLD_: String(256 << 20) };
  await git(dir, ['fast-import', '--quiet', '--force'], { input: Buffer.concat(parts), env });
  const after = await tryHead(dir, ref);
  if (!after) throw new Error(`fast-import did not create ${ref}`);
  await recordRefChange(dir, {
    before: before ?? ZERO_SHA,
    after,
    ref,
    actor,
    at: new Date(Date.now() - agoMs),
  });
  return after;
}
