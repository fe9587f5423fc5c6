import { HttpError, validationFailed } from '../http-util.js';

/**
 * Repository rulesets as far as the stand-in models them: branch and tag rulesets aimed by
 * `conditions.ref_name`, whose rules are `required_status_checks` (branches only) and the locks `creation`,
 * `update` and `deletion` ("Only allow users with bypass permission to create / update / delete matching
 * refs", https://docs.github.com/rest/repos/rules#create-a-repository-ruleset). What GitHub takes but the
 * stand-in does not model (push rulesets, other rule types) is refused with 422 rather than stored and
 * ignored; bypass actors are kept and shown but nobody bypasses.
 */

export interface RequiredStatusCheck {
  /** "The status check context name that must be present on the commit." */
  context: string;
  /** "The optional integration ID that this status check must originate from." */
  integration_id?: number;
}

export interface RequiredStatusChecksRule {
  type: 'required_status_checks';
  parameters: {
    do_not_enforce_on_create?: boolean;
    required_status_checks: RequiredStatusCheck[];
    strict_required_status_checks_policy: boolean;
  };
}

/** "Only allow users with bypass permission to create / update / delete matching refs." */
export interface LockRule {
  type: 'creation' | 'update' | 'deletion';
}
export const LOCK_TYPES = ['creation', 'update', 'deletion'] as const;

export type Rule = RequiredStatusChecksRule | LockRule;

export type Target = 'branch' | 'tag';

export type Enforcement = 'active' | 'disabled' | 'evaluate';

export interface StoredRuleset {
  id: number;
  name: string;
  target: Target;
  enforcement: Enforcement;
  bypassActors: Array<Record<string, unknown>>;
  /** null when the request named no conditions: such a ruleset targets no branch */
  conditions: { ref_name: { include: string[]; exclude: string[] } } | null;
  rules: Rule[];
  createdAt: string;
}

const ENFORCEMENTS: Enforcement[] = ['active', 'disabled', 'evaluate'];
const ACTOR_TYPES = ['Integration', 'OrganizationAdmin', 'RepositoryRole', 'Team', 'DeployKey', 'User'];
const BYPASS_MODES = ['always', 'pull_request', 'exempt'];

const invalid = (field: string, message?: string): HttpError =>
  validationFailed('Ruleset', field, message ? 'custom' : 'invalid', message);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function strings(value: unknown, field: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw invalid(field);
  return value as string[];
}

/**
 * A ref name pattern: `~ALL`, `~DEFAULT_BRANCH` (branch rulesets) or a full name under refs/heads/ (refs/tags/
 * for a tag ruleset) with fnmatch wildcards. GitHub matches patterns against full ref names, so a bare `main`
 * would match nothing; the stand-in refuses it instead of storing a ruleset that silently protects nothing
 * (its own wording).
 */
function refPattern(pattern: string, field: string, target: Target): string {
  const prefix = target === 'branch' ? 'refs/heads/' : 'refs/tags/';
  if (pattern === '~ALL' || (target === 'branch' && pattern === '~DEFAULT_BRANCH')) return pattern;
  if (pattern.startsWith(prefix) && pattern.length > prefix.length) return pattern;
  const named = target === 'branch' ? '~ALL, ~DEFAULT_BRANCH' : '~ALL';
  throw invalid(field, `${field}: expected ${named} or ${prefix}..., got ${JSON.stringify(pattern)}`);
}

function conditionsOf(value: unknown, target: Target): StoredRuleset['conditions'] {
  if (value === undefined || value === null) return null;
  if (!isObject(value)) throw invalid('conditions');
  const refName = value.ref_name;
  if (refName === undefined) return null;
  if (!isObject(refName)) throw invalid('conditions.ref_name');
  return {
    ref_name: {
      include: strings(refName.include, 'include').map((p) => refPattern(p, 'include', target)),
      exclude: strings(refName.exclude, 'exclude').map((p) => refPattern(p, 'exclude', target)),
    },
  };
}

