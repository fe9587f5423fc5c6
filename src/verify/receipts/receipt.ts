import type { CommitStatus } from '../../github/upstream.js';
import { clip, visible } from './escape.js';
import { renderSummary } from './summary.js';
import type { Verdict } from '../types.js';

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
}

/** GitHub rejects a commit status description longer than this. */
export const MAX_DESCRIPTION = 140;
/** GitHub shows at most 10 error annotations per step. */
export const MAX_ANNOTATIONS = 10;
/**
 * A check run's output.summary and output.text each hold at most this many characters.
 * https://docs.github.com/rest/checks/runs#create-a-check-run
 */
export const MAX_CHECK_RUN_TEXT = 65_535;
/** Annotations GitHub takes in one check run request; more go in updates, which append them. */
export const CHECK_RUN_ANNOTATIONS_PER_REQUEST = 50;
/** Annotations Perimeter puts on a check run in all (ten requests); the summary lists every violation. */
export const MAX_CHECK_RUN_ANNOTATIONS = 500;
/** The default commit status context (input status-context), also the check run's name. */
export const STATUS_CONTEXT = 'perimeter';

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The one-line verdict: the commit status description and the summary's first line. */
export function headline(verdict: Verdict): string {
  if (verdict.state === 'failure') {
    const first = verdict.violations[0]?.message ?? '';
    return `${plural(verdict.violations.length, 'violation')}: ${first}`;
  }
  if (verdict.state === 'error') return `Not fully checked: ${verdict.unchecked[0] ?? 'unknown reason'}`;
  const files = verdict.files.length;
  if (verdict.pullRequest !== undefined) {
    const { number, commits, perimeter } = verdict.pullRequest;
    return `Pull request #${number}: ${plural(commits, 'commit')}, each inside perimeter "${perimeter}"; ${plural(files, 'changed file')}`;
  }
  const { gateway, direct } = verdict.commits;
  if (files === 0 && gateway.length + direct.length === 0) return 'No changes during the job';
  return `${plural(files, 'changed file')}, all inside the perimeters; ${plural(gateway.length, 'commit')} via the gateway, ${direct.length} direct`;
}

function annotations(verdict: Verdict): Annotation[] {
  const all = verdict.violations.map((violation) => ({
    path: violation.path ?? '',
    title: violation.kind === 'path' ? 'Outside every perimeter' : `Perimeter violation: ${violation.kind}`,
    message: visible(violation.message),
  }));
  if (all.length <= MAX_ANNOTATIONS) return all;
  const shown = all.slice(0, MAX_ANNOTATIONS - 1);
  shown.push({
    path: '',
    title: 'More perimeter violations',
    message: `${all.length - shown.length} more violations; the job summary lists them all`,
  });
  return shown;
}

export function renderReceipt(
  verdict: Verdict,
  options: { runUrl?: string; context?: string } = {},
): Receipt {
  const status: CommitStatus = {
    state: verdict.state,
    context: options.context ?? STATUS_CONTEXT,
    // one line, shown as it is: a path with CR/LF or bidi controls cannot shape the status
    description: clip(visible(headline(verdict)), MAX_DESCRIPTION),
    ...(options.runUrl !== undefined ? { targetUrl: options.runUrl } : {}),
  };
  return { status, summary: renderSummary(verdict, headline(verdict)), annotations: annotations(verdict) };
}
