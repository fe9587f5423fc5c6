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
  const written = commit.changes.flatMap((change) => (change.kind === 'deleted' ? [] : [change]));
  const read = written.flatMap(({ path, newSha }) => {
    const blob = commit.blob(newSha!);
    return blob === undefined ? [] : [{ path, ...blob }];
  });
  const unread = written.length - read.length;
  const judged = bound.map((perimeter) => ({
    perimeter,
    refusals: refusalsOf(perimeter, commit.changes, read),
    secrets: secretsFor(perimeter, read),
  }));
  // the perimeters that may make it by its paths and by the limits of what was read
  const able = judged.filter((j) => j.refusals.length === 0);
  if (able.length > 0 && unread > 0)
    return {
      violations: [],
      unchecked: [
        `${commit.label}: the content of ${unread} file(s) was not read, so its limits and credentials were not checked`,
      ],
      madeBy: null,
    };
  const maker = able.find((j) => j.secrets.length === 0);
  if (maker !== undefined) return { violations: [], unchecked: [], madeBy: maker.perimeter.name };
  // a perimeter that may make it but for credentials: each file holding one is the violation
  const sound = able[0];
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
  const reasons = judged.map((j) => `"${j.perimeter.name}" ${j.refusals.join(', ')}`);
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

/** The files of a commit whose content was read. */
type ReadFile = BlobFacts & { path: string };

/** Why `perimeter` could not have made the commit in one push, by its paths and the limits of what was read. */
function refusalsOf(perimeter: Perimeter, changes: Change[], read: ReadFile[]): string[] {
  const { limits } = perimeter.spec;
  const refusals: string[] = [];
  const barred = changes.filter((change) => !perimeter.canWrite(change.path).allowed);
  if (barred.length > 0) {
    const named = barred.slice(0, LISTED_PATHS).map((change) => change.path);
    const more = barred.length > LISTED_PATHS ? ` and ${barred.length - LISTED_PATHS} more` : '';
    refusals.push(`may not write ${named.join(', ')}${more}`);
  }
  if (changes.length > limits.filesPerPush)
    refusals.push(
      `may push ${limits.filesPerPush} path(s) at once, and the commit changes ${changes.length}`,
    );
  for (const file of read)
    if (file.size > limits.bytesPerFile)
      refusals.push(`may write ${limits.bytesPerFile} bytes a file, and ${file.path} holds ${file.size}`);
  const bytes = read.reduce((sum, file) => sum + file.size, 0);
  if (bytes > limits.bytesPerPush)
    refusals.push(`may push ${limits.bytesPerPush} bytes at once, and the commit holds ${bytes}`);
  return refusals;
}

/** The files of the commit holding a credential that `perimeter` does not allow secrets in. */
function secretsFor(
  perimeter: Perimeter,
  read: ReadFile[],
): Array<{ path: string; kinds: readonly string[] }> {
  return read.flatMap(({ path, credentials }) =>
    credentials.length > 0 && perimeter.allowsSecretsIn(path) === null ? [{ path, kinds: credentials }] : [],
  );
}
