import type { Perimeter } from '../../policy/index.js';
import type { BlobFacts, Change } from '../change.js';
import { fileViolations } from './file-decisions.js';
import type { Violation } from '../types.js';

export interface CommitToJudge {
  /** how violations name the commit, e.g. 'staged commit 2 (abc1234)' */
  label: string;
  /** what the commit changes against its parent(s) */
  changes: Change[];
  /** the facts of a blob the commit adds or modifies; undefined: not read, so not shown within the rules */
  blob(sha: string): BlobFacts | undefined;
}

export interface CommitJudgement {
  violations: Violation[];
  /** what could not be shown (a blob not read): keeps the verdict from success, never a violation */
  unchecked: string[];
  /** the perimeter that may make the whole commit, or null */
  madeBy: string | null;
}

/** A reason one perimeter may not make a commit; `unknown`: a blob it needs was not read. */
type Refusal = { kind: 'structure'; why: string } | { kind: 'unknown'; why: string };

const LISTED_PATHS = 3;

/**
 * The one rule that decides a commit, in every judge (the receipt, the verify job, apply, the gate, replay and
 * audit): every changed path is valid, no symlink or submodule, and one perimeter bound to `branch` could
 * have made the whole commit in one push: every path writable by it, within its limits (files-per-push,
 * bytes-per-file, bytes-per-push), and no credential in a file outside its `allow-secrets-in`. A commit that
 * needs two perimeters is a violation naming what each one lacks.
 */
export function judgeCommit(commit: CommitToJudge, branch: string, perimeters: Perimeter[]): CommitJudgement {
  const files = fileViolations(commit.changes, branch, perimeters);
  if (files.length > 0) return { violations: files, unchecked: [], madeBy: null };
  const bound = perimeters.filter((p) => p.allowsBranch(branch));
  if (bound.length === 0)
    return {
      violations: [
        { kind: 'path', message: `${commit.label}: no exposed perimeter may work on branch "${branch}"` },
      ],
      unchecked: [],
      madeBy: null,
    };
  const judged = bound.map((perimeter) => ({
    perimeter,
    refusals: refusalsOf(perimeter, commit),
    secrets: secretsFor(perimeter, commit),
  }));
  const maker = judged.find((j) => j.refusals.length === 0 && j.secrets.length === 0);
  if (maker !== undefined) return { violations: [], unchecked: [], madeBy: maker.perimeter.name };
  const structural = judged.filter((j) => j.refusals.every((r) => r.kind === 'unknown'));
  // a perimeter that may make it but for credentials: each file holding one is the violation
  const sound = structural.find((j) => j.refusals.length === 0);
  if (sound !== undefined)
    return {
      violations: sound.secrets.map(({ path, kinds }) => ({
        kind: 'path' as const,
        path,
        message: `${path}: looks like it contains a credential (${kinds.join(', ')}), and "${sound.perimeter.name}" does not allow secrets in it (allow-secrets-in)`,
      })),
      unchecked: [],
      madeBy: null,
    };
  const unknown = structural[0];
  if (unknown !== undefined)
    return {
      violations: [],
      unchecked: [
        `${commit.label}: ${unknown.refusals[0]!.why}, so its limits and credentials were not checked`,
      ],
      madeBy: null,
    };
  const reasons = judged.map((j) => `"${j.perimeter.name}" ${j.refusals.map((r) => r.why).join(', ')}`);
  return {
    violations: [
      {
        kind: 'path',
        message: `${commit.label}: no one perimeter may make the whole commit (${reasons.join('; ')})`,
      },
    ],
    unchecked: [],
    madeBy: null,
  };
}

/** Why `perimeter` could not have made the commit in one push, by its paths and limits. */
function refusalsOf(perimeter: Perimeter, commit: CommitToJudge): Refusal[] {
  const { limits } = perimeter.spec;
  const refusals: Refusal[] = [];
  const barred = commit.changes.filter((change) => !perimeter.canWrite(change.path).allowed);
  if (barred.length > 0) {
    const named = barred.slice(0, LISTED_PATHS).map((change) => change.path);
    const more = barred.length > LISTED_PATHS ? ` and ${barred.length - LISTED_PATHS} more` : '';
    refusals.push({ kind: 'structure', why: `may not write ${named.join(', ')}${more}` });
  }
  if (commit.changes.length > limits.filesPerPush)
    refusals.push({
      kind: 'structure',
      why: `may push ${limits.filesPerPush} path(s) at once, and the commit changes ${commit.changes.length}`,
    });
  let bytes = 0;
  let unread = 0;
  for (const change of commit.changes) {
    if (change.kind === 'deleted') continue;
    const blob = commit.blob(change.newSha!);
    if (blob === undefined) {
      unread++;
      continue;
    }
    if (blob.size > limits.bytesPerFile)
      refusals.push({
        kind: 'structure',
        why: `may write ${limits.bytesPerFile} bytes a file, and ${change.path} holds ${blob.size}`,
      });
    bytes += blob.size;
  }
  if (bytes > limits.bytesPerPush)
    refusals.push({
      kind: 'structure',
      why: `may push ${limits.bytesPerPush} bytes at once, and the commit holds ${bytes}`,
    });
  if (unread > 0) refusals.push({ kind: 'unknown', why: `the content of ${unread} file(s) was not read` });
  return refusals;
}

/** The files of the commit holding a credential that `perimeter` does not allow secrets in. */
function secretsFor(
  perimeter: Perimeter,
  commit: CommitToJudge,
): Array<{ path: string; kinds: readonly string[] }> {
  return commit.changes.flatMap((change) => {
    if (change.kind === 'deleted') return [];
    const kinds = commit.blob(change.newSha!)?.credentials ?? [];
    return kinds.length > 0 && perimeter.allowsSecretsIn(change.path) === null
      ? [{ path: change.path, kinds }]
      : [];
  });
}
