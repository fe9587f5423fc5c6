/**
 * Whose work a commit of a pull request is, for the pull-request gate: the account GitHub vouches made it, and
 * the perimeter perimeters.yml gives that account's commits. Pure: the gate reads what GitHub says about each
 * commit (its commits API) and hands it in.
 *
 * Only GitHub's word is taken, never the commit's own author or committer lines (anyone writing a commit with
 * git chooses those). GitHub vouches for a commit in one way: a signature it verified
 * (https://docs.github.com/rest/git/commits#signature-verification-object). A commit GitHub made itself (the web
 * editor, a merge button, an API or createCommitOnBranch commit without a custom author or committer) is signed
 * with its web-flow key and names web-flow as committer; GitHub writes the author as the account that made it
 * (the token's: github-actions[bot], an App's bot, Copilot), so that account is the maker. Any other verified
 * signature is by a key of the committer's account, so the committer is the maker. Unsigned or unverified: no
 * maker.
 */
import type { PerimeterSpec } from '../spec.js';

/** An account as GitHub links it to a commit (the commits API's `author` / `committer`). */
export interface LinkedAccount {
  login: string;
  /** GitHub's account type: "User", "Bot", "Organization" */
  type: string;
}

/** What GitHub says about one commit. */
export interface CommitIdentityFacts {
  sha: string;
  author: LinkedAccount | null;
  committer: LinkedAccount | null;
  /** `verification.verified` and `verification.reason` */
  verified: boolean;
  reason: string;
}

/** The account whose signature GitHub checked for the commits it makes itself. */
export const WEB_FLOW_LOGIN = 'web-flow';

export type Maker = { account: LinkedAccount; how: string } | { account: null; why: string };

/** The account GitHub vouches made the commit, or why there is none. */
export function makerOf(facts: CommitIdentityFacts): Maker {
  if (!facts.verified || facts.reason !== 'valid')
    return { account: null, why: `GitHub does not verify its signature (${facts.reason})` };
  if (facts.committer === null)
    return { account: null, why: 'its verified signature is by a key GitHub links to no account' };
  if (facts.committer.login.toLowerCase() !== WEB_FLOW_LOGIN)
    return { account: facts.committer, how: `signed with a key of ${facts.committer.login}` };
  if (facts.author === null)
    return { account: null, why: 'GitHub made it (web-flow) for an account it does not name' };
  return { account: facts.author, how: 'made by GitHub for it (web-flow)' };
}

export type Attribution =
  /** judged by `spec`; `by` says why, e.g. 'made by "Copilot" (made by GitHub for it (web-flow))' */
  | { kind: 'perimeter'; spec: PerimeterSpec; by: string }
  /** a person's own commit, GitHub vouches: theirs, listed and not judged */
  | { kind: 'person'; login: string; by: string }
  | { kind: 'unattributed'; reason: string };

const short = (sha: string): string => sha.slice(0, 7);

/**
 * Judges a commit by its maker: the perimeter whose `pull-requests.authors` names the account (the pull
 * request's own perimeter first, where several name it), else, for a person's account no perimeter names,
 * nobody (a person's commits are theirs). A bot no perimeter names, or several perimeters naming it, is
 * unattributed. A commit without a maker GitHub vouches for is judged by the pull request's perimeter, as
 * every commit of an agent's pull request is (a false failure, never a false success); without one it is
 * unattributed.
 */
export function attributeCommit(
  specs: PerimeterSpec[],
  facts: CommitIdentityFacts,
  pullRequestSpec: PerimeterSpec | null,
): Attribution {
  const maker = makerOf(facts);
  if (maker.account === null)
    return pullRequestSpec !== null
      ? {
          kind: 'perimeter',
          spec: pullRequestSpec,
          by: `no maker GitHub vouches for (${maker.why}): the pull request's perimeter`,
        }
      : {
          kind: 'unattributed',
          reason: `commit ${short(facts.sha)} cannot be attributed: ${maker.why}, and no perimeter is assigned to the pull request`,
        };
  const { login, type } = maker.account;
  const by = `made by "${login}" (${maker.how})`;
  const naming = specs.filter((spec) =>
    (spec.pullRequests?.authors ?? []).some((a) => a.toLowerCase() === login.toLowerCase()),
  );
  const own = naming.find((spec) => spec.name === pullRequestSpec?.name);
  if (own !== undefined) return { kind: 'perimeter', spec: own, by };
  if (naming.length === 1) return { kind: 'perimeter', spec: naming[0]!, by };
  if (naming.length > 1)
    return {
      kind: 'unattributed',
      reason: `commit ${short(facts.sha)} is ${by}, and more than one perimeter names it: ${naming.map((s) => s.name).join(', ')}`,
    };
  // GitHub's account type, not the login: an App's bot or Copilot is never a person
  if (type !== 'User')
    return {
      kind: 'unattributed',
      reason: `commit ${short(facts.sha)} is ${by}, a ${type} account no perimeter's "pull-requests.authors" names`,
    };
  return { kind: 'person', login, by };
}
