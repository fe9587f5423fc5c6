import { execFileSync } from 'node:child_process';

/** The top-level directory of the git checkout containing `cwd`, or null outside one (or without git). */
export function tryGitToplevel(cwd: string): string | null {
  try {
    const out = execFileSync('git', ['rev-parse', '--show-toplevel'], {
      cwd,
      stdio: ['ignore', 'pipe', 'ignore'],
      encoding: 'utf8',
    });
    return out.trim() || null;
  } catch {
    return null;
  }
}

/** Tracked files of the checkout at `root`, exactly as git stores their names. */
export function listTrackedFiles(root: string): string[] {
  const out = execFileSync('git', ['ls-files', '-z'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
    maxBuffer: 1024 * 1024 * 1024,
  });
  return out.split('\0').filter((name) => name !== '');
}

export interface CommitChanges {
  sha: string;
  subject: string;
  /** Every path the commit added, changed or deleted against its parent (renames as a delete and an add). */
  paths: string[];
}

/** Thrown when git refuses a range or a ref; the message is git's own first line. */
export class GitError extends Error {
  readonly code = 'git';
}

function git(root: string, args: string[], input?: string): string {
  try {
    return execFileSync('git', args, {
      cwd: root,
      input,
      stdio: ['pipe', 'pipe', 'pipe'],
      encoding: 'utf8',
      maxBuffer: 1024 * 1024 * 1024,
    });
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? '').trim();
    throw new GitError(stderr.split('\n')[0] || (error as Error).message);
  }
}

const SHA = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;
const STATUS = /^[ACDMRTUX][0-9]*$/;

/**
 * The non-merge commits of `range` (anything `git rev-list` takes: `main~50..main`, or `main` with
 * `maxCount`: its newest commits), newest first, with the paths each changed, and how many merges the same
 * commits also hold. Read with `-z --name-status`, so each path
 * follows a status token and no file name, however crafted, can pass for a commit boundary.
 */
export function listCommitChanges(
  root: string,
  range: string,
  maxCount?: number,
): { commits: CommitChanges[]; merges: number } {
  if (range.startsWith('-')) throw new GitError(`not a range: ${JSON.stringify(range)}`);
  const limit = maxCount === undefined ? [] : [`--max-count=${maxCount}`];
  // One listing with parents: a line of three or more ids is a merge, left out and counted.
  const lines = git(root, ['rev-list', '--parents', ...limit, range, '--'])
    .split('\n')
    .filter(Boolean);
  const shas = lines
    .map((line) => line.split(' '))
    .filter((ids) => ids.length <= 2)
    .map((ids) => ids[0]!);
  const merges = lines.length - shas.length;
  const subjects = new Map<string, string>();
  for (const line of git(root, ['log', '--no-merges', ...limit, '--format=%H %s', range, '--']).split('\n')) {
    if (line.length > 40) subjects.set(line.slice(0, 40), line.slice(41));
  }
  if (shas.length === 0) return { commits: [], merges };
  const tokens = git(
    root,
    ['diff-tree', '--stdin', '--always', '--root', '-r', '-z', '--name-status', '--no-renames'],
    `${shas.join('\n')}\n`,
  ).split('\0');
  const commits: CommitChanges[] = [];
  let i = 0;
  for (const sha of shas) {
    // diff-tree prints each commit's id, then status/path pairs (a root commit too: --always, -r).
    while (i < tokens.length && tokens[i] === '') i++;
    if (!SHA.test(sha) || tokens[i] !== sha) throw new GitError(`unexpected git diff-tree output at ${sha}`);
    i++;
    const paths: string[] = [];
    while (i + 1 < tokens.length && STATUS.test(tokens[i]!)) {
      paths.push(tokens[i + 1]!);
      i += 2;
    }
    commits.push({ sha, subject: subjects.get(sha) ?? '', paths });
  }
  return { commits, merges };
}

/** The content of `path` at `ref`, or null when the ref has no such file. */
export function tryShowFile(root: string, ref: string, path: string): string | null {
  if (ref.startsWith('-')) throw new GitError(`not a ref: ${JSON.stringify(ref)}`);
  try {
    git(root, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
  } catch {
    throw new GitError(`no such commit: ${JSON.stringify(ref)}`);
  }
  try {
    return git(root, ['show', `${ref}:${path}`]);
  } catch {
    return null;
  }
}
