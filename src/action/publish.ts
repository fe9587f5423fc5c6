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

/** most commits one receipt is posted on; the first is the head a reviewer looks at */
export const MAX_RECEIPT_COMMITS = 30;

/**
 * Summary and annotations first, so the verdict is visible even when posting fails; then the check run and
 * the commit status on each of `shas` (the first is the head the verdict is about), as `receipt-as` asks.
 * Answers why the receipt could not be published as asked (the caller fails the step), or null. A check run
 * that could not be created turns the status (with `both`) into an error: the status never shows a verdict
 * the Checks tab does not. Where GitHub takes no more statuses (its 1,000 per commit and context), the
 * check run carries the receipt instead.
 */
export async function publishReceipt(
  upstream: Receipts,
  settings: PublishSettings,
  receipt: Receipt,
  shas: string | readonly string[],
  extras: { gatewayLog?: string; recordNote?: string } = {},
): Promise<string | null> {
  const targets = [...new Set(typeof shas === 'string' ? [shas] : shas)];
  const posted = targets.slice(0, MAX_RECEIPT_COMMITS);
  core.summary.addRaw(receipt.summary, true);
  if (posted.length > 1)
    core.summary.addRaw(
      `\nThe receipt is on ${posted.length} commits, every one the job left a ref at: ${posted.map((sha) => `\`${sha.slice(0, 7)}\``).join(', ')}${targets.length > posted.length ? ` (and not on ${targets.length - posted.length} more: at most ${MAX_RECEIPT_COMMITS})` : ''}.\n`,
      true,
    );
  if (extras.recordNote) core.summary.addRaw(`\n${extras.recordNote}`, true);
  if (extras.gatewayLog) {
    // the agent can write to this log: a fence it cannot close, every hidden character shown
    core.summary.addDetails('Gateway log (last lines)', `\n\n${codeBlock(extras.gatewayLog)}\n`);
  }
  await writeSummary();

  // at most MAX_ANNOTATIONS: the receipt already folds the rest into its last one
  for (const a of receipt.annotations)
    core.error(a.message, a.path ? { title: a.title, file: a.path } : { title: a.title });

  if (settings.receiptBy !== 'post') {
    core.info(
      settings.receiptBy === 'verify-job'
        ? 'receipt-by: verify-job, so the receipt comes from the verify job, not from this step'
        : 'writes: stage, so the receipt comes from the apply job (perimeter/apply), not from this step',
    );
    return null;
  }
  const problems: string[] = [];
  for (const sha of posted) {
    const problem = await publishOn(upstream, settings, receipt, sha);
    if (problem !== null) problems.push(problem);
  }
  if (targets.length > posted.length)
    problems.push(
      `the receipt was not posted on ${targets.length - posted.length} of the commits it belongs on`,
    );
  return problems.length === 0 ? null : problems.join('; ');
}

async function publishOn(
  upstream: Receipts,
  settings: PublishSettings,
  receipt: Receipt,
  sha: string,
): Promise<string | null> {
  let problem: string | null = null;
  let checkRun = false;
  if (settings.receiptAs !== 'status') {
    try {
      await createCheckRun(upstream, sha, receipt.checkRun);
      checkRun = true;
    } catch (error) {
      problem = `the check run "${receipt.checkRun.run.name}" could not be created on ${sha.slice(0, 7)}: ${whyNot(error)}`;
    }
  }
  if (settings.receiptAs === 'check-run') return problem;
  const { status } = receipt;
  try {
    await upstream.createStatus(
      sha,
      problem === null
        ? status
        : { ...status, state: 'error', description: oneLine(`Not published: ${problem}`) },
    );
    return problem;
  } catch (error) {
    if (!isStatusCap(error)) throw error;
    const full = `GitHub takes no more statuses on "${status.context}" of ${sha.slice(0, 7)} (${whyNot(error)})`;
    if (checkRun) return `${full}: the check run carries the receipt`;
    try {
      await createCheckRun(upstream, sha, receipt.checkRun);
      return `${full}: the check run "${receipt.checkRun.run.name}" carries the receipt instead`;
    } catch (checkError) {
      return `${full}, and the check run could not be created either: ${whyNot(checkError)}`;
    }
  }
}

/** GitHub's 422 once a commit holds 1,000 statuses of a context (MAX_STATUSES_PER_CONTEXT). */
function isStatusCap(error: unknown): boolean {
  return (
    error instanceof UpstreamError &&
    error.status === 422 &&
    /maximum number of statuses/i.test(error.message)
  );
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
  if (settings.receiptBy !== 'post') return;
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
/** The job summary written, or printed to the log where the runner gives no summary file. */
export async function writeSummary(): Promise<void> {
  if (process.env.GITHUB_STEP_SUMMARY) {
    await core.summary.write();
  } else {
    core.info(core.summary.stringify());
    core.summary.emptyBuffer();
  }
}
