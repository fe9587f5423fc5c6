import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type FakeGithub,
  git,
  gitText,
  recordRefChange,
  seedRepo,
  startFakeGithub,
  ZERO_SHA,
} from '@perimeter/fake-github';
import {
  createOctokitUpstream,
  type OctokitUpstreamOptions,
} from '../../../src/github/octokit/octokit-upstream.js';
import type { Upstream } from '../../../src/github/upstream.js';

export const TOKEN = 'ghs_StandInToken0123456789abcdefghijklmn';
export const OWNER = 'octo';
export const REPO = 'demo';

export interface StandIn {
  fake: FakeGithub;
  /** the bare repository behind octo/demo */
  dir: string;
  /** the seed commit on main */
  seed: string;
  upstream(options?: Partial<OctokitUpstreamOptions>): Upstream;
  stop(): Promise<void>;
}

/** The GitHub stand-in serving one repository seeded with `files` on main. */
export async function startStandIn(
  files: Record<string, string | Uint8Array>,
  options: { rateLimit?: number } = {},
): Promise<StandIn> {
  const root = await mkdtemp(join(tmpdir(), 'perimeter-upstream-'));
  const dir = join(root, 'demo.git');
  const seed = await seedRepo(dir, files);
  const fake = await startFakeGithub({ repos: { [`${OWNER}/${REPO}`]: dir }, token: TOKEN, ...options });
  return {
    fake,
    dir,
    seed,
    upstream: (options = {}) =>
      createOctokitUpstream({
        token: TOKEN,
        owner: OWNER,
        repo: REPO,
        baseUrl: fake.url,
        retryBaseMs: 1,
        ...options,
      }),
    stop: async () => {
      await fake.stop();
      await rm(root, { recursive: true, force: true });
    },
  };
}

export type Entry =
  { mode: '100644' | '100755' | '120000'; content: string } | { mode: '160000'; sha: string } | null;

/**
 * A commit made with git plumbing directly in the bare repository, as a push would land: any mode
 * (symlinks, executables, submodule gitlinks), on top of `parent` (default: the branch head), then the
 * branch is moved there (forced when `parent` is not its head) and the move recorded as a push by `actor`.
 */
export async function plumbCommit(
  dir: string,
  branch: string,
  entries: Record<string, Entry>,
  options: {
    parent?: string | null;
    actor?: string;
    message?: string;
    /** more parents after the first: a merge commit (its tree is the first parent's with `entries` applied) */
    mergeWith?: string[];
  } = {},
): Promise<string> {
  const ref = `refs/heads/${branch}`;
  const before =
    (await gitText(dir, ['rev-parse', '--verify', '--quiet', ref]).catch(() => '')).trim() || null;
  const parent = options.parent === undefined ? before : options.parent;
  const env = { GIT_INDEX_FILE: join(dir, `index-${process.pid}-${Date.now()}`) };
  if (parent) await git(dir, ['read-tree', parent], { env });
  else await git(dir, ['read-tree', '--empty'], { env });
  for (const [path, entry] of Object.entries(entries)) {
    if (entry === null) {
      await git(dir, ['update-index', '--index-info'], { env, input: `0 ${ZERO_SHA}\t${path}\n` });
      continue;
    }
    const sha =
      'sha' in entry
        ? entry.sha
        : (await gitText(dir, ['hash-object', '-w', '--stdin'], { input: entry.content })).trim();
    await git(dir, ['update-index', '--add', '--replace', '--cacheinfo', `${entry.mode},${sha},${path}`], {
      env,
    });
  }
  const tree = (await gitText(dir, ['write-tree'], { env })).trim();
  await rm(env.GIT_INDEX_FILE, { force: true });
  const commitEnv = {
    GIT_AUTHOR_NAME: 'Someone',
    GIT_AUTHOR_EMAIL: 'someone@example.com',
    GIT_COMMITTER_NAME: 'Someone',
    GIT_COMMITTER_EMAIL: 'someone@example.com',
  };
  const args = [
    'commit-tree',
    tree,
    '-m',
    options.message ?? 'plumbing commit',
    ...(parent ? ['-p', parent] : []),
    ...(options.mergeWith ?? []).flatMap((sha) => ['-p', sha]),
  ];
  const sha = (await gitText(dir, args, { env: commitEnv })).trim();
  await setRef(dir, ref, sha, options.actor);
  return sha;
}

/** Points `ref` at `sha` (null deletes it) and records it in the stand-in's activity list. */
export async function setRef(
  dir: string,
  ref: string,
  sha: string | null,
  actor = 'github-actions[bot]',
): Promise<void> {
  const before =
    (await gitText(dir, ['rev-parse', '--verify', '--quiet', ref]).catch(() => '')).trim() || ZERO_SHA;
  if (sha === null) await git(dir, ['update-ref', '-d', ref]);
  else await git(dir, ['update-ref', ref, sha]);
  await recordRefChange(dir, { before, after: sha ?? ZERO_SHA, ref, actor });
}

/**
 * A start time for verifyJob after every ref change made so far: the stand-in stamps activity to the
 * millisecond, so waiting a few keeps a change made just before out of the window, as main's snapshot would.
 */
export async function windowOpens(): Promise<string> {
  await new Promise((resolve) => setTimeout(resolve, 3));
  return new Date().toISOString();
}
