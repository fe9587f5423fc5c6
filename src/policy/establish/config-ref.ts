import type { Perimeter } from '../perimeter.js';
import { locksOn, type LockRule, type RefRuleset } from './ref-rules.js';

export interface ConfigRefFacts {
  /** the config-ref input; null when not given (the default branch is used) */
  configRef: string | null;
  defaultBranch: string;
  /** the bound branch */
  branch: string;
  /** the exposed perimeters */
  perimeters: Perimeter[];
  /** branch and tag heads at the start of the job, `refs/heads/x` -> sha */
  heads: Record<string, string>;
  /**
   * the repository's branch and tag rulesets, as GitHub answered the job's token; a ref other than the default
   * branch or a full commit SHA is trusted only when they lock it
   */
  rulesets: readonly RefRuleset[];
}

const SHA = /^[0-9a-f]{7,40}$/i;
const FULL_SHA = /^[0-9a-f]{40}$/i;

/** The branch a ref names, or null for tags and commit SHAs. Git reads `x`, `heads/x` and `refs/heads/x` alike. */
function branchOf(ref: string): string | null {
  if (ref.startsWith('refs/heads/')) return ref.slice('refs/heads/'.length);
  if (ref.startsWith('heads/')) return ref.slice('heads/'.length);
  if (ref.startsWith('refs/') || ref.startsWith('tags/') || SHA.test(ref)) return null;
  return ref;
}

/** Why the job may write `name`: it is the bound branch, or a perimeter's `branches` list names it; or null. */
function writableBecause(name: string, facts: ConfigRefFacts): string | null {
  if (name === facts.branch) return 'it is the bound branch';
  const bindable = facts.perimeters.filter((p) => p.spec.branches !== null && p.allowsBranch(name));
  if (bindable.length === 0) return null;
  return `its branches list lets perimeter ${bindable.map((p) => JSON.stringify(p.name)).join(', ')} be bound to it`;
}

/** What a config-ref is worth: usable, usable with a warning, or refused (the caller raises its own error). */
export type ConfigRefVerdict =
  { kind: 'ok' } | { kind: 'warning'; message: string } | { kind: 'refused'; message: string };

const INPUT = 'config-ref';

/**
 * Refuses a config-ref whose contents the agents' side can choose: the bound branch, a branch an exposed
 * perimeter may be bound to, or a commit SHA that is the head of such a branch. A branch that may be written
 * could otherwise widen its own perimeter. Warns when the default branch is the bound branch (the file is
 * protected there, but whoever may push to that branch picks the perimeters). Main and apply both judge so.
 */
export function judgeConfigRef(facts: ConfigRefFacts): ConfigRefVerdict {
  const ref = facts.configRef;
  if (ref === null) {
    if (facts.defaultBranch !== facts.branch) return { kind: 'ok' };
    return {
      kind: 'warning',
      message:
        `${INPUT}: not given, so the default branch "${facts.branch}" is read, and it is also the ` +
        'bound branch: the perimeters come from the branch the agents write. The file is protected there, but ' +
        'whoever may push to that branch picks the perimeters; pin a tag or a branch no perimeter may write',
    };
  }
  const named = branchOf(ref);
  let because: string | null = null;
  let branch = named;
  if (named !== null) because = writableBecause(named, facts);
  else {
    // a tag or a commit: only a SHA can be the start of a branch's head (a tag's name holds a '/')
    for (const [name, sha] of Object.entries(facts.heads)) {
      if (!name.startsWith('refs/heads/') || !sha.toLowerCase().startsWith(ref.toLowerCase())) continue;
      branch = name.slice('refs/heads/'.length);
      because = writableBecause(branch, facts);
      if (because !== null) break;
    }
  }
  if (because !== null)
    return {
      kind: 'refused',
      message:
        `${INPUT}: ${JSON.stringify(ref)} ${named === null ? `is the head of branch "${branch}"` : `names branch "${branch}"`}, ` +
        `and this job may write that branch (${because}); a branch that may be written could widen its own ` +
        'perimeter. Read the perimeters file from the default branch, a tag, or a branch no exposed perimeter may be bound to',
    };
  return unmovable(ref, facts);
}

/**
 * Whether judging `configRef` needs the repository's rulesets: only a ref that is neither the default branch
 * nor a commit SHA (a judging job reads them only then, and passes none otherwise).
 */
export function configRefNeedsRulesets(configRef: string | null, defaultBranch: string): boolean {
  return configRef !== null && !SHA.test(configRef) && branchOf(configRef) !== defaultBranch;
}

/** The refs git may read a config ref as. */
function candidates(ref: string): string[] {
  if (ref.startsWith('refs/')) return [ref];
  if (ref.startsWith('heads/') || ref.startsWith('tags/')) return [`refs/${ref}`];
  return [`refs/heads/${ref}`, `refs/tags/${ref}`];
}

const RESTRICTS: Record<LockRule, string> = { creation: 'creation', update: 'updates', deletion: 'deletion' };

const UNMOVABLE =
  'Read the perimeters file from the default branch, a full commit SHA, or a branch or tag that an active ' +
  'ruleset nobody in the job can bypass protects with "Restrict updates" and "Restrict deletions" ' +
  '(and "Restrict creations" for the spelling that does not exist)';

/**
 * The second half of a trusted ref: one the job's token cannot move. The default branch (the file is
 * protected there) and a full commit SHA (no push changes what it names) are; a short SHA is refused
 * (a branch or tag could be named like it); any other ref only when GitHub's rulesets lock every ref git
 * may read its name as: a ref that exists against updates and deletion, one that does not against creation.
 * Otherwise the agent's job could move a tag (the activity list records no tag moves) or create a branch
 * of the same name, and a later job would read the perimeters the agent chose.
 */
function unmovable(ref: string, facts: ConfigRefFacts): ConfigRefVerdict {
  if (FULL_SHA.test(ref)) return { kind: 'ok' };
  if (SHA.test(ref))
    return {
      kind: 'refused',
      message: `${INPUT}: ${JSON.stringify(ref)} is an abbreviated commit SHA; give all 40 hex digits. ${UNMOVABLE}`,
    };
  if (branchOf(ref) === facts.defaultBranch) return { kind: 'ok' };
  const missing: string[] = [];
  for (const name of candidates(ref)) {
    const needed: LockRule[] = name in facts.heads ? ['update', 'deletion'] : ['creation'];
    const locks = locksOn(name, facts.rulesets, facts.defaultBranch);
    const absent = needed.filter((rule) => !locks.has(rule));
    if (absent.length > 0)
      missing.push(
        `${name} ${name in facts.heads ? 'exists' : 'does not exist'}, and no ruleset restricts its ` +
          absent.map((rule) => RESTRICTS[rule]).join(' or '),
      );
  }
  if (missing.length === 0) return { kind: 'ok' };
  return {
    kind: 'refused',
    message:
      `${INPUT}: ${JSON.stringify(ref)} is not the default branch "${facts.defaultBranch}" or a full commit SHA, ` +
      `and GitHub does not protect it from this job's token (${missing.join('; ')}): the agent's job could move ` +
      `or create it and choose its own perimeters. ${UNMOVABLE}`,
  };
}
