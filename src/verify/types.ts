import type {
  CheckRunRecord,
  PushActivity,
  Receipts,
  RepoReads,
  RepoWrites,
  StatusRecord,
} from '../github/index.js';
import type { Perimeter } from '../policy/index.js';
import type { AnswerFilter } from '../safety/index.js';
import type { BlobFacts, Change, CommitChanges } from './change.js';

/**
 * The settings that decide a verdict: the one shape every judging job reads them in. Each job takes them
 * from its own trusted source (main from its inputs, sealed for post in the runner's state; the verify job
 * and apply from theirs; audit from the owner's flags) and never from anything the agent's job hands over.
 * The other shapes (VerifyInput, ReceiptContext, ExpectedSettings, the action's Settings) pick from this one.
 */
export interface JudgingRules {
  /** repository path of the perimeters file */
  configFile: string;
  /** the ref the perimeters file is read from; null: the repository's default branch */
  configRef: string | null;
  /** the perimeters the job exposes, by name; null: every one (`all`) */
  perimeters: string[] | null;
  /** the branch every endpoint is bound to, short name */
  branch: string;
  /** `check`: pushes around the gateway are judged; `deny`: any is a violation */
  directPushes: 'check' | 'deny';
  /** a job that changed nothing on its branch fails its receipt */
  requireChanges: boolean;
  /**
   * Full ref names (globs) whose changes during the job are listed and not judged, for refs another workflow
   * moves with the same identity as this job's token (or that GitHub records no actor for, like tags).
   * Never the bound branch.
   */
  ignoreRefs: string[];
  /** the receipt's context: the commit status context, also the check run's name */
  statusContext: string;
  /** the event that started the run (GITHUB_EVENT_NAME, '' outside a runner), for the file's trust rule */
  eventName: string;
  /** its payload (GITHUB_EVENT_PATH), null when absent or unreadable */
  event: unknown;
}

/** Full ref name ('refs/heads/main', 'refs/tags/v1') to the SHA it points at. */
export type RefSnapshot = Record<string, string>;

/** What the post step learned from the gateway's ledger (readLedgerFacts). */
export interface LedgerFacts {
  ok: boolean;
  problem?: string;
  /** SHAs of the commits the gateway made */
  commits: string[];
  /** records that verified (all of them when ok), and the MAC of the last of them: the chain head */
  records?: number;
  head?: string;
  perPerimeter: Record<string, PerimeterCounts>;
  /** what the agents asked to write with request_scope, oldest first (absent: nothing) */
  scopeRequests?: ScopeRequest[];
}

/** One request_scope call the gateway recorded. */
export interface ScopeRequest {
  perimeter: string;
  glob: string;
  reason: string;
}

/** Per perimeter: calls, refusals, and (when any) values hidden from answers and pushes refused for credentials. */
export interface PerimeterCounts {
  calls: number;
  refusals: number;
  hidden?: number;
  credentialRefusals?: number;
}

/** GitHub's activity list read to an end marker: every branch move up to the end snapshot, newest first. */
export interface CaughtUpActivity {
  /** the moves older than the marker's creation, at or after the window's start */
  items: PushActivity[];
  /** who GitHub records as the marker's creator (the verifying token) */
  markerActor: string | null;
  /** what went wrong around the marker (it could not be deleted) */
  notes?: string[];
}

