import {
  emptyRepository,
  HttpError,
  isSha,
  missing,
  notFound,
  readJson,
  unprocessable,
} from '../http-util.js';
import type { ApiResponse } from '../http-util.js';
import { isSafeRefName } from '../repo.js';
import type { FakeRepo } from '../repo.js';
import { route } from '../router.js';
import { lockRefusalsFor, requiredCheckRefusals, ruleRefusal } from '../rules/enforce.js';
import type { Route, RouteContext } from '../router.js';
import { fullRepository, refJson } from '../shapes.js';

async function refOr404(ctx: RouteContext, fullRef: string): Promise<ApiResponse> {
  const sha = await ctx.repo.refValue(fullRef);
  if (!sha) throw await missing(ctx.repo);
  const object = await ctx.repo.readObject(sha);
  return { status: 200, body: refJson(ctx.base, ctx.repo, fullRef, sha, object?.type ?? 'commit') };
}

async function refuseEmpty(repo: FakeRepo): Promise<void> {
  if (await repo.isEmpty()) throw emptyRepository();
}

/** GitHub's ref names for the refs API: at least `refs/x/y`, valid for git. */
function validNewRef(ref: unknown): ref is string {
  return (
    typeof ref === 'string' &&
    /^refs\/[^/]+\/.+/.test(ref) &&
    !ref.startsWith('refs/pull/') &&
    isSafeRefName(ref) &&
    !ref.endsWith('/') &&
    !ref.endsWith('.lock')
  );
}

async function commitOr422(repo: FakeRepo, sha: unknown): Promise<string> {
  if (!isSha(sha)) throw unprocessable('Object does not exist');
  const object = await repo.readObject(sha);
  if (!object) throw unprocessable('Object does not exist');
  return sha;
}

/**
 * A ref a ruleset locks is not created, moved or deleted (the `creation`, `update` and `deletion` rules),
 * and a branch a ruleset binds moves only to a commit whose required status checks pass (branch creation
 * too, unless the rule says `do_not_enforce_on_create`); the API answers 422 with the violations.
 */
async function refuseByRules(
  ctx: RouteContext,
  ref: string,
  sha: string | null,
  creating: boolean,
): Promise<void> {
  const change = creating ? 'creation' : sha === null ? 'deletion' : 'update';
  const violations = await lockRefusalsFor(ctx.repo, ref, change);
  if (sha !== null && ref.startsWith('refs/heads/'))
    violations.push(
      ...(await requiredCheckRefusals(ctx.repo, ref.slice('refs/heads/'.length), sha, { creating })),
    );
  if (violations.length > 0) throw unprocessable(ruleRefusal(violations));
}

/** GITHUB_TOKEN has no `workflows` permission: GitHub answers 404 to writes that change workflows. */
async function refuseWorkflowChanges(ctx: RouteContext, sha: string): Promise<void> {
  if (!ctx.canWriteWorkflows && (await ctx.repo.workflowChanges(sha)).length > 0) throw notFound();
}

async function matchingRefs(ctx: RouteContext): Promise<ApiResponse> {
  const prefix = ctx.params.ref ? `refs/${ctx.params.ref}` : 'refs/';
  const refs = await ctx.repo.listRefs(prefix);
  if (refs.length === 0) await refuseEmpty(ctx.repo);
  return { status: 200, body: refs.map((r) => refJson(ctx.base, ctx.repo, r.ref, r.sha, r.type)) };
}

export const refRoutes: Route[] = [
  route('GET', '/repos/{owner}/{repo}', async (ctx) => ({
    status: 200,
    body: fullRepository(ctx.base, ctx.repo, await ctx.repo.defaultBranch()),
  })),

  route('GET', '/repos/{owner}/{repo}/git/ref/{ref+}', async (ctx) => {
    return refOr404(ctx, `refs/${ctx.params.ref}`);
  }),

  route('GET', '/repos/{owner}/{repo}/git/matching-refs/{ref*}', matchingRefs),
  // Without a ref every ref is listed; Octokit sends that as .../matching-refs, with no slash.
  route('GET', '/repos/{owner}/{repo}/git/matching-refs', matchingRefs),

  route('POST', '/repos/{owner}/{repo}/git/refs', async (ctx) => {
    const body = await readJson(ctx.req);
    await refuseEmpty(ctx.repo);
    if (!validNewRef(body.ref)) throw unprocessable(`Reference name is invalid`);
    const sha = await commitOr422(ctx.repo, body.sha);
    await refuseWorkflowChanges(ctx, sha);
    await refuseByRules(ctx, body.ref, sha, true);
    await ctx.beforeRefWrite(body.ref);
    if (!(await ctx.repo.moveRef(body.ref, null, sha, ctx.actor)))
      throw unprocessable('Reference already exists');
    return { ...(await refOr404(ctx, body.ref)), status: 201 };
  }),

  route('PATCH', '/repos/{owner}/{repo}/git/refs/{ref+}', async (ctx) => {
    const body = await readJson(ctx.req);
    if (typeof body.sha !== 'string') throw unprocessable('Invalid request.\n\n"sha" wasn\'t supplied.');
    if (body.force !== undefined && typeof body.force !== 'boolean')
      throw unprocessable("Invalid request.\n\nFor 'properties/force', not a boolean.");
    await refuseEmpty(ctx.repo);
    const ref = `refs/${ctx.params.ref}`;
    const sha = await commitOr422(ctx.repo, body.sha);
    await refuseWorkflowChanges(ctx, sha);
    await refuseByRules(ctx, ref, sha, false);
    await ctx.beforeRefWrite(ref);
    for (let attempt = 0; attempt < 5; attempt++) {
      const current = await ctx.repo.refValue(ref);
      if (!current) throw unprocessable('Reference does not exist');
      if (body.force !== true && current !== sha && !(await ctx.repo.isAncestor(current, sha))) {
        throw unprocessable('Update is not a fast forward');
      }
      if (await ctx.repo.moveRef(ref, current, sha, ctx.actor)) return refOr404(ctx, ref);
    }
    throw new HttpError(409, 'Reference update failed: the reference kept changing');
  }),

  route('DELETE', '/repos/{owner}/{repo}/git/refs/{ref+}', async (ctx) => {
    await refuseEmpty(ctx.repo);
    const ref = `refs/${ctx.params.ref}`;
    if (await ctx.repo.refValue(ref)) await refuseByRules(ctx, ref, null, false);
    await ctx.beforeRefWrite(ref);
    for (let attempt = 0; attempt < 5; attempt++) {
      const current = await ctx.repo.refValue(ref);
      if (!current) throw unprocessable('Reference does not exist');
      if (await ctx.repo.moveRef(ref, current, null, ctx.actor)) return { status: 204 };
    }
    throw new HttpError(409, 'Reference update failed: the reference kept changing');
  }),
];
