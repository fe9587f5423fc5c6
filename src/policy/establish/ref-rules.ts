/**
 * Which of GitHub's rulesets keep a ref still against the job's token: the pure half of "a ref the agent
 * cannot move". The rulesets come from the API (src/github reads them); nothing here does I/O.
 */

/**
 * A branch or tag ruleset as GET /repos/{owner}/{repo}/rulesets/{ruleset_id} answers it
 * (https://docs.github.com/rest/repos/rules#get-a-repository-ruleset), reduced to what decides a lock.
 */
export interface RefRuleset {
  name: string;
  /** `branch`, `tag` or `push` */
  target: string;
  /** `active`, `evaluate` or `disabled`: only `active` rulesets are enforced */
  enforcement: string;
  /**
   * `current_user_can_bypass` as GitHub answered the token that read it ("The bypass type of the user making
   * the API request for this ruleset. This field is only returned when querying the repository-level
   * endpoint"); null when it was not answered.
   */
  bypass: string | null;
  /** `conditions.ref_name.include`: full ref names with fnmatch wildcards, `~ALL`, `~DEFAULT_BRANCH` */
  include: string[];
  exclude: string[];
  /** the rule types (`creation`, `update`, `deletion`, `required_status_checks`, ...) */
  rules: string[];
}

/** The rules that stop a ref being created, moved or deleted by anyone who cannot bypass them. */
export type LockRule = 'creation' | 'update' | 'deletion';
export const LOCK_RULES: readonly LockRule[] = ['creation', 'update', 'deletion'];

/**
 * fnmatch as rulesets read it, with File::FNM_PATHNAME ("the * wildcard does not match the directory
 * separator (/)", https://docs.github.com/repositories/configuring-branches-and-merges-in-your-repository/managing-rulesets/creating-rulesets-for-a-repository#using-fnmatch-syntax):
 * `**` crosses segments, `*` and `?` stay inside one. `broad` reads every wildcard as crossing segments and a
 * bracket as any one character, a superset of GitHub's reading: an exclude is read broadly and an include
 * narrowly (a bracket there matches only itself, which no git ref name may contain), so a pattern this code
 * reads differently from GitHub can only make a ref count as unprotected, never as protected.
 */
export function fnmatch(pattern: string, ref: string, broad: boolean): boolean {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    const close = c === '[' ? pattern.indexOf(']', i + 2) : -1;
    if (c === '*' && pattern[i + 1] === '*') {
      source += '.*';
      i++;
    } else if (c === '*') source += broad ? '.*' : '[^/]*';
    else if (c === '?') source += broad ? '.' : '[^/]';
    else if (broad && close > 0) {
      source += '.';
      i = close;
    } else source += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 's').test(ref);
}

function targets(ruleset: RefRuleset, ref: string): boolean {
  if (ruleset.target === 'branch') return ref.startsWith('refs/heads/');
  return ruleset.target === 'tag' && ref.startsWith('refs/tags/');
}

function hit(pattern: string, ref: string, defaultBranch: string, broad: boolean): boolean {
  if (pattern === '~ALL') return true;
  if (pattern === '~DEFAULT_BRANCH') return ref === `refs/heads/${defaultBranch}`;
  return fnmatch(pattern, ref, broad);
}

/**
 * Whether `ruleset` binds `ref` for the token that read it: enforced (`active`), aimed at the ref's kind,
 * an include pattern matching and no exclude pattern, and a token that may `never` bypass it.
 */
export function bindsRef(ruleset: RefRuleset, ref: string, defaultBranch: string): boolean {
  return (
    ruleset.enforcement === 'active' &&
    ruleset.bypass === 'never' &&
    targets(ruleset, ref) &&
    ruleset.include.some((p) => hit(p, ref, defaultBranch, false)) &&
    !ruleset.exclude.some((p) => hit(p, ref, defaultBranch, true))
  );
}

/** The lock rules binding `ref`, each with the rulesets that impose it (by name). */
export function locksOn(
  ref: string,
  rulesets: readonly RefRuleset[],
  defaultBranch: string,
): Map<LockRule, string[]> {
  const locks = new Map<LockRule, string[]>();
  for (const ruleset of rulesets.filter((r) => bindsRef(r, ref, defaultBranch)))
    for (const rule of LOCK_RULES)
      if (ruleset.rules.includes(rule)) locks.set(rule, [...(locks.get(rule) ?? []), ruleset.name]);
  return locks;
}
