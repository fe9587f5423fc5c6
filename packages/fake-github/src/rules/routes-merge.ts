import { WORKFLOWS_DIR } from '../activity-log.js';
import { writeCommit } from '../git/commit-writer.js';
import { GitError, gitText } from '../git/git.js';
import { HttpError, notFound, readJson, validationFailed } from '../http-util.js';
import type { ApiResponse } from '../http-util.js';
import type { StoredPull } from '../repo.js';
import { route } from '../router.js';
import type { Route, RouteContext } from '../router.js';
import { requiredCheckRefusals, ruleRefusal } from './enforce.js';

/**
 * PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge (https://docs.github.com/rest/pulls/pulls#merge-a-pull-request),
 * with the `merge` and `squash` methods, over the bare repository: the merge is computed by `git merge-tree`,
 * committed as GitHub commits for the API (by the merging token's login, committed by web-flow, signed) and
 * lands with `update-ref` only while the base branch still holds what was judged. Refusals, in GitHub's order
 * of concern and words where GitHub's are known:
 * - 405 "Pull Request is not mergeable" (the documented example): closed, merged or draft, a branch gone, or a
 *   conflict;
 * - 409 "Head branch was modified. Review and try the merge again." when `sha` is not the head;
 * - 405 "Repository rule violations found\n\n<violations>\n\n" when a ruleset binding the base branch is not
 *   satisfied by the head commit (see enforce.ts and required-checks.ts);
 * - 405 "Base branch was modified. Review and try the merge again." when the base moved meanwhile.
 */

const METHODS = ['merge', 'squash', 'rebase'];
const NOT_MERGEABLE = 'Pull Request is not mergeable';

function text(body: Record<string, unknown>, field: string): string | null {
  const value = body[field];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw validationFailed('PullRequest', field, 'invalid');
  return value;
}

/** The tree of merging `head` into `base`, or null on a conflict. */
async function mergedTree(dir: string, base: string, head: string): Promise<string | null> {
  try {
    return (await gitText(dir, ['merge-tree', '--write-tree', '--no-messages', base, head])).split('\n')[0]!;
  } catch (error) {
    if (error instanceof GitError && error.code === 1) return null;
    throw error;
  }
}

/**
 * A token without the `workflows` permission may not land changes to .github/workflows, by a merge either
 * ("refusing to allow a GitHub App to create or update workflow ... without `workflows` permission",
 * https://github.com/KeisukeYamashita/auto-pull-request-merge/issues/481); the status is the stand-in's.
 */
async function refuseWorkflowChanges(ctx: RouteContext, base: string, tree: string): Promise<void> {
  if (ctx.canWriteWorkflows) return;
  const changed = (
    await gitText(ctx.repo.dir, ['diff-tree', '-r', '--name-only', base, tree, '--', WORKFLOWS_DIR])
  )
    .split('\n')
    .filter(Boolean);
  if (changed.length === 0) return;
  const who = ctx.app ? 'a GitHub App' : 'a Personal Access Token';
  const what = ctx.app ? '`workflows` permission' : '`workflow` scope';
  throw new HttpError(
    403,
    `refusing to allow ${who} to create or update workflow \`${changed[0]}\` without ${what}`,
  );
}

function messages(ctx: RouteContext, pull: StoredPull, body: Record<string, unknown>, method: string) {
  const title = text(body, 'commit_title');
  const detail = text(body, 'commit_message');
  const headline =
    method === 'squash'
      ? `${pull.title} (#${pull.number})`
      : `Merge pull request #${pull.number} from ${ctx.repo.owner}/${pull.head}`;
  const rest = detail ?? (method === 'squash' ? '' : pull.title);
  return `${title ?? headline}${rest === '' ? '' : `\n\n${rest}`}\n`;
}

async function mergePull(ctx: RouteContext): Promise<ApiResponse> {
  const pull = ctx.repo.pulls.find((p) => String(p.number) === ctx.params.pull_number);
  if (!pull) throw notFound();
  const body = await readJson(ctx.req);
  const method = body.merge_method ?? 'merge';
  if (typeof method !== 'string' || !METHODS.includes(method))
    throw validationFailed('PullRequest', 'merge_method', 'invalid');
  const expected = text(body, 'sha');
  const message = messages(ctx, pull, body, method);
  if (method === 'rebase')
    throw new HttpError(405, 'the stand-in merges with merge_method merge or squash, not rebase');
  const baseRef = `refs/heads/${pull.base}`;
  const [base, head] = await Promise.all([
    ctx.repo.refValue(baseRef),
    ctx.repo.refValue(`refs/heads/${pull.head}`),
  ]);
  if (pull.state !== 'open' || pull.draft || !base || !head) throw new HttpError(405, NOT_MERGEABLE);
  if (expected !== null && expected !== head)
    throw new HttpError(409, 'Head branch was modified. Review and try the merge again.');
  const violations = await requiredCheckRefusals(ctx.repo, pull.base, head, { base });
  if (violations.length > 0) throw new HttpError(405, ruleRefusal(violations));
  const tree = await mergedTree(ctx.repo.dir, base, head);
  if (!tree) throw new HttpError(405, NOT_MERGEABLE);
  await refuseWorkflowChanges(ctx, base, tree);
  const sha = await writeCommit(ctx.repo, {
    tree,
    parents: method === 'squash' ? [base] : [base, head],
    message,
    actor: ctx.actor,
  });
  await ctx.beforeRefWrite(baseRef);
  if (!(await ctx.repo.moveRef(baseRef, base, sha, ctx.actor)))
    throw new HttpError(405, 'Base branch was modified. Review and try the merge again.');
  Object.assign(pull, {
    state: 'closed',
    merged_at: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    merge_commit_sha: sha,
    merged_by: ctx.actor,
  });
  return { status: 200, body: { sha, merged: true, message: 'Pull Request successfully merged' } };
}

export const mergeRoutes: Route[] = [
  route('PUT', '/repos/{owner}/{repo}/pulls/{pull_number}/merge', mergePull),
];
