/**
 * Model-based check of the verifier: random histories of ref operations during a job (the gateway's
 * commits, direct pushes with the job's token, force pushes, deletions and re-creations of the bound branch,
 * other branches, tags, notes, merges) and faults on every route the verifier reads, played against the
 * GitHub stand-in's real git repositories. The ground truth is computed with git from the stand-in's own
 * complete record of ref changes (which holds more than GitHub's activity list shows), never from what the
 * verifier read. Shared by the short run in `npm test` and the long one in scripts/model-check.ts.
 */
import fc from 'fast-check';
import { writeFile } from 'node:fs/promises';
import { activityPath, type Fault, git, gitText, readRefChanges, ZERO_SHA } from '@perimeter/fake-github';
import { compiledPerimeter } from './perimeter-spec.js';
import { setRef, startStandIn, windowOpens, type StandIn } from './stand-in.js';
import { snapshotRefs, verifyJob, type Verdict } from '../../../src/verify/index.js';
import { UpstreamError } from '../../../src/github/upstream.js';

export const BRANCH = 'agent/x';
/** Another actor (the job's token acts as github-actions[bot]). */
const TEAMMATE = 'teammate';
const REF = `refs/heads/${BRANCH}`;

export const PERIMETER = compiledPerimeter({
  name: 'implementer',
  read: ['**'],
  write: ['src/**', 'test/**'],
});

const SEED = { 'README.md': 'r\n', 'src/a.ts': 'a\n', 'test/t.ts': 't\n', 'docs/x.md': 'x\n' };

/** Paths inside the perimeter, outside it, protected; and a symlink inside it (never allowed). */
const PATHS = ['src/a.ts', 'src/b/c.ts', 'test/t.ts', 'docs/x.md', 'CLAUDE.md', '.github/workflows/w.yml'];

export type FileOp = { path: string; content: string | null; link?: boolean };

export type Op =
  /** a commit the gateway makes through the API, claimed by the ledger */
  | { kind: 'gateway'; files: FileOp[] }
  /** a commit pushed on top of a ref (git push with the job's token or someone else's) */
  | { kind: 'push'; ref: string; files: FileOp[]; actor: string }
  /** a commit on top of the start head, forced onto the bound branch (history rewritten away) */
  | { kind: 'force'; files: FileOp[]; orphan: boolean }
  /** the bound branch back to its start head (a force push back) */
  | { kind: 'restore' }
  | { kind: 'delete'; ref: string }
  /** a ref created (or moved) to the bound branch's start head or current head */
  | { kind: 'create'; ref: string; at: 'start' | 'head' }
  /** a side commit from the start head merged into the bound branch, its changes dropped by the merge */
  | { kind: 'merge'; files: FileOp[] };

export type FaultSpec =
  | {
      kind: 'status';
      route: 'activity' | 'compare' | 'trees' | 'commits' | 'files' | 'graphql';
      count: number;
    }
  | { kind: 'lag'; count: number };

export interface History {
  ops: Op[];
  faults: FaultSpec[];
}

const fileOp: fc.Arbitrary<FileOp> = fc.record(
  {
    path: fc.constantFrom(...PATHS),
    content: fc.option(fc.constantFrom('1\n', '2\n', '3\n'), { freq: 4 }),
    link: fc.boolean(),
  },
  { requiredKeys: ['path', 'content'] },
);
const files = fc.array(fileOp, { minLength: 1, maxLength: 3 });
const otherRef = fc.constantFrom('refs/heads/main', 'refs/heads/feature', 'refs/tags/t', 'refs/notes/n');

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('gateway' as const), files }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('push' as const),
      ref: fc.oneof({ weight: 3, arbitrary: fc.constant(REF) }, { weight: 1, arbitrary: otherRef }),
      files,
      actor: fc.constantFrom('github-actions[bot]', TEAMMATE),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('force' as const), files, orphan: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'restore' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('delete' as const), ref: fc.oneof(fc.constant(REF), otherRef) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('create' as const),
      ref: fc.oneof(fc.constant(REF), otherRef),
      at: fc.constantFrom('start' as const, 'head' as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('merge' as const), files }) },
);

