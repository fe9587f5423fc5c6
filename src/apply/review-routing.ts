/**
 * Review routing, decided without I/O: which of a staged commit's paths go to review, by the one rule
 * (judgeCommit) run twice: first as the perimeters are; a commit one perimeter may make outright lands as it
 * is. Else with each perimeter's `review` globs counted as writable (withReview): the perimeter that may then
 * make the whole commit is the commit's perimeter, and every path it may not write outright goes to review,
 * whatever another perimeter may write. A path that runs from the branch it is pushed to (a workflow, a CI
 * configuration) is never sent: apply would push it to a branch of the repository. Also the words apply puts
 * on the draft pull request, its review and its summary. Perimeter never approves.
 */
import { runsOnPushRule, withReview, type Perimeter } from '../policy/index.js';
import { inlineText, judgeCommit, type CommitToJudge, type Violation } from '../verify/index.js';

/** A staged path sent to review, and the rule that sent it (`perimeter: review glob "…" (why not writable)`). */
export interface ReviewItem {
  path: string;
  rule: string;
}

export interface RoutedCommit {
  violations: Violation[];
  /** what could not be shown (a blob not read): the change set is not applied */
  unchecked: string[];
  /** the paths that go to review, empty when the commit lands as it is */
  review: ReviewItem[];
}

/** Where one staged commit goes: onto the branch, to review (which paths, by whose rule), or refused. */
export function routeCommit(commit: CommitToJudge, branch: string, perimeters: Perimeter[]): RoutedCommit {
  const outright = judgeCommit(commit, branch, perimeters);
  if (outright.madeBy !== null || outright.unchecked.length > 0)
    return { violations: outright.violations, unchecked: outright.unchecked, review: [] };
  const reviewing = judgeCommit(commit, branch, perimeters.map(withReview));
  const maker = perimeters.find((p) => p.name === reviewing.madeBy);
  if (maker === undefined)
    return { violations: reviewing.violations, unchecked: reviewing.unchecked, review: [] };
  const review: ReviewItem[] = [];
  const violations: Violation[] = [];
  for (const { path } of commit.changes) {
    if (maker.canWrite(path).allowed) continue;
    const runs = runsOnPushRule(path);
    if (runs !== null)
      violations.push({
        kind: 'path',
        path,
        message: `${path}: not sent to review, because apply would push it to a branch of the repository and ${runs}; a person makes this change`,
      });
    else review.push({ path, rule: `${maker.name}: ${maker.canReview(path).rule}` });
  }
  return { violations, unchecked: [], review };
}

/** The branch the draft pull request comes from, one per run attempt. */
export function reviewBranch(run: { id: string; attempt: string }): string {
  return `perimeter/review/${run.id}-${run.attempt}`;
}

/** The table of files and rules, at most `limit` rows (the rest counted). */
export function reviewTable(items: readonly ReviewItem[], limit = 100): string {
  const rows = items.slice(0, limit).map((item) => `| ${inlineText(item.path)} | ${inlineText(item.rule)} |`);
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
