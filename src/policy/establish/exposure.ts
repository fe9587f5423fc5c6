import { compilePerimeter, type Perimeter } from '../perimeter.js';
import type { Config } from '../spec.js';

/**
 * Which perimeters a gateway exposes, the one rule for the action, its gateway process, `perimeter serve`
 * and every other way of starting a gateway. It fails closed:
 * 1. the perimeters named (all of perimeters.yml's when none are named, in file order);
 * 2. a name the file does not define is an error, and so is an empty selection;
 * 3. a selected perimeter that may not be bound to the branch (its `branches`) is an error, never skipped;
 * 4. when the branch is the repository's default branch, a selected perimeter whose `branches` does not name
 *    it is an error too (checkDefaultBranch).
 * The action then applies the `trust` rule to the trigger (src/policy/establish/establish.ts).
 */
export function selectPerimeters(
  config: Config,
  names: readonly string[] | null,
  branch: string,
  defaultBranch: string,
): Perimeter[] {
  const defined = config.perimeters.map((p) => p.name);
  const chosen = names ?? defined;
  const unknown = chosen.filter((n) => !defined.includes(n));
  if (unknown.length > 0) {
    throw new ExposureError(
      'unknown-perimeter',
      `no perimeter named ${quoted(unknown)} in ${config.file}; it defines ${quoted(defined) || 'none'}`,
      unknown,
    );
  }
  if (chosen.length === 0)
    throw new ExposureError('no-perimeter', `${config.file} defines no perimeters`, []);
  const perimeters = config.perimeters
    .filter((spec) => chosen.includes(spec.name))
    .map((spec) => compilePerimeter(spec, config.file));
  checkBranch(perimeters, branch);
  checkDefaultBranch(perimeters, branch, defaultBranch);
  return perimeters;
}

/** Throws unless every perimeter may be bound to `branch`. */
export function checkBranch(perimeters: readonly Perimeter[], branch: string): void {
  const refused = perimeters.filter((p) => !p.allowsBranch(branch));
  if (refused.length === 0) return;
  const lines = refused.map(
    (p) => `perimeter "${p.name}" allows branches ${JSON.stringify(p.spec.branches)}`,
  );
  throw new ExposureError(
    'branch-not-allowed',
    `branch ${JSON.stringify(branch)} is not allowed for ${refused.length === 1 ? 'this perimeter' : 'these perimeters'}: ` +
      lines.join('; '),
    refused.map((p) => p.name),
  );
}

/**
 * Throws unless every perimeter bound to the repository's default branch names it in `branches`. The default
 * branch is what people ship from: a perimeter with no `branches` (any branch), or with globs that only happen
 * to match it, is never bound there by accident. Naming means a `branches` entry equal to the branch name.
 */
export function checkDefaultBranch(
  perimeters: readonly Perimeter[],
  branch: string,
  defaultBranch: string,
): void {
  if (defaultBranch === '')
    throw new Error('checkDefaultBranch: the default branch is unknown; read it from the repository first');
  if (branch !== defaultBranch) return;
  const refused = perimeters.filter((p) => !(p.spec.branches ?? []).includes(branch));
  if (refused.length === 0) return;
  const lines = refused.map(
    (p) =>
      `perimeter "${p.name}" ${p.spec.branches === null ? 'has no branches list' : `has branches ${JSON.stringify(p.spec.branches)}`}`,
  );
  throw new ExposureError(
    'default-branch-not-named',
    `branch ${JSON.stringify(branch)} is the repository's default branch, and a perimeter may be bound to it ` +
      `only when its branches list names it: ${lines.join('; ')}. ` +
      `Bind the agents to another branch, or add ${JSON.stringify(branch)} to branches`,
    refused.map((p) => p.name),
  );
}

export type ExposureCode =
  'unknown-perimeter' | 'no-perimeter' | 'branch-not-allowed' | 'default-branch-not-named';

export class ExposureError extends Error {
  override name = 'ExposureError';
  constructor(
    readonly code: ExposureCode,
    message: string,
    /** the perimeters the problem is about: the unknown names, or the ones refusing the branch */
    readonly perimeters: string[],
  ) {
    super(message);
  }
}

function quoted(names: string[]): string {
  return names.map((n) => JSON.stringify(n)).join(', ');
}