const fault: fc.Arbitrary<FaultSpec> = fc.oneof(
  fc.record({
    kind: fc.constant('status' as const),
    route: fc.constantFrom(
      'activity' as const,
      'compare' as const,
      'trees' as const,
      'commits' as const,
      'files' as const,
      'graphql' as const,
    ),
    count: fc.constantFrom(1, 2, 1_000),
  }),
  fc.record({ kind: fc.constant('lag' as const), count: fc.constantFrom(1, 1_000) }),
);

export const histories: fc.Arbitrary<History> = fc.record({
  ops: fc.array(op, { minLength: 0, maxLength: 8 }),
  faults: fc.oneof(
    { weight: 3, arbitrary: fc.constant<FaultSpec[]>([]) },
    { weight: 1, arbitrary: fc.array(fault, { maxLength: 2 }) },
  ),
});

const ROUTES: Record<Extract<FaultSpec, { kind: 'status' }>['route'], RegExp> = {
  activity: /\/activity/,
  compare: /\/compare\//,
  trees: /\/git\/trees\//,
  commits: /\/git\/commits\//,
  files: /\/commits\/[0-9a-f]{40}$/,
  // batched tree reads: on failure the verifier reads the same trees through REST
  graphql: /^POST \/graphql$/,
};

const COMMITTER = {
  GIT_AUTHOR_NAME: 'Someone',
  GIT_AUTHOR_EMAIL: 'someone@example.com',
  GIT_COMMITTER_NAME: 'Someone',
  GIT_COMMITTER_EMAIL: 'someone@example.com',
};

/** A commit of `changes` on top of `parents[0]` (or of nothing), written with git plumbing; no ref moves. */
async function makeCommit(dir: string, parents: string[], changes: FileOp[]): Promise<string> {
  const env = { GIT_INDEX_FILE: `${dir}/index-model-${process.pid}` };
  await git(dir, parents[0] ? ['read-tree', parents[0]] : ['read-tree', '--empty'], { env });
  const lines: string[] = [];
  for (const change of changes) {
    if (change.content === null) {
      lines.push(`0 ${ZERO_SHA}\t${change.path}`);
      continue;
    }
    const sha = (await gitText(dir, ['hash-object', '-w', '--stdin'], { input: change.content })).trim();
    lines.push(`${change.link ? '120000' : '100644'} ${sha}\t${change.path}`);
  }
  // Index lines in order, so a later change to the same path wins; a path under a file is dropped by git.
  await git(dir, ['update-index', '--index-info'], { env, input: `${lines.join('\n')}\n` }).catch(
    () => undefined,
  );
  const tree = (await gitText(dir, ['write-tree'], { env })).trim();
  const args = ['commit-tree', tree, '-m', 'model', ...parents.flatMap((p) => ['-p', p])];
  return (await gitText(dir, args, { env: COMMITTER })).trim();
}

async function head(dir: string, ref: string): Promise<string | null> {
  return (await gitText(dir, ['rev-parse', '--verify', '--quiet', ref]).catch(() => '')).trim() || null;
}

export interface Outcome {
  verdict: Verdict;
  truth: { violations: string[]; unrecorded: string[] };
  faulted: boolean;
}

/** A stand-in for many histories: `reset` brings its repository back to the seed, with no activity. */
export async function modelStandIn(): Promise<StandIn & { reset(): Promise<void> }> {
  // thousands of histories on one stand-in: an hourly budget no single job would need
  const s = await startStandIn(SEED, { rateLimit: 100_000_000 });
  return {
    ...s,
    async reset() {
      s.fake.clearFaults();
      const refs = (await gitText(s.dir, ['for-each-ref', '--format=%(refname)']))
        .split('\n')
        .filter(Boolean);
      const script = refs.filter((ref) => ref !== 'refs/heads/main').map((ref) => `delete ${ref}\n`);
      await git(s.dir, ['update-ref', '--stdin'], {
        input: `${script.join('')}update refs/heads/main ${s.seed}\n`,
      });
      await writeFile(activityPath(s.dir), '');
    },
  };
}

