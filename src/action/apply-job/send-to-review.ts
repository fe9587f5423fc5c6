import * as core from '@actions/core';
import type { ApplyMode, ApplyResult, ApplyVerdict } from '../../apply/apply-changes.js';
import {
  reviewBody,
  reviewBranch,
  reviewSummary,
  reviewTable,
  type ReviewItem,
} from '../../apply/review-routing.js';
import { createOctokitUpstream, UpstreamError, type Upstream } from '../../github/index.js';
import { inlineText } from '../../verify/index.js';
import type { ApplySettings } from './apply-inputs.js';

/** Apply posts its receipt as a commit status, itself. */
export const receiptSettings = { receiptBy: 'post', receiptAs: 'status' } as const;

/**
 * Changes sent to review never move the bound branch: they go to a draft pull request from a branch of this
 * run attempt, whatever `mode` says (its labels are kept).
 */
export function reviewMode(settings: ApplySettings, review: ReviewItem[]): ApplyMode {
  const run = `${settings.run.id || 'local'}-${settings.run.attempt || '1'}`;
  return {
    kind: 'pull-request',
    branch: reviewBranch({ id: settings.run.id || 'local', attempt: settings.run.attempt || '1' }),
    title: `Sent to review: staged changes from run ${run}`,
    body:
      `An agent job staged these changes, and its perimeter may not make some of them on its own ` +
      `(perimeters.yml \`review\`). A person decides:\n\n${reviewTable(review)}`,
    labels: settings.mode.kind === 'pull-request' ? settings.mode.labels : [],
  };
}

/**
 * The review naming each file and its rule: REQUEST_CHANGES with the second identity's `review-token`, else
 * a COMMENT (GitHub refuses REQUEST_CHANGES on one's own pull request, and this job's token opened it).
 * Perimeter never approves. Answers whether the review requests changes.
 */
async function postReview(
  upstream: Upstream,
  settings: ApplySettings,
  number: number,
  head: string,
  review: ReviewItem[],
): Promise<boolean> {
  if (settings.reviewToken !== null) {
    const reviewer = createOctokitUpstream({
      token: settings.reviewToken,
      owner: settings.owner,
      repo: settings.repo,
      baseUrl: settings.apiUrl,
    });
    try {
      await reviewer.createPullRequestReview(number, {
        event: 'REQUEST_CHANGES',
        body: reviewBody(review, true),
        commitId: head,
      });
      return true;
    } catch (error) {
      if (!(error instanceof UpstreamError)) throw error;
      core.warning(
        `review-token could not request changes on pull request #${number} (${error.message}); a comment names the files instead`,
        { title: 'Perimeter: review not blocking' },
      );
    }
  }
  await upstream.createPullRequestReview(number, {
    event: 'COMMENT',
    body: reviewBody(review, false),
    commitId: head,
  });
  return false;
}

/**
 * The commits are in a draft pull request (`opened`): the review naming each file and its rule, then the
 * verdict for the pull request's head, saying "sent to review" with the files. `what`: how many commits, and
 * on top of what.
 */
export async function sendToReview(
  upstream: Upstream,
  settings: ApplySettings,
  result: Extract<ApplyResult, { state: 'opened' }>,
  review: ReviewItem[],
  what: string,
): Promise<Omit<ApplyVerdict, 'perimeters'>> {
  core.setOutput('review', review.map((item) => item.path).join('\n'));
  const blocking = await postReview(upstream, settings, result.pull.number, result.head, review);
  const files = review.map((item) => item.path).join(', ');
  const description = `Needs a person's review: ${what} in draft PR #${result.pull.number}: ${files}`;
  // never a pass a branch rule could take: a pull request from this head into the bound branch must not meet a
  // required check on the receipt's context while its files wait for a person
  return {
    state: 'pending',
    description,
    sha: result.head,
    heading: 'Perimeter apply: sent to review',
    body: `${inlineText(description)}\n\n${reviewSummary(review, result.pull, blocking)}`,
    failure: null,
    applied: false,
  };
}
