import { HttpError, linkHeader, notFound, pageParams, readJson } from '../http-util.js';
import type { ApiResponse } from '../http-util.js';
import type { FakeRepo } from '../repo.js';
import { NOT_ACCESSIBLE } from '../respond.js';
import { route } from '../router.js';
import type { Route, RouteContext } from '../router.js';
import { htmlUrl, nodeId, repoApi } from '../shapes.js';
import { binds, parseRuleset } from './ruleset.js';
import type { StoredRuleset } from './ruleset.js';

/** Ruleset ids are GitHub-wide; the stand-in numbers each repository's from here. */
const FIRST_RULESET_ID = 5_000_001;

/** A ruleset as the list answers it: without its bypass actors, conditions and rules. */
function rulesetSummary(base: string, repo: FakeRepo, ruleset: StoredRuleset): Record<string, unknown> {
  return {
    id: ruleset.id,
    name: ruleset.name,
    target: ruleset.target,
    source_type: 'Repository',
    source: repo.fullName,
    enforcement: ruleset.enforcement,
    node_id: nodeId('RepositoryRuleset', ruleset.id),
    _links: {
      self: { href: `${repoApi(base, repo)}/rulesets/${ruleset.id}` },
      html: { href: `${htmlUrl(base, repo)}/rules/${ruleset.id}` },
    },
    created_at: ruleset.createdAt,
    updated_at: ruleset.createdAt,
  };
}

/**
 * GET /repos/{owner}/{repo}/rulesets (https://docs.github.com/rest/repos/rules#get-all-repository-rulesets):
 * "Get all the rulesets for a repository", paged, `targets` a comma-separated filter ("only rulesets that
 * apply to the specified targets will be returned"); each without its conditions and rules, which
 * GET .../rulesets/{ruleset_id} gives. Read access is enough; the stand-in has no organization rulesets, so
 * `includes_parents` changes nothing.
 */
async function listRulesets(ctx: RouteContext): Promise<ApiResponse> {
  const targets = ctx.url.searchParams.get('targets');
  const wanted = targets === null ? null : targets.split(',').map((t) => t.trim());
  const rulesets = ctx.repo.rulesets.filter((r) => wanted === null || wanted.includes(r.target));
  const { perPage, page } = pageParams(ctx.url);
  const lastPage = Math.max(1, Math.ceil(rulesets.length / perPage));
  const link = linkHeader(ctx.url, page, page < lastPage, lastPage);
  return {
    status: 200,
    body: rulesets
      .slice((page - 1) * perPage, page * perPage)
      .map((r) => rulesetSummary(ctx.base, ctx.repo, r)),
    headers: link ? { link } : {},
  };
}

function rulesetJson(base: string, repo: FakeRepo, ruleset: StoredRuleset): Record<string, unknown> {
  return {
    id: ruleset.id,
    name: ruleset.name,
    target: ruleset.target,
    source_type: 'Repository',
    source: repo.fullName,
    enforcement: ruleset.enforcement,
    bypass_actors: ruleset.bypassActors,
    // the stand-in lets nobody bypass a ruleset, whatever its bypass actors say
    current_user_can_bypass: 'never',
    node_id: nodeId('RepositoryRuleset', ruleset.id),
    _links: {
      self: { href: `${repoApi(base, repo)}/rulesets/${ruleset.id}` },
      html: { href: `${htmlUrl(base, repo)}/rules/${ruleset.id}` },
    },
    conditions: ruleset.conditions,
    rules: ruleset.rules,
    created_at: ruleset.createdAt,
    updated_at: ruleset.createdAt,
  };
}

/**
 * POST /repos/{owner}/{repo}/rulesets (https://docs.github.com/rest/repos/rules#create-a-repository-ruleset).
 * It takes the repository's Administration write permission, which no GITHUB_TOKEN holds; in the stand-in
 * the main token stands for the repository's admin and every other token is refused.
 */
async function createRuleset(ctx: RouteContext): Promise<ApiResponse> {
  if (!ctx.admin)
    throw new HttpError(403, ctx.app ? NOT_ACCESSIBLE : 'Must have admin rights to Repository.');
  const body = await readJson(ctx.req);
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const ruleset = parseRuleset(body, FIRST_RULESET_ID + ctx.repo.rulesets.length, now);
  ctx.repo.rulesets.push(ruleset);
  return { status: 201, body: rulesetJson(ctx.base, ctx.repo, ruleset) };
}

async function getRuleset(ctx: RouteContext): Promise<ApiResponse> {
  const ruleset = ctx.repo.rulesets.find((r) => String(r.id) === ctx.params.ruleset_id);
  if (!ruleset) throw notFound();
  return { status: 200, body: rulesetJson(ctx.base, ctx.repo, ruleset) };
}

/**
 * GET /repos/{owner}/{repo}/rules/branches/{branch}: "all active rules that apply to the specified branch. The
 * branch does not need to exist" (https://docs.github.com/rest/repos/rules#get-rules-for-a-branch), each with
 * the ruleset it comes from; paged.
 */
async function rulesForBranch(ctx: RouteContext): Promise<ApiResponse> {
  const defaultBranch = await ctx.repo.defaultBranch();
  const rules = ctx.repo.rulesets
    .filter((ruleset) => ruleset.target === 'branch' && binds(ruleset, ctx.params.branch!, defaultBranch))
    .flatMap((ruleset) =>
      ruleset.rules.map((rule) => ({
        ...rule,
        ruleset_source_type: 'Repository',
        ruleset_source: ctx.repo.fullName,
        ruleset_id: ruleset.id,
      })),
    );
  const { perPage, page } = pageParams(ctx.url);
  const lastPage = Math.max(1, Math.ceil(rules.length / perPage));
  const link = linkHeader(ctx.url, page, page < lastPage, lastPage);
  return {
    status: 200,
    body: rules.slice((page - 1) * perPage, page * perPage),
    headers: link ? { link } : {},
  };
}

export const rulesetRoutes: Route[] = [
  route('POST', '/repos/{owner}/{repo}/rulesets', createRuleset),
  route('GET', '/repos/{owner}/{repo}/rulesets', listRulesets),
  route('GET', '/repos/{owner}/{repo}/rulesets/{ruleset_id}', getRuleset),
  route('GET', '/repos/{owner}/{repo}/rules/branches/{branch+}', rulesForBranch),
];