/** Plays one history on a stand-in (a fresh one unless given) and returns the verdict beside the ground truth. */
export async function play(
  history: History,
  reused?: Awaited<ReturnType<typeof modelStandIn>>,
): Promise<Outcome> {
  const s = reused ?? (await modelStandIn());
  try {
    if (reused) await reused.reset();
    await setRef(s.dir, REF, s.seed, 'github-actions[bot]');
    const up = s.upstream();
    const startedAt = await windowOpens();
    const start = await snapshotRefs(up);
    const gatewayCommits: string[] = [];
    for (const step of history.ops) await apply(s, step, gatewayCommits);
    const end = await snapshotRefs(up);
    const truth = await groundTruth(s.dir, startedAt, start, end);
    for (const spec of history.faults) s.fake.injectFault(faultOf(spec));
    const verdict = await verifyJob({
      upstream: s.upstream(),
      branch: BRANCH,
      start,
      end,
      perimeters: [PERIMETER],
      ledger: { ok: true, commits: gatewayCommits, perPerimeter: {} },
      directPushes: 'check',
      startedAt,
      activityAttempts: 2,
      activityRetryMs: 5,
    });
    return { verdict, truth, faulted: history.faults.length > 0 };
  } finally {
    s.fake.clearFaults();
    if (!reused) await s.stop();
  }
}

function faultOf(spec: FaultSpec): Fault {
  return spec.kind === 'lag'
    ? { kind: 'activity-lag', ms: 3_600_000, count: spec.count }
    : { kind: 'status', status: 502, count: spec.count, route: ROUTES[spec.route] };
}

async function apply(s: StandIn, step: Op, gatewayCommits: string[]): Promise<void> {
  const start = s.seed;
  const current = await head(s.dir, REF);
  switch (step.kind) {
    case 'gateway': {
      if (current === null) return;
      // As the gateway commits: through the API, no author or committer (GitHub commits and signs). GitHub
      // refuses some (a workflow file for GITHUB_TOKEN, a deletion of nothing): then nothing lands.
      const up = s.upstream();
      try {
        const tree = await up.createTree(
          (await up.getCommit(current)).tree,
          step.files.map((f) =>
            f.content === null
              ? { path: f.path, sha: null }
              : { path: f.path, mode: '100644' as const, content: f.content },
          ),
        );
        const sha = await up.createCommit('via gateway', tree, [current]);
        await up.updateBranch(BRANCH, sha);
        gatewayCommits.push(sha);
      } catch (error) {
        if (!(error instanceof UpstreamError)) throw error;
      }
      return;
    }
    case 'push': {
      const base = await head(s.dir, step.ref);
      const sha = await makeCommit(s.dir, base ? [base] : [], step.files);
      return setRef(s.dir, step.ref, sha, step.actor);
    }
    case 'force':
      return setRef(s.dir, REF, await makeCommit(s.dir, step.orphan ? [] : [start], step.files));
    case 'restore':
      return setRef(s.dir, REF, start);
    case 'delete':
      if ((await head(s.dir, step.ref)) === null) return;
      return setRef(s.dir, step.ref, null);
    case 'create': {
      const at = step.at === 'start' ? start : (current ?? start);
      if ((await head(s.dir, step.ref)) === at) return;
      return setRef(s.dir, step.ref, at);
    }
    case 'merge': {
      if (current === null) return;
      const side = await makeCommit(s.dir, [start], step.files);
      const tree = (await gitText(s.dir, ['rev-parse', `${current}^{tree}`])).trim();
      const merge = (
        await gitText(s.dir, ['commit-tree', tree, '-m', 'merge', '-p', current, '-p', side], {
          env: COMMITTER,
        })
      ).trim();
      return setRef(s.dir, REF, merge, 'github-actions[bot]');
    }
  }
}