function requiredCheck(value: unknown): RequiredStatusCheck {
  if (!isObject(value) || typeof value.context !== 'string' || value.context === '')
    throw invalid('required_status_checks');
  const id = value.integration_id;
  if (id === undefined) return { context: value.context };
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id <= 0) throw invalid('integration_id');
  return { context: value.context, integration_id: id };
}

function ruleOf(value: unknown, target: Target): Rule {
  if (!isObject(value) || typeof value.type !== 'string') throw invalid('rules');
  const type = value.type;
  if ((LOCK_TYPES as readonly string[]).includes(type)) return { type: type as LockRule['type'] };
  if (type !== 'required_status_checks' || target !== 'branch')
    throw invalid(
      'rules',
      `the stand-in models creation, update, deletion and (on branches) required_status_checks rules, got ${type}`,
    );
  const parameters = value.parameters;
  if (!isObject(parameters)) throw invalid('parameters');
  const checks = parameters.required_status_checks;
  if (!Array.isArray(checks)) throw invalid('required_status_checks');
  if (typeof parameters.strict_required_status_checks_policy !== 'boolean')
    throw invalid('strict_required_status_checks_policy');
  const create = parameters.do_not_enforce_on_create;
  if (create !== undefined && typeof create !== 'boolean') throw invalid('do_not_enforce_on_create');
  return {
    type: 'required_status_checks',
    parameters: {
      ...(create === undefined ? {} : { do_not_enforce_on_create: create }),
      required_status_checks: checks.map(requiredCheck),
      strict_required_status_checks_policy: parameters.strict_required_status_checks_policy,
    },
  };
}

function bypassActor(value: unknown): Record<string, unknown> {
  if (!isObject(value) || typeof value.actor_type !== 'string' || !ACTOR_TYPES.includes(value.actor_type))
    throw invalid('bypass_actors');
  const mode = value.bypass_mode ?? 'always';
  if (typeof mode !== 'string' || !BYPASS_MODES.includes(mode)) throw invalid('bypass_mode');
  const id = value.actor_id ?? null;
  if (id !== null && (typeof id !== 'number' || !Number.isSafeInteger(id))) throw invalid('actor_id');
  return { actor_id: id, actor_type: value.actor_type, bypass_mode: mode };
}

/** The body of POST /repos/{owner}/{repo}/rulesets, checked in full (name and enforcement are required). */
export function parseRuleset(body: Record<string, unknown>, id: number, now: string): StoredRuleset {
  if (typeof body.name !== 'string' || body.name === '')
    throw validationFailed('Ruleset', 'name', 'missing_field');
  const enforcement = body.enforcement;
  if (typeof enforcement !== 'string' || !ENFORCEMENTS.includes(enforcement as Enforcement))
    throw validationFailed('Ruleset', 'enforcement', enforcement === undefined ? 'missing_field' : 'invalid');
  const target = body.target ?? 'branch';
  if (target !== 'branch' && target !== 'tag')
    throw invalid(
      'target',
      `the stand-in models only branch and tag rulesets, got ${JSON.stringify(target)}`,
    );
  const rules = body.rules ?? [];
  if (!Array.isArray(rules)) throw invalid('rules');
  const actors = body.bypass_actors ?? [];
  if (!Array.isArray(actors)) throw invalid('bypass_actors');
  return {
    id,
    name: body.name,
    target,
    enforcement: enforcement as Enforcement,
    bypassActors: actors.map(bypassActor),
    conditions: conditionsOf(body.conditions, target),
    rules: rules.map((rule) => ruleOf(rule, target)),
    createdAt: now,
  };
}

