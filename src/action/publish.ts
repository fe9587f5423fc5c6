import * as core from '@actions/core';
import type { Upstream } from '../github/upstream.js';
import { clip, codeBlock, inlineText, MAX_DESCRIPTION, visible, type Receipt } from '../verify/index.js';
import type { Settings } from './inputs.js';

/**
 * Summary and annotations first, so the verdict is visible even when posting the status fails;
 * then the commit status on the bound branch's end head.
 */
export async function publishReceipt(
  upstream: Upstream,
  settings: Pick<Settings, 'runUrl' | 'receiptBy'>,
  receipt: Receipt,
  sha: string,
  gatewayLog: string,
  recordNote = '',
): Promise<void> {
  core.summary.addRaw(receipt.summary, true);
  if (recordNote) core.summary.addRaw(`\n${recordNote}`, true);
  if (gatewayLog) {
    // the agent can write to this log: a fence it cannot close, every hidden character shown
    core.summary.addDetails('Gateway log (last lines)', `\n\n${codeBlock(gatewayLog)}\n`);
  }
  await writeSummary();

  // at most MAX_ANNOTATIONS: the receipt already folds the rest into its last one
  for (const a of receipt.annotations)
    core.error(a.message, a.path ? { title: a.title, file: a.path } : { title: a.title });

  if (settings.receiptBy === 'verify-job') {
    core.info('receipt-by: verify-job, so the commit status comes from the verify job, not from this step');
    return;
  }
  await upstream.createStatus(sha, {
    ...receipt.status,
    description: clip(visible(receipt.status.description), MAX_DESCRIPTION),
    targetUrl: receipt.status.targetUrl ?? settings.runUrl,
  });
}

/** The receipt when nothing could be verified: an `error` status (best effort) and a summary saying why. */
export async function publishError(
  upstream: Upstream,
  settings: Pick<Settings, 'runUrl' | 'receiptBy' | 'statusContext'>,
  branch: string,
  sha: string | null,
  reason: string,
): Promise<void> {
  core.summary
    .addHeading('Perimeter: not verified', 2)
    .addRaw(`${inlineText(reason)}\n\nThe receipt is an error, never a success.`, true);
  await writeSummary();
  if (settings.receiptBy === 'verify-job') return;
  try {
    const target = sha || (await upstream.tryGetBranchHead(branch));
    if (!target) return;
    await upstream.createStatus(target, {
      state: 'error',
      context: settings.statusContext,
      description: clip(visible(`Not verified: ${reason}`), MAX_DESCRIPTION),
      targetUrl: settings.runUrl,
    });
  } catch (error) {
    core.warning(`could not post the error status: ${(error as Error).message}`);
  }
}

/** The job summary; outside a runner (no GITHUB_STEP_SUMMARY) it goes to the log instead. */
async function writeSummary(): Promise<void> {
  if (process.env.GITHUB_STEP_SUMMARY) {
    await core.summary.write();
  } else {
    core.info(core.summary.stringify());
    core.summary.emptyBuffer();
  }
}
