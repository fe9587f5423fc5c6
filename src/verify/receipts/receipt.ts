import type { CommitStatus } from '../../github/index.js';
import { checkRunOf, renderCheckRun, type CheckRunFacts, type CheckRunReceipt } from './check-run.js';
import { inlineText, visible } from './escape.js';
import { headline } from './headline.js';
import { foldAtMost, MAX_ANNOTATIONS, oneLine } from './limits.js';
import { renderSummary } from './summary.js';
import type { Verdict } from '../types.js';

/**
 * The receipt pipeline: a verdict (or, where nothing could be judged, a notice) rendered to every form a
 * reviewer reads, here and nowhere else. Each form is cut to GitHub's limit for it in limits.ts.
 */

export interface Annotation {
  /** repository-relative file, or '' for a violation that is not about one file */
  path: string;
  title: string;
  message: string;
}

export interface Receipt {
  status: CommitStatus;
  /** markdown for the job summary, well under GitHub's 1 MiB per step */
  summary: string;
  /** error annotations, at most MAX_ANNOTATIONS (GitHub shows no more than 10 errors per step) */
  annotations: Annotation[];
  /** the same verdict as a check run (posted when `receipt-as` asks for one) */
  checkRun: CheckRunReceipt;
}

export interface ReceiptOptions {
  runUrl?: string | undefined;
  /** the status context, also the check run's name (default STATUS_CONTEXT) */
  context?: string;
  /** `${server}/${owner}/${repo}`, for links to the commits the summary names */
  repositoryUrl?: string | undefined;
}

/** The default commit status context (input status-context), also the check run's name. */
export const STATUS_CONTEXT = 'perimeter';

function annotations(verdict: Verdict): Annotation[] {
  const all = verdict.violations.map((violation) => ({
    path: violation.path ?? '',
    title: violation.kind === 'path' ? 'Outside every perimeter' : `Perimeter violation: ${violation.kind}`,
    message: visible(violation.message),
  }));
  return foldAtMost(all, MAX_ANNOTATIONS, (more) => ({
    path: '',
    title: 'More perimeter violations',
    message: `${more} more violations; the job summary lists them all`,
  }));
}

function statusOf(state: CommitStatus['state'], description: string, options: ReceiptOptions): CommitStatus {
  return {
    state,
    context: options.context ?? STATUS_CONTEXT,
    description: oneLine(description),
    ...(options.runUrl !== undefined ? { targetUrl: options.runUrl } : {}),
  };
}

/** A judged verdict as every form of the receipt. `evidence` is what the check run cites. */
export function renderReceipt(
  verdict: Verdict,
  options: ReceiptOptions & { evidence: CheckRunFacts },
): Receipt {
  const status = statusOf(verdict.state, headline(verdict), options);
  return {
    status,
    summary: renderSummary(verdict, headline(verdict), undefined, options.repositoryUrl),
    annotations: annotations(verdict),
    checkRun: renderCheckRun(verdict, { status, repositoryUrl: options.repositoryUrl }, options.evidence),
  };
}

/**
 * A receipt that judges nothing: what a step could not verify or apply, or what it applied. `description`
 * is the one line (the status and the check run title), `body` the summary's markdown under `heading`.
 */
export function renderNotice(
  notice: { state: CommitStatus['state']; heading: string; description: string; body: string },
  options: ReceiptOptions,
): Receipt {
  const status = statusOf(notice.state, notice.description, options);
  const summary = `## ${notice.heading}\n\n${notice.body}\n`;
  return { status, summary, annotations: [], checkRun: { run: checkRunOf(status, summary), more: [] } };
}

/** The receipt when nothing could be verified: an `error`, never a success, saying why. */
export function renderErrorReceipt(reason: string, options: ReceiptOptions): Receipt {
  return renderNotice(
    {
      state: 'error',
      heading: 'Perimeter: not verified',
      description: `Not verified: ${reason}`,
      body: `${inlineText(reason)}\n\nThe receipt is an error, never a success.`,
    },
    options,
  );
}
