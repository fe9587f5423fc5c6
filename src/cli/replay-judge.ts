import type { Perimeter } from '../policy/index.js';

/**
 * `perimeter replay`'s decisions, free of I/O: which perimeter could have made each commit (every path it
 * changed writable by that perimeter), and what changes between a base config and a proposed one.
 */
export interface Refusal {
  path: string;
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

export function judgeCommit(paths: readonly string[], perimeter: Perimeter): CommitVerdict {
  if (!perimeter.tools.has('push_files')) {
    const refused = paths.map((path) => ({ path, rule: 'no push_files tool: it cannot write at all' }));
    return { allowed: false, refused };
  }
  const refused: Refusal[] = [];
  for (const path of paths) {
    const decision = perimeter.canWrite(path);
    if (!decision.allowed) refused.push({ path, rule: decision.rule });
  }
  return { allowed: refused.length === 0, refused };
}

export function replayCommits(
  commits: ReadonlyArray<{ sha: string; subject: string; paths: readonly string[] }>,
  perimeters: readonly Perimeter[],
): ReplayRow[] {
  return commits.map((commit) => ({
    sha: commit.sha,
    subject: commit.subject,
    paths: commit.paths.length,
    verdicts: Object.fromEntries(perimeters.map((p) => [p.name, judgeCommit(commit.paths, p)])),
  }));
}

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
      const wasRefused = new Set(was?.refused.map((r) => r.path));
      const nowRefused = new Set(now?.refused.map((r) => r.path));
      const newlyRefused = (now?.refused ?? []).filter((r) => was !== undefined && !wasRefused.has(r.path));
      const newlyAllowed = [...wasRefused].filter((path) => now !== undefined && !nowRefused.has(path));
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
