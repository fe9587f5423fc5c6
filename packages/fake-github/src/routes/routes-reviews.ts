/**
 * Pull request reviews, as GitHub documents them (https://docs.github.com/rest/pulls/reviews), submitted at
 * once (an `event` is required here: the stand-in keeps no pending reviews), and refused as GitHub refuses:
 * - approving or requesting changes on one's own pull request (422);
 * - approving as GitHub Actions (a GITHUB_TOKEN), which GitHub refuses unless the repository allows Actions
 *   to approve pull requests, off by default and never on here (422);
 * - a REQUEST_CHANGES or COMMENT review without a body (422).
 */
import { notFound, readJson, unprocessable, validationFailed } from '../http-util.js';
import type { ApiResponse } from '../http-util.js';
import { GITHUB_ACTIONS } from '../apps.js';
import type { StoredPull, StoredReview } from '../repo.js';
import { route } from '../router.js';
import type { Route, RouteContext } from '../router.js';
import { htmlUrl, nodeId, repoApi, simpleUser } from '../shapes.js';

const EVENTS = { APPROVE: 'APPROVED', REQUEST_CHANGES: 'CHANGES_REQUESTED', COMMENT: 'COMMENTED' } as const;

function pullOf(ctx: RouteContext): StoredPull {
  const pull = ctx.repo.pulls.find((p) => String(p.number) === ctx.params.pull_number);
  if (!pull) throw notFound();
  return pull;
}

const refused = (message: string) => unprocessable('Unprocessable Entity', { errors: [message] });

/** POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews */
async function createReview(ctx: RouteContext): Promise<ApiResponse> {
  const pull = pullOf(ctx);
  const body = await readJson(ctx.req);
  const event = body.event;
  if (typeof event !== 'string' || !(event in EVENTS))
    throw validationFailed('PullRequestReview', 'event', 'invalid');
  const text = typeof body.body === 'string' ? body.body : '';
  if (event !== 'APPROVE' && text.trim() === '')
    throw refused(`Review Body is required when the event is ${event}`);
  const own = pull.user.toLowerCase() === ctx.actor.toLowerCase();
  if (own && event === 'APPROVE') throw refused('Can not approve your own pull request');
  if (own && event === 'REQUEST_CHANGES') throw refused('Can not request changes on your own pull request');
  if (event === 'APPROVE' && ctx.app?.id === GITHUB_ACTIONS.id)
    throw refused('GitHub Actions is not permitted to approve pull requests.');
  const head = (await ctx.repo.refValue(`refs/heads/${pull.head}`)) ?? '0'.repeat(40);
  const commit = typeof body.commit_id === 'string' ? body.commit_id : head;
  const reviews = (pull.reviews ??= []);
  const review: StoredReview = {
    id: ctx.repo.id * 100_000 + pull.number * 100 + reviews.length + 1,
    user: ctx.actor,
    body: text,
    state: EVENTS[event as keyof typeof EVENTS],
    commit_id: commit,
    submitted_at: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
  };
  reviews.push(review);
  return { status: 200, body: reviewJson(ctx, pull, review) };
}

/** GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews: oldest first, one page. */
function listReviews(ctx: RouteContext): Promise<ApiResponse> {
  const pull = pullOf(ctx);
  return Promise.resolve({
    status: 200,
    body: (pull.reviews ?? []).map((review) => reviewJson(ctx, pull, review)),
  });
}

function reviewJson(ctx: RouteContext, pull: StoredPull, review: StoredReview): Record<string, unknown> {
  const html = `${htmlUrl(ctx.base, ctx.repo)}/pull/${pull.number}`;
  const pullUrl = `${repoApi(ctx.base, ctx.repo)}/pulls/${pull.number}`;
  return {
    id: review.id,
    node_id: nodeId('PullRequestReview', String(review.id)),
    user: simpleUser(ctx.base, review.user),
    body: review.body,
    state: review.state,
    html_url: `${html}#pullrequestreview-${review.id}`,
    pull_request_url: pullUrl,
    _links: { html: { href: `${html}#pullrequestreview-${review.id}` }, pull_request: { href: pullUrl } },
    submitted_at: review.submitted_at,
    commit_id: review.commit_id,
    author_association: review.user === pull.user ? 'CONTRIBUTOR' : 'MEMBER',
  };
}

export const reviewRoutes: Route[] = [
  route('POST', '/repos/{owner}/{repo}/pulls/{pull_number}/reviews', createReview),
  route('GET', '/repos/{owner}/{repo}/pulls/{pull_number}/reviews', listReviews),
];