/** fnmatch as rulesets use it: `*` and `?` stay within one path segment, `**` crosses them. */
function matches(pattern: string, ref: string): boolean {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*' && pattern[i + 1] === '*') {
      source += '.*';
      i++;
    } else if (c === '*') source += '[^/]*';
    else if (c === '?') source += '[^/]';
    else source += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`).test(ref);
}

/**
 * Whether a ruleset's rules bind `branch` now: active enforcement only ("Rules in rulesets with "evaluate" or
 * "disabled" enforcement statuses are not returned", https://docs.github.com/rest/repos/rules#get-rules-for-a-branch),
 * one include pattern matching and no exclude pattern.
 */
export function binds(ruleset: StoredRuleset, branch: string, defaultBranch: string): boolean {
  return bindsRef(ruleset, `refs/heads/${branch}`, defaultBranch);
}

/** binds for any full ref name: a branch ruleset binds only refs/heads/, a tag ruleset only refs/tags/. */
export function bindsRef(ruleset: StoredRuleset, ref: string, defaultBranch: string): boolean {
  if (ruleset.enforcement !== 'active' || !ruleset.conditions) return false;
  if (!ref.startsWith(ruleset.target === 'branch' ? 'refs/heads/' : 'refs/tags/')) return false;
  const hit = (pattern: string): boolean =>
    pattern === '~ALL' ||
    (pattern === '~DEFAULT_BRANCH' ? ref === `refs/heads/${defaultBranch}` : matches(pattern, ref));
  const { include, exclude } = ruleset.conditions.ref_name;
  return include.some(hit) && !exclude.some(hit);
}

/**
 * The lock refusals for one ref change, in GitHub's words
 * for its push refusals ("Cannot update this protected ref.", "Cannot delete this protected ref.", "Cannot
 * create ref due to creations being restricted."), from every active ruleset binding `ref`.
 */
export function lockRefusals(
  rulesets: StoredRuleset[],
  ref: string,
  type: LockRule['type'],
  defaultBranch: string,
): string[] {
  const locked = rulesets.some(
    (r) => bindsRef(r, ref, defaultBranch) && r.rules.some((rule) => rule.type === type),
  );
  if (!locked) return [];
  return [
    type === 'creation'
      ? 'Cannot create ref due to creations being restricted.'
      : type === 'deletion'
        ? 'Cannot delete this protected ref.'
        : 'Cannot update this protected ref.',
  ];
}

/**
 * The required status checks of every ruleset binding `branch`, in ruleset order, each once; when `creating`
 * the branch, without the rules that "allow repositories and branches to be created if a check would otherwise
 * prohibit it" (`do_not_enforce_on_create`).
 */
export function requiredChecksFor(
  rulesets: StoredRuleset[],
  branch: string,
  defaultBranch: string,
  creating = false,
): { checks: RequiredStatusCheck[]; strict: boolean } {
  const checks: RequiredStatusCheck[] = [];
  let strict = false;
  for (const ruleset of rulesets.filter((r) => binds(r, branch, defaultBranch)))
    for (const rule of ruleset.rules) {
      if (rule.type !== 'required_status_checks') continue;
      if (creating && rule.parameters.do_not_enforce_on_create) continue;
      strict ||= rule.parameters.strict_required_status_checks_policy;
      for (const check of rule.parameters.required_status_checks)
        if (!checks.some((c) => c.context === check.context && c.integration_id === check.integration_id))
          checks.push(check);
    }
  return { checks, strict };
}

/**
 * The lock rules of active rulesets for the pre-receive hook, one `type pattern` a line, as shell `case`
 * patterns: `~ALL` is every ref of the ruleset's kind, `~DEFAULT_BRANCH` the default branch. A shell `*`
 * crosses `/` and exclude patterns are left out, so a push is refused wherever GitHub would refuse it and
 * possibly more: the stand-in is stricter than GitHub, never kinder.
 */
export function lockPatterns(rulesets: StoredRuleset[], defaultBranch: string): string {
  const lines: string[] = [];
  for (const ruleset of rulesets) {
    if (ruleset.enforcement !== 'active' || !ruleset.conditions) continue;
    const prefix = ruleset.target === 'branch' ? 'refs/heads/' : 'refs/tags/';
    for (const rule of ruleset.rules) {
      if (!(LOCK_TYPES as readonly string[]).includes(rule.type)) continue;
      for (const pattern of ruleset.conditions.ref_name.include) {
        const shell =
          pattern === '~ALL'
            ? `${prefix}*`
            : pattern === '~DEFAULT_BRANCH'
              ? `refs/heads/${defaultBranch}`
              : pattern.replace(/\*\*/g, '*');
        lines.push(`${rule.type} ${shell}`);
      }
    }
  }
  return lines.join('\n');
}
