import * as core from '@actions/core';
import type { Receipts } from '../../github/index.js';
import { renderReceipt, type CheckRunFacts, type Verdict } from '../../verify/index.js';
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
import { judgedOutcome } from '../step.js';

/** What perimeter/verify reads in both of its modes: the verify job and the pull-request gate. */
export interface VerifyBasics extends Pick<
  Settings,
  'token' | 'owner' | 'repo' | 'apiUrl' | 'runUrl' | 'repositoryUrl'
> {
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

/**
 * The verdict as the receipt (the status, the check run or both, as `receipt-as` says), published on `shas`
 * last: nothing after this can change what it says; then the step's outcome. Neither mode reads a ledger.
 */
export async function publishJudged(
  upstream: Receipts,
  settings: VerifyBasics,
  verdict: Verdict,
  where: { context: string; config: CheckRunFacts['config']; shas: string[]; recordNote?: string },
): Promise<void> {
  const receipt = renderReceipt(verdict, {
    runUrl: settings.runUrl,
    repositoryUrl: settings.repositoryUrl,
    context: where.context,
    evidence: { config: where.config, ledger: null },
  });
  const unpublished = await publishReceipt(
    upstream,
    { receiptBy: 'post', receiptAs: settings.receiptAs },
    receipt,
    where.shas,
    where.recordNote !== undefined ? { recordNote: where.recordNote } : {},
  );
  judgedOutcome(
    { state: verdict.state, headline: receipt.status.description, unpublished },
    settings.failOnViolation,
  );
}