export interface VerifyInput
  extends
    Pick<JudgingRules, 'branch' | 'directPushes'>,
    Partial<Pick<JudgingRules, 'requireChanges' | 'ignoreRefs'>> {
  upstream: RepoReads & RepoWrites & Receipts;
  start: RefSnapshot;
  end: RefSnapshot;
  /** the exposed perimeters */
  perimeters: Perimeter[];
  /** null when there is no ledger to read */
  ledger: LedgerFacts | null;
  /**
   * Finds credentials in the content the new commits add, as the gateway does on a push (with the job's own
   * secrets among them where the caller knows them); default: the secret filter without extra secrets.
   */
  filter?: AnswerFilter;
  /** what went wrong around the job, e.g. 'the gateway died'; any of them keeps the verdict from success */
  problems?: string[];
  /**
   * A time on GitHub's clock (ISO 8601) before the start snapshot was taken: GitHub's activity list is read
   * back to it. The closer to the snapshot, the fewer earlier moves are taken for the job's.
   */
  startedAt: string;
  /**
   * For an audit after the job: the time the job's end snapshot was taken. The activity list is then read
   * for the window from startedAt to endedAt, with no end marker of its own (src/verify/gathering/window.ts).
   */
  endedAt?: string;
  /** most new commits listed; more is unchecked (default 1,000) */
  maxCommits?: number;
  /**
   * The job ran with `writes: stage`, its token meant to hold `contents: read`. When GitHub then refuses the
   * end marker as not accessible and every ref ends where it started, that refusal is the proof: nothing
   * could reach the repository from this job, so there is nothing for the activity list to account for.
   */
  writesStaged?: boolean;
  /** with writesStaged: how many commits the job staged for perimeter/apply (the receipt says so) */
  stagedCommits?: number;
  /** readings of the activity list while it does not account for every branch yet (default 4) */
  activityAttempts?: number;
  /** wait before the second reading, growing linearly (default 1,500 ms) */
  activityRetryMs?: number;
  /** most new commits diffed one by one for changes the net diff hides (default 50) */
  maxCommitDiffs?: number;
  /**
   * The identity of the job's token, when the verification knows it from elsewhere (a verify job, whose own
   * token may be another identity); otherwise the end marker's creator is taken.
   */
  identity?: string | null;
  /**
   * Whether a missing ledger keeps the verdict from success (default true). A verify job reads no ledger: it
   * examines every new commit by its tree, so the ledger would only attribute them (direct-pushes: deny still
   * needs it).
   */
  ledgerExpected?: boolean;
  /**
   * The activity list already read to an end marker (readJobActivity): a verify job reads it first, to learn
   * the start from GitHub; the verification then places no marker of its own.
   */
  activity?: CaughtUpActivity;
  /** Statuses on the receipt's context to look for during the job: any Perimeter did not post is forged. */
  receiptWindow?: ReceiptWindow;
}

/**
 * A ref change by someone other than this job: another actor (a teammate, Dependabot), recorded as such in
 * GitHub's activity list, or a ref the owner named in `ignore-refs`. Listed in the receipt, never judged.
 */
export interface OtherChange {
  ref: string;
  /** who moved it, from the activity list; null: a ref GitHub records no actor for (named in ignore-refs) */
  actors: string[];
  why: string;
}

export interface RefChange {
  ref: string;
  kind: 'created' | 'moved' | 'deleted';
  before: string | null;
  after: string | null;
}

export interface FileDecision extends Change {
  allowed: boolean;
  /** what decided, e.g. 'implementer: write glob "src/**"' or 'symlinks are never allowed' */
  rule: string;
  /** the perimeter whose write glob allowed it */
  perimeter?: string;
  /** made by an intermediate commit and undone later: not in the end result, but in the history */
  transient?: boolean;
}

export type ViolationKind =
  | 'path'
  | 'symlink'
  | 'submodule'
  | 'history'
  | 'branch-deleted'
  | 'ref'
  | 'direct-push'
  | 'forged-receipt'
  | 'no-change';

export interface Violation {
  kind: ViolationKind;
  message: string;
  path?: string;
  ref?: string;
  /**
   * The new commits that made this change, oldest first, each with who pushed it as GitHub's activity list
   * records it (null: no move records it); absent: not known (the commits were not each looked at).
   */
  madeIn?: Array<{ sha: string; pusher: string | null }>;
}

export interface CommitAttribution {
  /** new commits on the bound branch made by the gateway */
  gateway: string[];
  /** new commits others pushed to the bound branch: listed, not judged */
  others: string[];
  /** new commits not made by the gateway (pushed some other way, or made elsewhere and claimed by the ledger) */
  direct: string[];
  /** new commits that could not be attributed (no usable ledger) */
  unattributed: string[];
  /** false when the walk stopped before it reached the start of the job */
  complete: boolean;
}

/** How the bound branch's changes were measured. */
export interface Baseline {
  /** the commit the end head was compared with; null: every file counts as added */
  sha: string | null;
  /** e.g. 'start of the job', 'main at the start of the job (the branch was created during the job)' */
  label: string;
}

export interface Verdict {
  /** failure: something broke the perimeters; error: something could not be checked; success: all checked, all inside */
  state: 'success' | 'failure' | 'error';
  branch: string;
  startHead: string | null;
  endHead: string | null;
  baseline: Baseline | null;
  files: FileDecision[];
  violations: Violation[];
  refChanges: RefChange[];
  commits: CommitAttribution;
  /** every branch move during the job, oldest first per branch, as GitHub's activity list records it */
  pushes: PushActivity[];
  /** refs others changed during the job (or named in ignore-refs): listed, not judged */
  others: OtherChange[];
  /** the actor GitHub records for this job's token; null: not known */
  identity: string | null;
  perPerimeter: Record<string, PerimeterCounts>;
  /** the calls the gateway answered, and of them refused, as its ledger says; null or absent: no ledger read */
  calls?: { answered: number; refused: number } | null;
  /** with `writes: stage`: the commits the job staged for perimeter/apply (absent: writes were not staged) */
  staged?: number;
  /** what could not be checked (each one alone makes the state at least error) */
  unchecked: string[];
  notes: string[];
  /**
   * The commits the receipt goes on, the bound branch's head first: with anything but success also every
   * commit a ref the verdict names held during the job, and every commit a forged receipt was found on.
   */
  receiptOn?: string[];
  /** set when the verdict is on a pull request's commits (the pull-request gate), not on a job */
  pullRequest?: {
    number: number;
    author: string;
    /** the perimeters that judged its commits, comma-separated */
    perimeter: string;
    commits: number;
    /** how many of them are a person's own, listed and not judged */
    people?: number;
  };
}

