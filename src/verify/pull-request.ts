import type { CommitInfo, PullRequestInfo, RepoReads } from '../github/index.js';
import type { Perimeter } from '../policy/index.js';
import type { Change } from './change.js';
import { judgeCommit } from './judging/commit-judge.js';
import { diffTrees } from './gathering/diff-trees.js';
import { decideFile, fileViolations } from './judging/judge.js';
import { boundaryOf, mergeBaseOf, ownChanges } from './gathering/pull-commits.js';
import type { FileDecision, Verdict, Violation } from './types.js';

/**
 * GitHub lists at most 250 commits of a pull request; with more, not each one can be examined.
 * https://docs.github.com/rest/pulls/pulls#list-commits-on-a-pull-request
 */
export const PULL_REQUEST_COMMIT_LIMIT = 250;

export interface PullRequestInput {
  upstream: RepoReads;
  /** the pull request as read now */
  pull: PullRequestInfo;
  /** its commits as GitHub listed them after `pull` was read (in any order) */
  commits: CommitInfo[];
  /** the base branch's head, read after the commits */
  baseHead: string;
  /** the perimeter perimeters.yml assigns to the pull request */
  perimeter: Perimeter;
  /** why it is assigned, e.g. 'author "Copilot", head branch glob "copilot/**"' */
  assignedBy: string;
}

const short = (sha: string): string => sha.slice(0, 7);

/**
 * Judges every commit of a pull request by itself against its assigned perimeter (so a change made and undone
 * later still counts), and the pull request's net change from its merge base (so a merge cannot quietly
 * undo a base change outside the perimeter). Whatever could not be examined makes the verdict `error`.
 */
export async function verifyPullRequest(input: PullRequestInput): Promise<Verdict> {
  const { upstream, pull, commits, perimeter } = input;
  const branch = pull.headRef;
  const unchecked: string[] = [];
  if (pull.commits > PULL_REQUEST_COMMIT_LIMIT)
    unchecked.push(
      `the pull request has ${pull.commits} commits, and GitHub lists at most ${PULL_REQUEST_COMMIT_LIMIT} of them, so not each one could be examined`,
    );
  else if (commits.length !== pull.commits)
    unchecked.push(`GitHub counts ${pull.commits} commits in the pull request but listed ${commits.length}`);
  else if (!commits.some((c) => c.sha === pull.headSha))
    unchecked.push(
      `the pull request's head ${short(pull.headSha)} is not among the commits GitHub listed: it moved while it was read; the next run judges the new head`,
    );
  if (unchecked.length > 0)
    return verdictOf(input, { unchecked, files: [], violations: [], mergeBase: null });

  const { boundary, problems } = await boundaryOf(upstream, commits, input.baseHead);
  unchecked.push(...problems);
  const violations: Violation[] = [];
  const seen = new Map<string, Change>();
  const transient: Change[] = [];
  for (const commit of commits) {
    const own = await ownChanges(upstream, commit);
    if (!own.ok) {
      unchecked.push(own.problem);
      continue;
    }
    const sizes = await sizesOf(upstream, own.changes, branch, perimeter);
    const label = `commit ${short(commit.sha)}`;
    violations.push(
      ...judgeCommit({ label, changes: own.changes, sizeOf: (sha) => sizes.get(sha) ?? 0 }, branch, [
        perimeter,
      ]).map((v) => ({ ...v, message: v.message.startsWith(label) ? v.message : `${label}: ${v.message}` })),
    );
    for (const change of own.changes) if (!seen.has(change.path)) seen.set(change.path, change);
  }

  const mergeBase = await mergeBaseOf(upstream, boundary);
  let files: FileDecision[] = [];
  if (mergeBase === null)
    unchecked.push('the merge base of the pull request and its base branch is not one commit');
  else {
    const [base, head] = await Promise.all([upstream.getCommit(mergeBase), upstream.getCommit(pull.headSha)]);
    const net = await diffTrees(upstream, base.tree, head.tree);
    const named = new Set(violations.flatMap((v) => (v.path === undefined ? [] : [v.path])));
    violations.push(
      ...fileViolations(net, branch, [perimeter])
        .filter((v) => v.path === undefined || !named.has(v.path))
        .map((v) => ({ ...v, message: `the net change from the merge base: ${v.message}` })),
    );
    const netPaths = new Set(net.map((c) => c.path));
    for (const [path, change] of seen) if (!netPaths.has(path)) transient.push(change);
    files = [
      ...net.map((c) => decideFile(c, branch, [perimeter])),
      ...transient.map((c) => ({ ...decideFile(c, branch, [perimeter]), transient: true })),
    ];
  }
  return verdictOf(input, { unchecked, files, violations: dedupe(violations), mergeBase });
}

/** Blob sizes for the limits, read only when every path is writable (else the commit fails anyway). */
async function sizesOf(
  upstream: RepoReads,
  changes: Change[],
  branch: string,
  perimeter: Perimeter,
): Promise<Map<string, number>> {
  const arriving = changes.filter((c) => c.kind !== 'deleted' && c.newSha !== undefined);
  if (
    fileViolations(changes, branch, [perimeter]).length > 0 ||
    changes.length > perimeter.spec.limits.filesPerPush
  )
    return new Map();
  const shas = [...new Set(arriving.map((c) => c.newSha!))];
  const sizes = await Promise.all(shas.map(async (sha) => (await upstream.getBlob(sha)).byteLength));
  return new Map(shas.map((sha, i) => [sha, sizes[i]!]));
}

function dedupe(violations: Violation[]): Violation[] {
  return [...new Map(violations.map((v) => [v.message, v])).values()];
}

function verdictOf(
  input: PullRequestInput,
  found: { unchecked: string[]; files: FileDecision[]; violations: Violation[]; mergeBase: string | null },
): Verdict {
  const { pull, commits, perimeter } = input;
  const state = found.violations.length > 0 ? 'failure' : found.unchecked.length > 0 ? 'error' : 'success';
  return {
    state,
    branch: pull.headRef,
    startHead: found.mergeBase,
    endHead: pull.headSha,
    baseline: {
      sha: found.mergeBase,
      label: `the merge base with "${pull.baseRef}" (pull request #${pull.number})`,
    },
    files: found.files,
    violations: found.violations,
    refChanges: [],
    commits: {
      gateway: [],
      direct: commits.map((c) => c.sha),
      others: [],
      unattributed: [],
      complete: found.unchecked.length === 0,
    },
    pushes: [],
    others: [],
    identity: null,
    perPerimeter: {},
    unchecked: found.unchecked,
    notes: [
      `pull request #${pull.number} by ${pull.author} from "${pull.headRef}" into "${pull.baseRef}", judged by perimeter "${perimeter.name}" (${input.assignedBy}), each of its ${commits.length} commit(s) by itself`,
    ],
    pullRequest: {
      number: pull.number,
      author: pull.author,
      perimeter: perimeter.name,
      commits: commits.length,
    },
  };
}
