import * as core from '@actions/core';
import { UpstreamError, type CommitStatus, type Receipts, type RepoReads } from '../github/upstream.js';
import {
  clip,
  codeBlock,
  inlineText,
  MAX_DESCRIPTION,
  visible,
  type CheckRunReceipt,
  type Receipt,
} from '../verify/index.js';
import type { Settings } from './inputs.js';

type PublishSettings = Pick<Settings, 'runUrl' | 'receiptBy' | 'receiptAs'>;

/**
 * Summary and annotations first, so the verdict is visible even when posting fails; then the check run and
 * the commit status on the bound branch's end head, as `receipt-as` asks. Answers why the receipt could not be
 * published as asked (the caller fails the step), or null. A check run that could not be created turns the
 * status (with `both`) into an error: the status never shows a verdict the Checks tab does not.
 */
export async function publishReceipt(
  upstream: Receipts,
  settings: PublishSettings,
  receipt: Receipt,
  checkRun: CheckRunReceipt,
  sha: string,
  gatewayLog: string,
  recordNote = '',
): Promise<string | null> {
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
    core.info('receipt-by: verify-job, so the receipt comes from the verify job, not from this step');
    return null;
  }
  let problem: string | null = null;
  if (settings.receiptAs !== 'status') {
    try {
      await createCheckRun(upstream, sha, checkRun);
    } catch (error) {
      problem = `the check run "${checkRun.run.name}" could not be created: ${whyNot(error)}`;
    }
  }
  if (settings.receiptAs !== 'check-run') {
    const status: CommitStatus =
      problem === null
        ? receipt.status
        : { ...receipt.status, state: 'error', description: `Not published: ${problem}` };
    await upstream.createStatus(sha, {
      ...status,
      description: clip(visible(status.description), MAX_DESCRIPTION),
      targetUrl: status.targetUrl ?? settings.runUrl,
    });
  }
  return problem;
}

/** The check run, then its annotations beyond GitHub's 50 a request in updates (a failing run's extras). */
async function createCheckRun(upstream: Receipts, sha: string, checkRun: CheckRunReceipt): Promise<void> {
  const id = await upstream.createCheckRun(sha, checkRun.run);
  const { title, summary } = checkRun.run;
  try {
    for (const annotations of checkRun.more)
      await upstream.addCheckRunAnnotations(id, { title, summary, annotations });
  } catch (error) {
    // the conclusion is already failure: only annotations are missing, the summary lists every violation
    core.warning(`some annotations of check run ${id} could not be added: ${whyNot(error)}`);
  }
}

/** GitHub's 403 to a token without the permission: say which one. */
function whyNot(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return error instanceof UpstreamError && error.status === 403
    ? `${message} (the job's token needs permissions: checks: write)`
    : message;
}

/** The receipt when nothing could be verified: an `error` status (best effort) and a summary saying why. */
export async function publishError(
  upstream: RepoReads & Receipts,
  settings: PublishSettings & Pick<Settings, 'statusContext'>,
  branch: string,
  sha: string | null,
  reason: string,
): Promise<void> {
  core.summary
    .addHeading('Perimeter: not verified', 2)
    .addRaw(`${inlineText(reason)}\n\nThe receipt is an error, never a success.`, true);
  await writeSummary();
  if (settings.receiptBy === 'verify-job') return;
  const description = clip(visible(`Not verified: ${reason}`), MAX_DESCRIPTION);
  let target: string | null;
  try {
    target = sha || (await upstream.tryGetBranchHead(branch));
  } catch (error) {
    core.warning(`could not find where the error receipt goes: ${whyNot(error)}`);
    return;
  }
  if (!target) return;
  if (settings.receiptAs !== 'status') {
    try {
      await upstream.createCheckRun(target, {
        name: settings.statusContext,
        conclusion: 'failure',
        ...(settings.runUrl !== undefined ? { detailsUrl: settings.runUrl } : {}),
        title: description,
        summary: `## ⚠️ Perimeter: error\n\n${inlineText(reason)}\n\nThe receipt is an error, never a success.\n`,
        annotations: [],
      });
    } catch (error) {
      core.warning(`could not create the error check run: ${whyNot(error)}`);
    }
  }
  if (settings.receiptAs === 'check-run') return;
  try {
    await upstream.createStatus(target, {
      state: 'error',
      context: settings.statusContext,
      description,
      targetUrl: settings.runUrl,
    });
  } catch (error) {
    core.warning(`could not post the error status: ${whyNot(error)}`);
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
