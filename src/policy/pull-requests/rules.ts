/**
 * Which perimeter judges a pull request that an agent running elsewhere (Copilot coding agent, say) opened:
 * perimeters.yml `pull-requests: { authors, branches }`. Pure: the verify job reads the pull request from
 * GitHub and hands in its author and head branch.
 */
import { compileGlobList } from '../glob.js';
import type { PerimeterSpec, PullRequestRule } from '../spec.js';

export interface PullRequestFacts {
  author: string;
  headBranch: string;
}

export type Assignment =
  | { kind: 'assigned'; spec: PerimeterSpec; rule: string }
  | { kind: 'none'; reason: string }
  | { kind: 'ambiguous'; names: string[]; reason: string };

/** GitHub logins: letters, digits and single hyphens; apps end in "[bot]". */
export function loginProblem(login: string): string | null {
  return /^[A-Za-z0-9](?:-?[A-Za-z0-9])*(?:\[bot\])?$/.test(login) && login.length <= 50
    ? null
    : 'not a GitHub login (letters, digits and single hyphens; apps end in "[bot]")';
}

/** Why `rule` matches the pull request (e.g. 'author "Copilot", head branch glob "copilot/**"'), or null. */
export function pullRequestMatch(rule: PullRequestRule, facts: PullRequestFacts): string | null {
  const why: string[] = [];
  if (rule.authors.length > 0) {
    // GitHub logins are unique without regard to case
    const author = facts.author.toLowerCase();
    const login = rule.authors.find((a) => a.toLowerCase() === author);
    if (login === undefined) return null;
    why.push(`author ${JSON.stringify(login)}`);
  }
  if (rule.branches.length > 0) {
    const glob = facts.headBranch === '' ? null : compileGlobList(rule.branches).find(facts.headBranch);
    if (glob === null) return null;
    why.push(`head branch glob ${JSON.stringify(glob)}`);
  }
  return why.length === 0 ? null : why.join(', ');
}

/**
 * The one perimeter whose `pull-requests` rule matches (authors and branches both, where both are given).
 * None, or more than one, is no assignment: the pull request is not judged against a guess.
 */
export function assignPullRequest(specs: PerimeterSpec[], facts: PullRequestFacts): Assignment {
  const matches = specs.flatMap((spec) => {
    const rule = spec.pullRequests === undefined ? null : pullRequestMatch(spec.pullRequests, facts);
    return rule === null ? [] : [{ spec, rule }];
  });
  const who = `by "${facts.author}" from "${facts.headBranch}"`;
  if (matches.length === 1) return { kind: 'assigned', ...matches[0]! };
  if (matches.length === 0)
    return {
      kind: 'none',
      reason: `no perimeter is assigned to pull requests ${who} (no "pull-requests" rule matches)`,
    };
  const names = matches.map((m) => m.spec.name);
  return {
    kind: 'ambiguous',
    names,
    reason: `more than one perimeter is assigned to pull requests ${who}: ${names.join(', ')} (make their "pull-requests" rules exclusive)`,
  };
}
