import type { Perimeter } from '../policy/index.js';
import { judgeCommit, type BlobFacts, type Change, type Violation } from '../verify/index.js';

/**
 * `perimeter replay`'s decisions, free of I/O: which perimeter could have made each commit, judged by the
 * receipt's own rule (verify's judgeCommit), and what changes between a base config and a proposed one.
 */
export interface Refusal {
  /** absent: the commit as a whole (over the perimeter's limits) */
  path?: string;
  rule: string;
}

export interface CommitVerdict {
  allowed: boolean;
  refused: Refusal[];
}

export interface ReplayRow {
  sha: string;
  subject: string;
  paths: number;
  /** By perimeter name, in the config's order. */
  verdicts: Record<string, CommitVerdict>;
}

export interface ReplayChange {
  sha: string;
  subject: string;
  perimeter: string;
  /** `absent`: the perimeter does not exist in that config. */
  before: 'allowed' | 'refused' | 'absent';
  after: 'allowed' | 'refused' | 'absent';
  /** Paths refused now that the base allowed, and the other way round. */
  newlyRefused: Refusal[];
  newlyAllowed: string[];
}

export interface ReplayCommit {
  sha: string;
  subject: string;
  changes: Change[];
}

/** What a commit-wide refusal is called where paths are listed. */
export const WHOLE_COMMIT = 'the commit as a whole';

/** A violation as a refusal: its message without the path or commit it begins with. */
function refusalOf(violation: Violation, label: string): Refusal {
  const { path, message } = violation;
  const prefix = `${path ?? label}: `;
  const rule = message.startsWith(prefix) ? message.slice(prefix.length) : message;
  return path === undefined ? { rule } : { path, rule };
}

/** One commit judged for one perimeter on `branch`, exactly as the receipt, apply and the gate judge it. */
export function judgeReplayCommit(
  commit: ReplayCommit,
  branch: string,
  perimeter: Perimeter,
  blob: (sha: string) => BlobFacts | undefined,
): CommitVerdict {
  const label = commit.sha.slice(0, 7);
  const judged = judgeCommit({ label, changes: commit.changes, blob }, branch, [perimeter]);
  const refused = [
    ...judged.violations.map((v) => refusalOf(v, label)),
    ...judged.unchecked.map((why) => ({ rule: `not checked: ${why}` })),
  ];
  return { allowed: refused.length === 0, refused };
}

export function replayCommits(
  commits: readonly ReplayCommit[],
  branch: string,
  perimeters: readonly Perimeter[],
  blob: (sha: string) => BlobFacts | undefined,
): ReplayRow[] {
  return commits.map((commit) => ({
    sha: commit.sha,
    subject: commit.subject,
    paths: commit.changes.length,
    verdicts: Object.fromEntries(perimeters.map((p) => [p.name, judgeReplayCommit(commit, branch, p, blob)])),
  }));
}

/** Git allows no empty path, so '' stands for the commit as a whole. */
const keyOf = (refusal: Refusal): string => refusal.path ?? '';

const state = (verdict: CommitVerdict | undefined) =>
  verdict === undefined ? 'absent' : verdict.allowed ? 'allowed' : 'refused';

/** Every (commit, perimeter) whose verdict or refused paths differ between the two replays of one range. */
export function compareReplays(base: readonly ReplayRow[], proposed: readonly ReplayRow[]): ReplayChange[] {
  const changes: ReplayChange[] = [];
  const baseBySha = new Map(base.map((row) => [row.sha, row]));
  for (const row of proposed) {
    const before = baseBySha.get(row.sha)?.verdicts ?? {};
    const names = [...new Set([...Object.keys(before), ...Object.keys(row.verdicts)])];
    for (const name of names) {
      const was = before[name];
      const now = row.verdicts[name];
      const wasRefused = new Set(was?.refused.map(keyOf));
      const nowRefused = new Set(now?.refused.map(keyOf));
      const newlyRefused = (now?.refused ?? []).filter((r) => was !== undefined && !wasRefused.has(keyOf(r)));
      const newlyAllowed = [...wasRefused]
        .filter((key) => now !== undefined && !nowRefused.has(key))
        .map((key) => key || WHOLE_COMMIT);
      if (state(was) === state(now) && newlyRefused.length === 0 && newlyAllowed.length === 0) continue;
      changes.push({
        sha: row.sha,
        subject: row.subject,
        perimeter: name,
        before: state(was),
        after: state(now),
        newlyRefused,
        newlyAllowed,
      });
    }
  }
  return changes;
}

/**
 * What "ok" in replay's table means on `branch`. The action binds a perimeter to the repository's default
 * branch only when its `branches` list names it (policy's checkDefaultBranch), whatever its globs allow; so on
 * the default branch (or a branch that may be it, when the checkout does not know its default) "ok" for such a
 * perimeter is a commit it could have made on an agent's branch, not one it could have pushed there.
 */
export function okMeaning(
  branch: string,
  perimeters: readonly Perimeter[],
  defaultBranch: string | null,
): string {
  const shown = JSON.stringify(branch);
  const unnamed = perimeters.filter((p) => !(p.spec.branches ?? []).includes(branch)).map((p) => p.name);
  if ((defaultBranch !== null && defaultBranch !== branch) || unnamed.length === 0)
    return `"ok": that perimeter could have pushed it to ${shown}, judged as the receipt judges`;
  const all = unnamed.length === perimeters.length;
  const where =
    defaultBranch === branch
      ? `${shown} is the default branch`
      : `if ${shown} is the default branch (this checkout does not say)`;
  return (
    `"ok": its rules allow the commit, as the receipt judges; ${where}, the action binds a perimeter there ` +
    `only when its branches list names it, which ${all ? 'none of these perimeters does' : `${unnamed.join(', ')} do not`}: ` +
    `for ${all ? 'them' : 'those'} "ok" means a commit made on a branch of its own`
  );
}
