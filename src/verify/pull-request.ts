import type { CommitInfo, PullRequestInfo, PullRequestReviewRecord, RepoReads } from '../github/index.js';
import { protectedRule, type Perimeter } from '../policy/index.js';
import type { Change } from './change.js';
import { judgeCommit } from './judging/commit-judge.js';
import { readBlobFacts, type BlobFactsReading } from './gathering/blob-facts.js';
import { createSecretFilter, type AnswerFilter } from '../safety/index.js';
import { diffTrees } from './gathering/diff-trees.js';
import { decideFile, fileViolations } from './judging/file-decisions.js';
import { boundaryOf, mergeBaseOf, ownChanges } from './gathering/pull-commits.js';
import type { FileDecision, Verdict, Violation } from './types.js';
import type { CommitJudge } from './judging/pull-attribution.js';

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
  /** the perimeter perimeters.yml assigns to the pull request itself, if any */
  perimeter: Perimeter | null;
  /** why it is assigned, e.g. 'author "Copilot", head branch glob "copilot/**"' */
  assignedBy: string | null;
  /** each commit's judge by its maker (attributePullCommits); without it, every commit is the pull request's */
  attribution?: Map<string, CommitJudge>;
  /**
   * The pull request's reviews as GitHub lists them: a person's own commit that changes a protected path is
   * covered only by an approval at the head by someone other than its author and the pull request's
   */
  reviews?: PullRequestReviewRecord[];
  /** the perimeters file's path, which the protected set covers (default perimeters.yml) */
  configFile?: string;
  /** finds credentials in the commits' content, as the gateway does on a push (default: the secret filter) */
  filter?: AnswerFilter;
}

const short = (sha: string): string => sha.slice(0, 7);

/** A path a commit changed by itself, and who judged it (null: a person's, not judged). */
interface Made {
  change: Change;
  perimeter: Perimeter | null;
  by: string;
}

/**
 * Judges every commit of a pull request by itself against the perimeter of whoever made it (so a change made
 * and undone later still counts; a person's own commits are listed, not judged), and the pull request's net
 * change from its merge base where no commit accounts for it (so a merge cannot quietly undo a base change
 * outside the perimeter). Whatever could not be examined or attributed makes the verdict `error`.
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
  const judges = new Map(commits.map((c) => [c.sha, judgeOf(input, c.sha)]));
  if (unchecked.length > 0)
    return verdictOf(input, judges, { unchecked, files: [], violations: [], mergeBase: null });

  const { boundary, problems } = await boundaryOf(upstream, commits, input.baseHead);
  unchecked.push(...problems);
  const violations: Violation[] = [];
  const seen = new Map<string, Made>();
  const filter = input.filter ?? createSecretFilter();
  for (const commit of commits) {
    const judge = judges.get(commit.sha)!;
    if (judge.kind === 'unattributed') unchecked.push(judge.reason);
    const own = await ownChanges(upstream, commit);
    if (!own.ok) {
      unchecked.push(own.problem);
      continue;
    }
    if (judge.kind === 'person')
      violations.push(...unreviewedProtected(input, commit.sha, judge.login, own.changes));
    const by = judge.kind === 'unattributed' ? '' : judge.by;
    const judging = judge.kind === 'perimeter' ? judge.perimeter : null;
    for (const change of own.changes) {
      // the summary names the perimeter that judged a path, where any did
      const earlier = seen.get(change.path);
      if (earlier === undefined || (earlier.perimeter === null && judging !== null))
        seen.set(change.path, { change, perimeter: judging, by });
    }
    if (judging === null) continue;
    const blobs = await blobsOf(input.upstream, own.changes, branch, judging, filter);
    const label = `commit ${short(commit.sha)}`;
    const judged = judgeCommit({ label, changes: own.changes, blob: (sha) => blobs.facts.get(sha) }, branch, [
      judging,
    ]);
    unchecked.push(...blobs.unread, ...judged.unchecked);
    violations.push(
      ...judged.violations.map((v) => ({
        ...v,
        message: v.message.startsWith(label) ? v.message : `${label}: ${v.message}`,
      })),
    );
  }

  const mergeBase = await mergeBaseOf(upstream, boundary);
  let files: FileDecision[] = [];
  if (mergeBase === null)
    unchecked.push('the merge base of the pull request and its base branch is not one commit');
  else {
    const [base, head] = await Promise.all([upstream.getCommit(mergeBase), upstream.getCommit(pull.headSha)]);
    const net = await diffTrees(upstream, base.tree, head.tree);
    // A path of the net change no commit changed by itself: a merge kept the pull request's version of a file
    // the base changed. Nobody's commit accounts for it, so the pull request's perimeter judges it.
    const unaccounted = net.filter((c) => !seen.has(c.path));
    if (unaccounted.length > 0 && perimeter === null)
      unchecked.push(
        `the net change from the merge base changes ${unaccounted.map((c) => c.path).join(', ')}, which no commit changes by itself (a merge kept the pull request's version), and no perimeter is assigned to the pull request`,
      );
    if (perimeter !== null) {
      const named = new Set(violations.flatMap((v) => (v.path === undefined ? [] : [v.path])));
      violations.push(
        ...fileViolations(unaccounted, branch, [perimeter])
          .filter((v) => v.path === undefined || !named.has(v.path))
          .map((v) => ({ ...v, message: `the net change from the merge base: ${v.message}` })),
      );
    }
    const netPaths = new Set(net.map((c) => c.path));
    files = [
      ...net.map((c) => decide(c, seen.get(c.path) ?? { change: c, perimeter, by: '' }, branch)),
      ...[...seen.values()]
        .filter((made) => !netPaths.has(made.change.path))
        .map((made) => ({ ...decide(made.change, made, branch), transient: true })),
    ];
  }
  return verdictOf(input, judges, { unchecked, files, violations: dedupe(violations), mergeBase });
}

/**
 * A person's own commit is theirs, not judged against the agent's perimeter; but the agent chose to carry it,
 * so the gate's success never covers a protected path it changes that nobody else reviewed: it needs an
 * approval of the pull request's head by someone other than the commit's author and the pull request's.
 */
