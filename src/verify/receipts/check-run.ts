import type { CheckAnnotation, CheckRun } from '../../github/upstream.js';
import { visible } from './escape.js';
import {
  CHECK_RUN_ANNOTATIONS_PER_REQUEST,
  headline,
  MAX_CHECK_RUN_ANNOTATIONS,
  MAX_CHECK_RUN_TEXT,
  type Receipt,
} from './receipt.js';
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

const CUT_NOTE =
  "\n… cut at 65,535 characters, GitHub's limit for a check run; the job summary has it all.\n";

/** At most MAX_CHECK_RUN_TEXT characters, cut at a line end: every line of the receipt is whole markdown. */
function fit(markdown: string): string {
  if (markdown.length <= MAX_CHECK_RUN_TEXT) return markdown;
  const end = markdown.lastIndexOf('\n', MAX_CHECK_RUN_TEXT - CUT_NOTE.length);
  return markdown.slice(0, Math.max(0, end)) + '\n' + CUT_NOTE;
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
export function renderCheckRun(verdict: Verdict, receipt: Receipt, facts: CheckRunFacts): CheckRunReceipt {
  const onFiles: CheckAnnotation[] = verdict.violations
    .filter((v): v is typeof v & { path: string } => v.path !== undefined && v.path !== '')
    .map((v) => ({
      path: v.path,
      level: 'failure',
      title: v.kind === 'path' ? 'Outside every perimeter' : `Perimeter violation: ${v.kind}`,
      message: visible(v.message),
    }));
  const annotated = onFiles.slice(0, MAX_CHECK_RUN_ANNOTATIONS);
  const batches: CheckAnnotation[][] = [];
  for (let i = 0; i < annotated.length; i += CHECK_RUN_ANNOTATIONS_PER_REQUEST)
    batches.push(annotated.slice(i, i + CHECK_RUN_ANNOTATIONS_PER_REQUEST));
  const summary = fit(renderSummary(verdict, headline(verdict), MAX_CHECK_RUN_TEXT - 8 * 1024));
  return {
    run: {
      name: receipt.status.context,
      conclusion: verdict.state === 'success' ? 'success' : 'failure',
      ...(receipt.status.targetUrl !== undefined ? { detailsUrl: receipt.status.targetUrl } : {}),
      title: receipt.status.description,
      summary,
      text: evidence(facts, onFiles.length - annotated.length),
      annotations: batches[0] ?? [],
    },
    more: batches.slice(1),
  };
}
