import type { Change } from '../change.js';
import { type Perimeter, protectedRule } from '../../policy/index.js';
import type { FileDecision, Violation } from '../types.js';

export const SYMLINK = '120000';
export const SUBMODULE = '160000';

/** Whether some exposed perimeter bound to `branch` may write `path`, and the rule that decided. */
export function decideWrite(
  path: string,
  branch: string,
  perimeters: Perimeter[],
): { allowed: boolean; rule: string; perimeter?: string } {
  const bound = perimeters.filter((perimeter) => perimeter.allowsBranch(branch));
  if (bound.length === 0) {
    return { allowed: false, rule: `no exposed perimeter may work on branch "${branch}"` };
  }
  const refusals: string[] = [];
  for (const perimeter of bound) {
    const decision = perimeter.canWrite(path);
    if (decision.allowed)
      return { allowed: true, rule: `${perimeter.name}: ${decision.rule}`, perimeter: perimeter.name };
    refusals.push(`${perimeter.name}: ${decision.rule}`);
  }
  const guarded = protectedRule(path);
  if (guarded !== null && !refusals.some((refusal) => refusal.includes('protected'))) {
    refusals.push(`protected: ${guarded}`);
  }
  return { allowed: false, rule: refusals.join('; ') };
}

export function decideFile(change: Change, branch: string, perimeters: Perimeter[]): FileDecision {
  if (change.problem !== undefined)
    return { ...change, allowed: false, rule: `invalid path: ${change.problem}` };
  const write = decideWrite(change.path, branch, perimeters);
  const arrives = change.kind !== 'deleted';
  // A retargeted symlink or submodule is as new as a fresh one: its target was not checked either.
  if (arrives && change.newMode === SYMLINK)
    return { ...change, allowed: false, rule: 'symlinks are never allowed' };
  if (arrives && change.newMode === SUBMODULE)
    return { ...change, allowed: false, rule: 'submodules are never allowed' };
  return { ...change, ...write };
}

/** The violations among changed files, by the rules of the verdict (the apply job re-judges staged commits so). */
export function fileViolations(changes: Change[], branch: string, perimeters: Perimeter[]): Violation[] {
  return changes
    .map((change) => decideFile(change, branch, perimeters))
    .filter((file) => !file.allowed)
    .map(fileViolation);
}

export function fileViolation(file: FileDecision): Violation {
  const kind =
    file.newMode === SYMLINK && file.kind !== 'deleted'
      ? 'symlink'
      : file.newMode === SUBMODULE && file.kind !== 'deleted'
        ? 'submodule'
        : 'path';
  const what = kind === 'path' ? `${file.kind} outside every perimeter` : `${kind} ${file.kind}`;
  const when = file.transient ? ' by an intermediate commit' : '';
  return { kind, path: file.path, message: `${file.path}: ${what}${when} (${file.rule})` };
}
