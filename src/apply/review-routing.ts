/**
 * Review routing, decided without I/O: which staged paths no exposed perimeter may write on its own but one
 * may send to review (perimeters.yml `review`), and the words the apply job puts on the draft pull request,
 * its review and its summary. Perimeter never approves: a person with the right to approve decides.
 */
import type { Perimeter } from '../policy/index.js';
import { inlineText } from '../verify/index.js';

/** A staged path sent to review, and the rule that sent it (`perimeter: review glob "…" (why not writable)`). */
export interface ReviewItem {
  path: string;
  rule: string;
}

/**
 * The paths among `paths` that no perimeter bound to `branch` may write, and that one may send to review.
 * Judge the change set with withReview first: a path neither writable nor reviewable is a violation there,
 * and the change set is refused whole before this is asked.
 */
export function sentToReview(
  paths: readonly string[],
  branch: string,
  perimeters: Perimeter[],
): ReviewItem[] {
  const bound = perimeters.filter((p) => p.allowsBranch(branch));
  const items: ReviewItem[] = [];
  for (const path of paths) {
    if (bound.some((p) => p.canWrite(path).allowed)) continue;
    for (const perimeter of bound) {
      const decision = perimeter.canReview(path);
      if (!decision.allowed) continue;
      items.push({ path, rule: `${perimeter.name}: ${decision.rule}` });
      break;
    }
  }
  return items;
}

/** The branch the draft pull request comes from, one per run attempt. */
export function reviewBranch(run: { id: string; attempt: string }): string {
  return `perimeter/review/${run.id}-${run.attempt}`;
}

/** Markdown-inert text: agents choose paths, so nothing in one may format, link or mention anyone. */
function shown(text: string): string {
  return inlineText(text).replace(/@/g, '&#64;');
}

/** The table of files and rules, at most `limit` rows (the rest counted). */
export function reviewTable(items: readonly ReviewItem[], limit = 100): string {
  const rows = items.slice(0, limit).map((item) => `| ${shown(item.path)} | ${shown(item.rule)} |`);
  const more = items.length > limit ? `\n\n${items.length - limit} more file(s) not listed.` : '';
  return `| file | rule |\n| --- | --- |\n${rows.join('\n')}${more}`;
}

/** The review's body: each file and the rule, and who decides. */
export function reviewBody(items: readonly ReviewItem[], blocking: boolean): string {
  return [
    `Perimeter sent this change to review: the agent's perimeter may not make ${items.length === 1 ? 'this change' : 'these changes'} on its own.`,
    '',
    reviewTable(items),
    '',
    blocking
      ? 'Changes are requested until a person with the right to approve has looked at each file (with reviews required, this blocks merging). Perimeter never approves.'
      : 'A person with the right to approve decides. Perimeter never approves; this review does not block merging by ' +
        'itself (branch protection or CODEOWNERS requiring an approval does).',
  ].join('\n');
}

/** What the job summary says besides the headline: the files, and whether the review blocks merging. */
export function reviewSummary(
  items: readonly ReviewItem[],
  pull: { number: number; url: string },
  blocking: boolean,
): string {
  return [
    `Sent to review in draft pull request [#${pull.number}](${pull.url}); the bound branch was not moved.`,
    '',
    reviewTable(items),
    '',
    blocking
      ? 'A review requesting changes names each file (posted with `review-token`). Perimeter never approves.'
      : 'The review is a comment: merge-blocking needs branch protection or CODEOWNERS requiring an approval ' +
        '(with `review-token`, a second identity, the review requests changes too). Perimeter never approves.',
  ].join('\n');
}
