import type { FakeRepo } from '../repo.js';
import { requiredCheckViolations } from './required-checks.js';
import { lockRefusals, requiredChecksFor, type LockRule } from './ruleset.js';

/**
 * GitHub's refusal of a ref change that rules forbid, each violation after a blank line. GitHub does not
 * document the form; its REST API answers it so (https://github.com/satisfactory-factories/application/issues/67).
 */
export const ruleRefusal = (violations: string[]): string =>
  `Repository rule violations found\n\n${violations.join('\n\n')}\n\n`;

/**
 * The required status checks binding `branch` that commit `sha` does not satisfy: "Choose which status checks
 * must pass before the ref is updated. When enabled, commits must first be pushed to another ref where the
 * checks pass" (https://docs.github.com/rest/repos/rules#create-a-repository-ruleset). `creating` leaves out
 * rules with `do_not_enforce_on_create`; `base` (a merge) also holds the head to the strict policy, "whether
 * pull requests targeting a matching branch must be tested with the latest code".
 */
export async function requiredCheckRefusals(
  repo: FakeRepo,
  branch: string,
  sha: string,
  options: { base?: string; creating?: boolean } = {},
): Promise<string[]> {
  const { checks, strict } = requiredChecksFor(
    repo.rulesets,
    branch,
    await repo.defaultBranch(),
    options.creating ?? false,
  );
  if (checks.length === 0) return [];
  const violations = requiredCheckViolations(
    checks,
    repo.checkRuns.filter((run) => run.headSha === sha),
    repo.statuses.filter((status) => status.sha === sha),
  );
  // the words are GraphQL's for a head behind its base (MergeStateStatus.BEHIND); GitHub's refusal is not
  // documented
  if (options.base && strict && !(await repo.isAncestor(options.base, sha)))
    violations.push('The head ref is out of date.');
  return violations;
}

/**
 * The lock rules (`creation`, `update`, `deletion`) a ref change breaks: "Only allow users with bypass
 * permission to ... matching refs" (https://docs.github.com/rest/repos/rules#create-a-repository-ruleset),
 * and in the stand-in nobody bypasses.
 */
export async function lockRefusalsFor(
  repo: FakeRepo,
  ref: string,
  type: LockRule['type'],
): Promise<string[]> {
  return lockRefusals(repo.rulesets, ref, type, await repo.defaultBranch());
}
