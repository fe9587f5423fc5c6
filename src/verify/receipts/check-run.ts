import type { CheckAnnotation, CheckRun, CommitStatus } from '../../github/index.js';
import { visible } from './escape.js';
import { headline } from './headline.js';
import {
  annotationBatches,
  fitCheckRunText,
  MAX_CHECK_RUN_ANNOTATIONS,
  MAX_CHECK_RUN_TEXT,
} from './limits.js';
import type { ReceiptJson } from './receipt-json.js';
import { code, renderSummary, text } from './summary.js';
import type { Verdict } from '../types.js';

/** What the check run shows beyond the verdict, as the JSON receipt has it. */
export interface CheckRunFacts {
  config: ReceiptJson['config'];
  /** null: no ledger was read (a verify job trusts nothing the agent job left) */
  ledger: ReceiptJson['ledger'] | null;
}

/** The check run to create, and the annotations beyond GitHub's 50 a request, in updates of 50. */
export interface CheckRunReceipt {
  run: CheckRun;
  more: CheckAnnotation[][];
}

function evidence(facts: CheckRunFacts, unannotated: number): string {
  const { file, ref, blobSha } = facts.config;
  const lines = [
    '### Evidence',
    '',
    `- Perimeters: ${code(file)} at ${ref === null ? 'the default branch' : code(ref)}, blob ${code(blobSha)}`,
  ];
  const { ledger } = facts;
  if (ledger === null) lines.push('- Gateway ledger: not read (nothing the agent job left is trusted here)');
  else if (ledger.ok && ledger.head !== null)
    lines.push(`- Gateway ledger: chain head ${code(ledger.head)}, ${ledger.records} records`);
  else lines.push(`- Gateway ledger: not verified (${text(ledger.problem ?? 'unknown problem')})`);
  if (unannotated > 0)
    lines.push(`- ${unannotated} more violations on files are not annotated; the summary lists them`);
  return lines.join('\n') + '\n';
}

/**
 * The receipt as a check run, from the verdict the commit status shows. Only `success` passes: an `error`
 * (not everything could be checked) is a `failure` too, never `neutral` or `skipped`, which branch protection
 * counts as passing, nor `action_required`, which asks for a details page and reads as a request rather than a
 * verdict. https://docs.github.com/pull-requests/collaborating-with-pull-requests/collaborating-on-repositories-with-code-quality-features/about-status-checks#check-statuses-and-conclusions
 */
export function renderCheckRun(
  verdict: Verdict,
  receipt: { status: CommitStatus; repositoryUrl?: string | undefined },
  facts: CheckRunFacts,
): CheckRunReceipt {
  const onFiles: CheckAnnotation[] = verdict.violations
    .filter((v): v is typeof v & { path: string } => v.path !== undefined && v.path !== '')
    .map((v) => ({
      path: v.path,
      level: 'failure',
      title: v.kind === 'path' ? 'Outside every perimeter' : `Perimeter violation: ${v.kind}`,
      message: visible(v.message),
    }));
  const batches = annotationBatches(onFiles);
  const summary = fitCheckRunText(
    renderSummary(verdict, headline(verdict), MAX_CHECK_RUN_TEXT - 8 * 1024, receipt.repositoryUrl),
  );
  const unannotated = Math.max(0, onFiles.length - MAX_CHECK_RUN_ANNOTATIONS);
  return withBatches(checkRunOf(receipt.status, summary, evidence(facts, unannotated)), batches);
}

/**
 * The check run of a receipt whose status is `status`: named and titled like it, linking the same run. Only
 * `success` passes: an `error` (not everything could be checked) is a `failure` too, never `neutral` or
 * `skipped`, which branch protection counts as passing.
 */
export function checkRunOf(status: CommitStatus, summary: string, text?: string): CheckRun {
  return {
    name: status.context,
    conclusion: status.state === 'success' ? 'success' : 'failure',
    ...(status.targetUrl !== undefined ? { detailsUrl: status.targetUrl } : {}),
    title: status.description,
    summary: fitCheckRunText(summary),
    ...(text !== undefined ? { text: fitCheckRunText(text) } : {}),
    annotations: [],
  };
}

function withBatches(run: CheckRun, batches: CheckAnnotation[][]): CheckRunReceipt {
  return { run: { ...run, annotations: batches[0] ?? [] }, more: batches.slice(1) };
}
