import type { Perimeter } from '../../policy/index.js';
import type { Change } from '../change.js';
import { fileViolations } from './judge.js';
import type { Violation } from '../types.js';

export interface CommitToJudge {
  /** how violations name the commit, e.g. 'staged commit 2 (abc1234)' */
  label: string;
  /** what the commit changes against its parent(s) */
  changes: Change[];
  /** the size in bytes of a blob the commit adds or modifies */
  sizeOf(sha: string): number;
}

/**
 * One commit judged by the verdict's rules: every changed path (fileViolations), and the commit as a whole:
 * some one perimeter bound to `branch` could have made it in one push, every path writable, within its
 * limits. The apply job judges staged commits so; the pull-request gate judges each commit of a pull request so.
 */
export function judgeCommit(commit: CommitToJudge, branch: string, perimeters: Perimeter[]): Violation[] {
  const files = fileViolations(commit.changes, branch, perimeters);
  if (files.length > 0 || perimeters.some((p) => madeBy(p, commit, branch))) return files;
  return [
    {
      kind: 'path',
      message: `${commit.label}: no one perimeter may write all of its ${commit.changes.length} path(s) within its limits (files-per-push, bytes-per-file, bytes-per-push)`,
    },
  ];
}

/** Whether `perimeter` could have made this commit in one push: every path writable, within its limits. */
function madeBy(perimeter: Perimeter, commit: CommitToJudge, branch: string): boolean {
  const { limits } = perimeter.spec;
  if (!perimeter.allowsBranch(branch) || commit.changes.length > limits.filesPerPush) return false;
  let bytes = 0;
  for (const change of commit.changes) {
    if (!perimeter.canWrite(change.path).allowed) return false;
    if (change.kind === 'deleted') continue;
    const size = commit.sizeOf(change.newSha!);
    if (size > limits.bytesPerFile) return false;
    bytes += size;
  }
  return bytes <= limits.bytesPerPush;
}