function unreviewedProtected(
  input: PullRequestInput,
  sha: string,
  login: string,
  changes: Change[],
): Violation[] {
  const guarded = changes
    .map((change) => ({ change, rule: protectedRule(change.path, input.configFile) }))
    .filter((found): found is { change: Change; rule: string } => found.rule !== null);
  if (guarded.length === 0) return [];
  const { pull } = input;
  const approvers = approvedHead(input.reviews ?? [], pull.headSha).filter(
    (user) => user.toLowerCase() !== login.toLowerCase() && user.toLowerCase() !== pull.author.toLowerCase(),
  );
  if (approvers.length > 0) return [];
  return guarded.map(({ change, rule }) => ({
    kind: 'path' as const,
    path: change.path,
    message: `commit ${short(sha)} by ${login}: ${change.path} is protected (${rule}) and nobody but ${login} and the pull request's author ${pull.author} approved the pull request at ${short(pull.headSha)}; a person's own commit is not judged against the agent's perimeter, but a protected change needs another person's review`,
  }));
}

/** Who approved `head`: each reviewer's latest verdict (comments do not count) is an approval of that commit. */
function approvedHead(reviews: readonly PullRequestReviewRecord[], head: string): string[] {
  const latest = new Map<string, PullRequestReviewRecord>();
  for (const review of reviews)
    if (review.user !== null && review.state !== 'COMMENTED' && review.state !== 'PENDING')
      latest.set(review.user.toLowerCase(), review);
  return [...latest.values()]
    .filter((review) => review.state === 'APPROVED' && review.commitId === head)
    .map((review) => review.user!);
}

function judgeOf(input: PullRequestInput, sha: string): CommitJudge {
  const found = input.attribution?.get(sha);
  if (found !== undefined) return found;
  return input.perimeter !== null
    ? { kind: 'perimeter', perimeter: input.perimeter, by: "the pull request's perimeter" }
    : { kind: 'unattributed', reason: `commit ${short(sha)} cannot be attributed to a perimeter` };
}

/** A file's line in the summary: decided by the perimeter that judged it, or a person's change. */
function decide(change: Change, made: Made, branch: string): FileDecision {
  if (made.perimeter !== null) return decideFile(change, branch, [made.perimeter]);
  return { ...change, allowed: true, rule: `not judged: ${made.by || 'no perimeter judged it'}` };
}

/** The blobs' sizes and credentials, read only when every path is writable (else the commit fails anyway). */
async function blobsOf(
  upstream: RepoReads,
  changes: Change[],
  branch: string,
  perimeter: Perimeter,
  filter: AnswerFilter,
): Promise<BlobFactsReading> {
  if (
    fileViolations(changes, branch, [perimeter]).length > 0 ||
    changes.length > perimeter.spec.limits.filesPerPush
  )
    return { facts: new Map(), unread: [] };
  return readBlobFacts(upstream, changes, filter);
}

function dedupe(violations: Violation[]): Violation[] {
  return [...new Map(violations.map((v) => [v.message, v])).values()];
}

function verdictOf(
  input: PullRequestInput,
  judges: Map<string, CommitJudge>,
  found: { unchecked: string[]; files: FileDecision[]; violations: Violation[]; mergeBase: string | null },
): Verdict {
  const { pull, commits } = input;
  const state = found.violations.length > 0 ? 'failure' : found.unchecked.length > 0 ? 'error' : 'success';
  const all = [...judges.entries()];
  const shas = (kind: CommitJudge['kind']) => all.filter(([, j]) => j.kind === kind).map(([sha]) => sha);
  const names = [...new Set(all.flatMap(([, j]) => (j.kind === 'perimeter' ? [j.perimeter.name] : [])))];
  const people = shas('person');
  const assigned =
    input.perimeter === null
      ? 'no perimeter assigned to it'
      : `assigned perimeter "${input.perimeter.name}" (${input.assignedBy ?? ''})`;
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
      direct: shas('perimeter'),
      others: people,
      unattributed: shas('unattributed'),
      complete: found.unchecked.length === 0,
    },
    pushes: [],
    others: [],
    identity: null,
    perPerimeter: {},
    unchecked: found.unchecked,
    notes: [
      `pull request #${pull.number} by ${pull.author} from "${pull.headRef}" into "${pull.baseRef}" (${assigned}), each of its ${commits.length} commit(s) judged by itself, by whoever made it:`,
      ...all.map(([sha, j]) =>
        j.kind === 'perimeter'
          ? `commit ${short(sha)}: perimeter "${j.perimeter.name}", ${j.by}`
          : j.kind === 'person'
            ? `commit ${short(sha)}: ${j.login}'s own, not judged (${j.by})`
            : `commit ${short(sha)}: not attributed: ${j.reason}`,
      ),
    ],
    pullRequest: {
      number: pull.number,
      author: pull.author,
      perimeter: names.join(', '),
      commits: commits.length,
      ...(people.length > 0 ? { people: people.length } : {}),
    },
  };
}
