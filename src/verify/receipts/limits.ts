import { clip, visible } from './escape.js';

/**
 * GitHub's limits for each form of the receipt, and the one place each is applied: every status description
 * and check run title goes through `oneLine`, every check run text through `fitCheckRunText`.
 */

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
/** GitHub accepts 1 MiB of job summary per step; stay clear of it. */
export const SUMMARY_BUDGET = 900 * 1024;

/**
 * A status description or check run title: one line shown as it is (a path with CR/LF or bidi controls
 * cannot shape it), within GitHub's 140 characters.
 */
export function oneLine(text: string): string {
  return clip(visible(text), MAX_DESCRIPTION);
}

const CUT_NOTE =
  "\n… cut at 65,535 characters, GitHub's limit for a check run; the job summary has it all.\n";

/** At most MAX_CHECK_RUN_TEXT characters, cut at a line end: every line of the receipt is whole markdown. */
export function fitCheckRunText(markdown: string): string {
  if (markdown.length <= MAX_CHECK_RUN_TEXT) return markdown;
  const end = markdown.lastIndexOf('\n', MAX_CHECK_RUN_TEXT - CUT_NOTE.length);
  return markdown.slice(0, Math.max(0, end)) + '\n' + CUT_NOTE;
}

/** At most `max` items; when more, the last one shown says how many more there are. */
export function foldAtMost<T>(all: readonly T[], max: number, more: (hidden: number) => T): T[] {
  if (all.length <= max) return [...all];
  const shown = all.slice(0, max - 1);
  return [...shown, more(all.length - shown.length)];
}

/** Check run annotations in requests of GitHub's 50, at most MAX_CHECK_RUN_ANNOTATIONS in all. */
export function annotationBatches<T>(all: readonly T[]): T[][] {
  const kept = all.slice(0, MAX_CHECK_RUN_ANNOTATIONS);
  const batches: T[][] = [];
  for (let i = 0; i < kept.length; i += CHECK_RUN_ANNOTATIONS_PER_REQUEST)
    batches.push(kept.slice(i, i + CHECK_RUN_ANNOTATIONS_PER_REQUEST));
  return batches;
}