/**
 * What happened, from the stand-in's complete record of ref changes in the window and git itself: every
 * violation of the perimeter, and the changes GitHub keeps no record of (refs outside refs/heads that end
 * where they started), which no verifier can see and the receipt declares.
 */
export async function groundTruth(
  dir: string,
  startedAt: string,
  start: Record<string, string>,
  end: Record<string, string>,
): Promise<{ violations: string[]; unrecorded: string[] }> {
  const since = Date.parse(startedAt);
  const changes = (await readRefChanges(dir)).filter((c) => Date.parse(c.timestamp) >= since);
  const violations: string[] = [];
  const unrecorded: string[] = [];
  // GitHub records the job's token as this identity; a teammate's branch moves are listed, not judged
  const others = (ref: string) => changes.filter((c) => c.ref === ref).every((c) => c.actor === TEAMMATE);
  for (const ref of new Set(changes.map((c) => c.ref))) {
    if (ref === REF) continue;
    if (ref.startsWith('refs/heads/')) {
      if (!others(ref)) violations.push(`${ref} changed`);
    } else if (start[ref] !== end[ref]) violations.push(`${ref} changed`);
    else unrecorded.push(`${ref} changed and changed back`);
  }
  const startHead = start[REF] as string;
  const endHead = end[REF];
  const heads = changes.filter((c) => c.ref === REF).map((c) => c.after);
  if (heads.includes(ZERO_SHA) || endHead === undefined) violations.push(`${REF} deleted`);
  if (endHead === undefined) return { violations, unrecorded };
  const ancestors = new Set((await gitText(dir, ['rev-list', endHead])).split('\n').filter(Boolean));
  if (!ancestors.has(startHead)) violations.push('history rewritten');
  const held = [...new Set(heads.filter((h) => h !== ZERO_SHA))];
  for (const sha of held) if (!ancestors.has(sha)) violations.push(`held ${sha}, lost`);
  if (held.length === 0) return { violations, unrecorded };
  // every commit the branch held and did not hold at the start, each against its first parent, in one diff-tree
  // commits a teammate's move brought onto the branch are theirs: not judged
  const theirs = new Set<string>();
  for (const c of changes.filter((c) => c.ref === REF && c.actor === TEAMMATE)) {
    if (c.before === ZERO_SHA || c.after === ZERO_SHA) continue;
    const brought = (await gitText(dir, ['rev-list', c.after, '--not', c.before])).trim();
    for (const sha of brought ? brought.split('\n') : []) theirs.add(sha);
  }
  const listed = (await gitText(dir, ['rev-list', '--parents', ...held, '--not', startHead]))
    .trim()
    .split('\n')
    .filter((line) => line && !theirs.has(line.split(' ')[0] as string))
    .join('\n');
  const pairs = (listed ? listed.split('\n') : []).map((line) => {
    // diff-tree --stdin reads "<commit> <parent>": the commit against that one parent (a root: --root)
    const [commit, parent] = line.split(' ');
    return parent === undefined ? (commit as string) : `${commit} ${parent}`;
  });
  if (pairs.length === 0) return { violations, unrecorded };
  const rows = await gitText(dir, ['diff-tree', '--stdin', '-r', '--root', '--no-commit-id'], {
    input: `${pairs.join('\n')}\n`,
  });
  for (const row of rows.split('\n').filter((line) => line.startsWith(':'))) {
    const [meta, path] = row.split('\t') as [string, string];
    const [, newMode, , , status] = meta.split(/\s+/);
    if (status !== 'D' && (newMode === '120000' || newMode === '160000')) violations.push(`link ${path}`);
    else if (!PERIMETER.canWrite(path).allowed) violations.push(`path ${path}`);
  }
  return { violations, unrecorded };
}
