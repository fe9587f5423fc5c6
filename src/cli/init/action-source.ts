import { execFileSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tryGitToplevel } from '../git.js';
import { UsageError } from '../io.js';
import type { ActionRef } from './workflow-templates.js';

/**
 * Which action a workflow `perimeter init` writes should use: the one the CLI itself came from. Run from a
 * clone of a fork on GitHub, that is the fork at the clone's HEAD, pinned by its full commit SHA, the only
 * immutable way to name an action
 * (https://docs.github.com/en/actions/security-for-github-actions/security-guides/security-hardening-for-github-actions#using-third-party-actions).
 * Whatever init cannot vouch for (no git, an origin that is not GitHub, a dist/ that is not HEAD's, a HEAD
 * GitHub may not have) is `unknown`, with the reason: then `--action` must name it.
 */
export type ActionSource =
  { kind: 'found'; action: ActionRef; checkout: string } | { kind: 'unknown'; why: string };

/** The files that make a checkout the Perimeter action, and the ones a workflow pinned to HEAD runs. */
const ACTION_FILES = ['action.yml', 'verify/action.yml', 'apply/action.yml', 'bin/perimeter.js'];
const RUN_BY_WORKFLOWS = ['dist', 'action.yml', 'verify', 'apply'];

/** github.com remotes as git writes them: https, ssh and scp-like; the repository's `.git` is optional. */
const GITHUB_REMOTE =
  /^(?:https:\/\/(?:[^@/]+@)?github\.com\/|ssh:\/\/git@github\.com(?::22)?\/|git@github\.com:)([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))\/([A-Za-z0-9._-]{1,100}?)(?:\.git)?\/?$/;

function git(root: string, args: string[]): string | null {
  try {
    return execFileSync('git', args, {
      cwd: root,
      stdio: ['ignore', 'pipe', 'ignore'],
      encoding: 'utf8',
    }).trim();
  } catch {
    return null;
  }
}

/** `owner/repo` of a GitHub remote URL, or null for any other remote. */
export function githubRepository(url: string): string | null {
  const match = GITHUB_REMOTE.exec(url.trim());
  return match === null ? null : `${match[1]}/${match[2]}`;
}

/** The action the CLI at `script` (the file the user ran) came from, or why init cannot tell. */
export function findActionSource(script: string | undefined): ActionSource {
  if (script === undefined || script === '')
    return { kind: 'unknown', why: 'init cannot tell which file was run' };
  let file: string;
  try {
    file = realpathSync(script);
  } catch {
    return { kind: 'unknown', why: `cannot find ${script}` };
  }
  const root = tryGitToplevel(dirname(file));
  if (root === null) return { kind: 'unknown', why: `${file} is not in a git checkout` };
  const missing = ACTION_FILES.filter((path) => !existsSync(join(root, path)));
  if (missing.length > 0)
    return {
      kind: 'unknown',
      why: `${root} is not a checkout of the Perimeter action (no ${missing.join(', ')})`,
    };
  const origin = git(root, ['remote', 'get-url', 'origin']);
  if (origin === null) return { kind: 'unknown', why: `the checkout ${root} has no remote named origin` };
  const repository = githubRepository(origin);
  if (repository === null)
    return {
      kind: 'unknown',
      why: `the checkout's origin ${JSON.stringify(origin)} is not a repository on github.com`,
    };
  const head = git(root, ['rev-parse', '--verify', 'HEAD^{commit}']);
  if (head === null || !/^[0-9a-f]{40}$/.test(head))
    return { kind: 'unknown', why: `the checkout ${root} has no commit checked out` };
  const changed = git(root, ['status', '--porcelain', '--untracked-files=all', '--', ...RUN_BY_WORKFLOWS]);
  if (changed === null || changed !== '')
    return {
      kind: 'unknown',
      why: `the checkout's dist/ or action files differ from its HEAD ${head.slice(0, 12)}: a workflow pinned to that commit would run other code`,
    };
  // a commit GitHub has: one a branch of origin holds, as the checkout last fetched it
  const onOrigin = git(root, [
    'for-each-ref',
    '--contains',
    head,
    '--format=%(refname)',
    'refs/remotes/origin/',
  ]);
  if (onOrigin === null || onOrigin === '')
    return {
      kind: 'unknown',
      why: `HEAD ${head.slice(0, 12)} of ${root} is on no branch of origin (${repository}) as last fetched: push it first`,
    };
  return { kind: 'found', action: { repository, ref: head }, checkout: root };
}

const OWNER = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})';
const REPO = '[A-Za-z0-9._-]{1,100}';
const REF = '[A-Za-z0-9._/-]{1,255}';
const ACTION_ARG = new RegExp(`^(${OWNER})/(${REPO})@(${REF})$`);

/** `--action OWNER/REPO@REF`, checked; the sub-actions (`/verify`, `/apply`) are init's to add. */
export function parseActionArg(value: string): ActionRef {
  const match = ACTION_ARG.exec(value);
  if (match === null || match[3]!.startsWith('-') || match[3]!.includes('..'))
    throw new UsageError(
      `--action: expected OWNER/REPO@REF (the repository the action is published under or your fork, and a tag or commit SHA), got ${JSON.stringify(value)}`,
    );
  if (match[1] === 'OWNER')
    throw new UsageError(
      "--action: OWNER is the docs' placeholder: name the account the action is published under, or your fork's",
    );
  return { repository: `${match[1]}/${match[2]}`, ref: match[3]! };
}
