import { execFileSync } from 'node:child_process';
import type { Change } from '../verify/index.js';

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
  /** What the commit changed against its parent, as verify reads a commit (renames as a delete and an add). */
  changes: Change[];
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
const RAW = /^:(\d{6}) (\d{6}) ([0-9a-f]+) ([0-9a-f]+) ([ACDMT])$/;
const ABSENT = /^0+$/;

/**
 * The non-merge commits of `range` (anything `git rev-list` takes: `main~50..main`, or `main` with
 * `maxCount`: its newest commits), newest first, with the paths each changed, and how many merges the same
 * commits also hold. Read with `-z --raw`, so each path
 * follows a raw entry (modes and blob ids) and no file name, however crafted, can pass for a commit boundary.
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
    ['diff-tree', '--stdin', '--always', '--root', '-r', '-z', '--raw', '--no-renames'],
    `${shas.join('\n')}\n`,
  ).split('\0');
  const commits: CommitChanges[] = [];
  let i = 0;
  for (const sha of shas) {
    // diff-tree prints each commit's id, then a raw line and a path per change (a root commit too: --always).
    while (i < tokens.length && tokens[i] === '') i++;
    if (!SHA.test(sha) || tokens[i] !== sha) throw new GitError(`unexpected git diff-tree output at ${sha}`);
    i++;
    const changes: Change[] = [];
    for (
      let raw = RAW.exec(tokens[i] ?? '');
      raw !== null && i + 1 < tokens.length;
      raw = RAW.exec(tokens[i] ?? '')
    ) {
      changes.push(changeOf(raw, tokens[i + 1]!));
      i += 2;
    }
    commits.push({ sha, subject: subjects.get(sha) ?? '', changes });
  }
  return { commits, merges };
}

/** One `git diff-tree --raw` entry as verify's Change: a type change (file to symlink, say) is `modified`. */
function changeOf(raw: RegExpExecArray, path: string): Change {
  const [, oldMode, newMode, oldSha, newSha, status] = raw as unknown as [
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  if (status === 'A' || ABSENT.test(oldMode)) return { path, kind: 'added', newMode, newSha };
  if (status === 'D' || ABSENT.test(newMode)) return { path, kind: 'deleted', oldMode, oldSha };
  return { path, kind: 'modified', oldMode, newMode, oldSha, newSha };
}

/** The content of each blob, by SHA, read in one `git cat-file --batch`; a missing one throws. */
export function blobContents(root: string, shas: readonly string[]): Map<string, Uint8Array> {
  const unique = [...new Set(shas)];
  const contents = new Map<string, Uint8Array>();
  if (unique.length === 0) return contents;
  const out = execFileSync('git', ['cat-file', '--batch'], {
    cwd: root,
    input: `${unique.join('\n')}\n`,
    stdio: ['pipe', 'pipe', 'pipe'],
    maxBuffer: 1024 * 1024 * 1024,
  });
  let at = 0;
  while (at < out.length) {
    const eol = out.indexOf(0x0a, at);
    const header = out.subarray(at, eol).toString('utf8');
    const [sha, type, size] = header.split(' ');
    if (type !== 'blob' || size === undefined) throw new GitError(`not a blob in this repository: ${header}`);
    const start = eol + 1;
    contents.set(sha!, out.subarray(start, start + Number(size)));
    at = start + Number(size) + 1;
  }
  return contents;
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

/**
 * The branch a range ends on: its tip (`main` of `main~50..main`, `HEAD` of `A..`) without `~N`/`^N`, as a
 * local branch, a remote-tracking one (`origin/main` is `main`) or the branch HEAD has checked out; null
 * when the tip is no branch (a commit id, a detached HEAD).
 */
export function rangeBranch(root: string, range: string): string | null {
  const dots = range.lastIndexOf('..');
  const tip = (dots === -1 ? range : range.slice(dots + 2)).replace(/(?:[~^][0-9]*)+$/, '') || 'HEAD';
  if (tip.startsWith('-') || tip.startsWith('^')) return null;
  let full: string;
  try {
    full = git(root, ['rev-parse', '--symbolic-full-name', tip, '--']).split('\n')[0]!.trim();
  } catch {
    return null;
  }
  if (full.startsWith('refs/heads/')) return full.slice('refs/heads/'.length);
  const remote = /^refs\/remotes\/[^/]+\/(.+)$/.exec(full);
  return remote !== null && remote[1] !== 'HEAD' ? remote[1]! : null;
}

/**
 * The default branch of `origin` as the checkout knows it (`refs/remotes/origin/HEAD`, which `git clone` sets
 * and `git remote set-head origin --auto` refreshes), or null when it does not say.
 */
export function tryDefaultBranch(root: string): string | null {
  try {
    const ref = git(root, ['symbolic-ref', '--quiet', 'refs/remotes/origin/HEAD']).trim();
    return ref.startsWith('refs/remotes/origin/') ? ref.slice('refs/remotes/origin/'.length) : null;
  } catch {
    return null;
  }
}
