import * as core from '@actions/core';
import { type Receipts, type RepoReads, UpstreamError } from '../github/index.js';
import {
  codeBlock,
  oneLine,
  renderErrorReceipt,
  type CheckRunReceipt,
  type Receipt,
} from '../verify/index.js';
import type { Settings } from './inputs.js';

type PublishSettings = Pick<Settings, 'receiptBy' | 'receiptAs'>;

/**
 * Summary and annotations first, so the verdict is visible even when posting fails; then the check run and
 * the commit status on `sha`, as `receipt-as` asks. Answers why the receipt could not be published as asked
 * (the caller fails the step), or null. A check run that could not be created turns the status (with `both`)
 * into an error: the status never shows a verdict the Checks tab does not.
 */
export async function publishReceipt(
  upstream: Receipts,
  settings: PublishSettings,
  receipt: Receipt,
  sha: string,
  extras: { gatewayLog?: string; recordNote?: string } = {},
): Promise<string | null> {
  core.summary.addRaw(receipt.summary, true);
  if (extras.recordNote) core.summary.addRaw(`\n${extras.recordNote}`, true);
  if (extras.gatewayLog) {
    // the agent can write to this log: a fence it cannot close, every hidden character shown
    core.summary.addDetails('Gateway log (last lines)', `\n\n${codeBlock(extras.gatewayLog)}\n`);
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
      await createCheckRun(upstream, sha, receipt.checkRun);
    } catch (error) {
      problem = `the check run "${receipt.checkRun.run.name}" could not be created: ${whyNot(error)}`;
    }
  }
  if (settings.receiptAs !== 'check-run') {
    const { status } = receipt;
    await upstream.createStatus(
      sha,
      problem === null
        ? status
        : { ...status, state: 'error', description: oneLine(`Not published: ${problem}`) },
    );
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

/**
 * A receipt that may not land whole, posted as far as it can be: the summary, then the check run and the
 * status on `sha`, or on `branch`'s head when no SHA is known. Each failure is a warning.
 */
export async function publishBestEffort(
  upstream: RepoReads & Receipts,
  settings: PublishSettings,
  receipt: Receipt,
  where: { sha: string | null; branch: string | null },
): Promise<void> {
  core.summary.addRaw(receipt.summary, true);
  await writeSummary();
  if (settings.receiptBy === 'verify-job') return;
  let target: string | null;
  try {
    target = where.sha || (where.branch ? await upstream.tryGetBranchHead(where.branch) : null);
  } catch (error) {
    core.warning(`could not find where the receipt goes: ${whyNot(error)}`);
    return;
  }
  if (!target) return;
  if (settings.receiptAs !== 'status') {
    try {
      await upstream.createCheckRun(target, receipt.checkRun.run);
    } catch (error) {
      core.warning(`could not create the check run: ${whyNot(error)}`);
    }
  }
  if (settings.receiptAs === 'check-run') return;
  try {
    await upstream.createStatus(target, receipt.status);
  } catch (error) {
    core.warning(`could not post the status: ${whyNot(error)}`);
  }
}

/** The receipt when nothing could be verified: an `error` (best effort) and a summary saying why. */
export async function publishError(
  upstream: RepoReads & Receipts,
  settings: PublishSettings & Pick<Settings, 'statusContext' | 'runUrl'>,
  branch: string,
  sha: string | null,
  reason: string,
): Promise<void> {
  const receipt = renderErrorReceipt(reason, { runUrl: settings.runUrl, context: settings.statusContext });
  await publishBestEffort(upstream, settings, receipt, { sha, branch });
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
