import * as core from '@actions/core';
import { createOctokitUpstream } from '../../github/octokit/octokit-upstream.js';
import type { Receipts, Upstream } from '../../github/upstream.js';
import { makeScrubber } from '../../safety/secret-forms.js';
import { renderCheckRun, renderReceipt, type CheckRunFacts, type Verdict } from '../../verify/index.js';
import { VerifyInputs } from '../constants.js';
import {
  booleanInput,
  readRunner,
  receiptAs,
  tokenInput,
  type Env,
  type ReceiptAs,
  type Settings,
} from '../inputs.js';
import { publishReceipt } from '../publish.js';

/** What perimeter/verify reads in both of its modes: the verify job and the pull-request gate. */
export interface VerifyBasics extends Pick<Settings, 'token' | 'owner' | 'repo' | 'apiUrl' | 'runUrl'> {
  failOnViolation: boolean;
  receiptAs: ReceiptAs;
}

export function readVerifyBasics(env: Env): VerifyBasics {
  return {
    token: tokenInput(core.getInput(VerifyInputs.GithubToken)),
    ...readRunner(env),
    failOnViolation: booleanInput(
      VerifyInputs.FailOnViolation,
      core.getInput(VerifyInputs.FailOnViolation),
      true,
    ),
    receiptAs: receiptAs(VerifyInputs.ReceiptAs, core.getInput(VerifyInputs.ReceiptAs)),
  };
}

/** A verdict judged and published; `unpublished` says why the receipt could not be posted whole. */
export interface Judged {
  verdict: Verdict;
  headline: string;
  unpublished: string | null;
}

/**
 * The frame both modes of perimeter/verify run in: the settings read (a bad input fails the step, saying
 * which), the token masked and scrubbed from every message, one upstream, and the verdict made the step's
 * outcome. An error reaches `failed` with its message scrubbed; it posts what `error` receipt it can.
 */
export async function runJudgingStep<S extends VerifyBasics>(
  read: () => S,
  judge: (upstream: Upstream, settings: S) => Promise<Judged>,
  failed: (upstream: Upstream, settings: S, error: unknown, message: string) => Promise<void>,
): Promise<void> {
  let settings: S;
  try {
    settings = read();
  } catch (error) {
    core.setFailed(`nothing was verified: ${(error as Error).message}`);
    return;
  }
  core.setSecret(settings.token);
  const scrub = makeScrubber([settings.token]);
  const upstream = createOctokitUpstream({
    token: settings.token,
    owner: settings.owner,
    repo: settings.repo,
    baseUrl: settings.apiUrl,
  });
  try {
    const { verdict, headline, unpublished } = await judge(upstream, settings);
    if (unpublished !== null) {
      core.setFailed(`Perimeter: ${unpublished}`);
      return;
    }
    if (verdict.state === 'success') return;
    const message = `Perimeter: ${headline}`;
    if (settings.failOnViolation) core.setFailed(message);
    else core.warning(message);
  } catch (error) {
    await failed(upstream, settings, error, scrub(error instanceof Error ? error.message : String(error)));
  }
}

/**
 * The verdict as the receipt (the status, the check run or both, as `receipt-as` says), published on `sha`
 * last: nothing after this can change what it says. Neither mode reads a ledger.
 */
export async function publishJudged(
  upstream: Receipts,
  settings: VerifyBasics,
  verdict: Verdict,
  where: { context: string; config: CheckRunFacts['config']; sha: string; recordNote?: string },
): Promise<Judged> {
  const receipt = renderReceipt(verdict, { runUrl: settings.runUrl, context: where.context });
  const checkRun = renderCheckRun(verdict, receipt, { config: where.config, ledger: null });
  const unpublished = await publishReceipt(
    upstream,
    { runUrl: settings.runUrl, receiptBy: 'post', receiptAs: settings.receiptAs },
    receipt,
    checkRun,
    where.sha,
    '',
    where.recordNote,
  );
  if (verdict.state === 'success' && unpublished === null)
    core.info(`Perimeter: ${receipt.status.description}`);
  return { verdict, headline: receipt.status.description, unpublished };
}