/**
 * The receipt's context during the job: which statuses on it the verification may expect (main's pending
 * one, by id), and the window in which any other one was posted by someone with the job's access.
 */
export interface ReceiptWindow {
  context: string;
  /** ids of the statuses Perimeter itself posted in the window (main's pending status) */
  known: number[];
  /** GitHub's clock: the window opens (at or before the job's token existed) */
  since: string;
  /** GitHub's clock: the window closes (the job's token had expired by then) */
  until: string;
  /** whether the receipt is also a check run of the context's name, so check runs are looked at too */
  checkRuns?: boolean;
  /** ids of check runs Perimeter itself created (an audit knows the verify job's own) */
  knownCheckRuns?: number[];
}

/** A status on the receipt's context that Perimeter did not post: a forged receipt, or one posted later. */
export interface ForeignStatus {
  sha: string;
  status: StatusRecord;
  /** false: posted after the window closed (not by the job), listed as a note */
  inWindow: boolean;
}

/** A check run named like the receipt that Perimeter did not create: a forged receipt. */
export interface ForeignCheckRun {
  sha: string;
  run: CheckRunRecord;
}

/** What one branch went through during the job, as the activity list accounts for it. */
export interface BranchHistory {
  ref: string;
  /** the moves from the start snapshot to the end snapshot, oldest first; empty when it never moved */
  moves: PushActivity[];
}

/** Everything verifyJob gathered from GitHub; judge() turns it into a verdict without any I/O. */
export interface JobFacts
  extends Pick<JudgingRules, 'ignoreRefs' | 'directPushes'>, Partial<Pick<JudgingRules, 'requireChanges'>> {
  branch: string;
  startHead: string | null;
  endHead: string | null;
  baseline: Baseline | null;
  /** true: the start head is not an ancestor of the end head; null: not known */
  historyRewritten: boolean | null;
  changes: Change[];
  /** changes made by single new commits that the net change does not show (undone later) */
  intermediate: Change[];
  /**
   * For each changed path, the new commits that changed it, where each commit was looked at on its own (or
   * the one new commit); a path absent here: not known which commit changed it.
   */
  pathCommits?: Map<string, string[]>;
  /**
   * This job's new commits, each with what it changes against its first parent, where each was looked at on
   * its own (or the one new commit): judgeCommit judges each whole. Absent: not each looked at.
   */
  commitChanges?: CommitChanges[];
  /** the size and credentials of every blob those commits add or modify (absent: not read) */
  blobs?: Map<string, BlobFacts>;
  /** every ref that changed during the job, the bound branch included */
  refChanges: RefChange[];
  /** every ref at the start of the job */
  start: RefSnapshot;
  /** commits reachable from the end head and not from the baseline, newest first; null: not known */
  newCommits: { shas: string[]; complete: boolean } | null;
  /** new commits the ledger claims that GitHub made (the gateway's, unless the ledger is forged) */
  gatewayCommits: string[];
  /** new commits other actors pushed to the bound branch (listed, not judged) */
  otherCommits: string[];
  /** the actor GitHub records for this job's token (from the end marker); null: not known */
  identity: string | null;
  /**
   * Set when GitHub showed that this job's token may not write the repository (`writes: stage`, the end
   * marker refused as not accessible): then no ref change is this job's, and each is listed, never judged.
   */
  tokenWroteNothing?: string;
  /** with `writes: stage`: the commits the job staged for perimeter/apply */
  stagedCommits?: number;
  ledger: LedgerFacts | null;
  perimeters: Perimeter[];
  /** every branch that moved during the job, by full ref name, as the activity list accounts for it; null: not known */
  branchMoves: Map<string, BranchHistory> | null;
  unchecked: string[];
  notes: string[];
  /** whether a missing ledger keeps the verdict from success (default true; a verify job reads none) */
  ledgerExpected?: boolean;
  /** statuses on the receipt's context that Perimeter did not post (only looked for by a verify job) */
  foreignStatuses?: ForeignStatus[];
  /** check runs named like the receipt that Perimeter did not create (only when the receipt is a check run) */
  foreignCheckRuns?: ForeignCheckRun[];
}
