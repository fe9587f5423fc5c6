import { clip, markdownText } from './escape.js';
import { SUMMARY_BUDGET } from './limits.js';
import type { CommitAttribution, FileDecision, Verdict, Violation } from '../types.js';

const MAX_FILE_ROWS = 1000;
const MAX_LIST_ITEMS = 100;
const MAX_CELL = 300;

const ICON = { success: '✅', failure: '❌', error: '⚠️' } as const;

/**
 * Text from the repository (paths, messages) shown literally: control, invisible and bidi characters become
 * visible escapes, and HTML and Markdown punctuation become entities, so a file name can neither inject
 * markup, break a table, nor display reversed.
 */
export function text(value: string, max = MAX_CELL): string {
  return markdownText(clip(value, max));
}

/** A name or SHA as inline code: HTML code, since CommonMark reads no entity inside backticks. */
export const code = (value: string): string => `<code>${text(value)}</code>`;
const short = (sha: string | null): string => (sha === null ? '—' : `<code>${sha.slice(0, 7)}</code>`);

function list(items: string[]): string[] {
  const shown = items.slice(0, MAX_LIST_ITEMS).map((item) => `- ${text(item)}`);
  if (items.length > shown.length) shown.push(`- … and ${items.length - shown.length} more`);
  return shown;
}

/**
 * How a commit reached the branch, as the gateway's ledger tells (the attribution): around the gateway, through
 * it, or said of neither when no ledger attributed it (a verify job reads none). Every push with a job's
 * token is recorded as the same actor, so the pusher alone cannot tell a direct push from the gateway's.
 */
function route(commits: CommitAttribution, sha: string): string {
  if (commits.direct.includes(sha)) return 'pushed around the gateway';
  if (commits.gateway.includes(sha)) return 'pushed through the gateway';
  return 'pushed';
}

/**
 * Each violation once, with the commits that made it (a link to each on GitHub when the repository's URL is
 * known), how each reached the branch and who pushed it, so a reviewer reads one line instead of matching the
 * files, commits and branch moves below.
 */
function violationList(
  violations: Violation[],
  commits: CommitAttribution,
  repositoryUrl: string | undefined,
): string[] {
  const commit = (sha: string): string =>
    /^[0-9a-f]{40}$/.test(sha) && repositoryUrl !== undefined
      ? `[<code>${sha.slice(0, 7)}</code>](${repositoryUrl}/commit/${sha})`
      : short(sha);
  const madeIn = (violation: Violation): string => {
    const made = violation.madeIn ?? [];
    if (made.length === 0) return '';
    const shown = made
      .slice(0, 3)
      .map(
        ({ sha, pusher }) =>
          `${commit(sha)} ${route(commits, sha)} by ${text(pusher ?? 'an unrecorded actor')}`,
      );
    const more = made.length > shown.length ? ` and ${made.length - shown.length} more commits` : '';
    return ` — in ${shown.join(', ')}${more}`;
  };
  const shown = violations.slice(0, MAX_LIST_ITEMS).map((v) => `- ${text(v.message)}${madeIn(v)}`);
  if (violations.length > shown.length) shown.push(`- … and ${violations.length - shown.length} more`);
  return shown;
}

function change(file: FileDecision): string {
  if (file.kind === 'modified' && file.oldMode !== file.newMode)
    return `mode ${file.oldMode} → ${file.newMode}`;
  return file.kind;
}

function fileRows(files: FileDecision[], budget: number): string[] {
  const rows = ['| File | Change | Decision | Rule |', '|---|---|---|---|'];
  let used = 0;
  let shown = 0;
  // Refused files first: they are what a reader needs when the table is cut.
  const ordered = [...files.filter((file) => !file.allowed), ...files.filter((file) => file.allowed)];
  for (const file of ordered) {
    const row = `| ${code(file.path)} | ${change(file)} | ${file.allowed ? 'allowed' : '**refused**'} | ${text(file.rule)} |`;
    const bytes = Buffer.byteLength(row) + 1;
    if (shown >= MAX_FILE_ROWS || used + bytes > budget) break;
    rows.push(row);
    used += bytes;
    shown += 1;
  }
  if (shown < files.length) rows.push('', `… and ${files.length - shown} more files (not shown).`);
  return rows;
}

/**
 * How many new commits, and by which route. Without a ledger (the verify job) nothing is told gateway from
 * direct, so nothing is counted as either: "0 via the gateway" would deny the commit the gateway made.
 */
function commitCounts({ commits, staged }: Verdict): string {
  const others = commits.others.length > 0 ? `, ${commits.others.length} pushed by others (not judged)` : '';
  const end = commits.complete ? '.' : ' (the list of new commits is incomplete).';
  const attributed = commits.gateway.length + commits.direct.length;
  const stagedNote =
    staged !== undefined && staged > 0
      ? ` ${staged} staged for perimeter/apply, which judges them again and writes them.`
      : '';
  if (attributed + commits.unattributed.length + commits.others.length === 0 && stagedNote !== '')
    return `None pushed during the job;${stagedNote}`;
  if (attributed === 0 && commits.unattributed.length > 0) {
    const n = commits.unattributed.length;
    return (
      `${n} new commit${n === 1 ? '' : 's'}${others}, each judged by its tree (no ledger read here, so the ` +
      `gateway's commits are not told from direct pushes)${end}${stagedNote}`
    );
  }
  return (
    `${commits.gateway.length} via the gateway, ${commits.direct.length} pushed directly${others}` +
    (commits.unattributed.length > 0 ? `, ${commits.unattributed.length} not attributed` : '') +
    `${end}${stagedNote}`
  );
}

/** The job summary; `budget` bounds the changed-files table in bytes (the rest has lists of at most 100). */
export function renderSummary(
  verdict: Verdict,
  headline: string,
  budget = SUMMARY_BUDGET,
  repositoryUrl?: string,
): string {
  const { commits, violations } = verdict;
  // a failure's headline is its first violation: the list below says each one, once
  const lead =
    violations.length > 0
      ? violations.length === 1
        ? '1 violation, listed below with the commit that made it and who pushed it.'
        : `${violations.length} violations, each listed once below with the commit that made it and who pushed it.`
      : text(headline, 1000);
  const head: string[] = [
    `## ${ICON[verdict.state]} Perimeter: ${verdict.state}`,
    '',
    lead,
    '',
    `Branch ${code(verdict.branch)}: ${short(verdict.startHead)} → ${short(verdict.endHead)}` +
      (verdict.baseline ? `, compared with ${text(verdict.baseline.label, 500)}` : ''),
  ];
  if (violations.length > 0)
    head.push('', '### Violations', '', ...violationList(violations, commits, repositoryUrl));
  if (verdict.unchecked.length > 0) head.push('', '### Not checked', '', ...list(verdict.unchecked));

  const tail: string[] = ['', '### Commits', ''];
  tail.push(commitCounts(verdict));
  if (commits.direct.length > 0) tail.push('', ...list(commits.direct.map((sha) => `direct: ${sha}`)));
  if (commits.others.length > 0) tail.push('', ...list(commits.others.map((sha) => `by others: ${sha}`)));
  if (verdict.others.length > 0) {
    tail.push('', '### Changed by others (not judged)', '');
    tail.push(
      ...list(
        verdict.others.map((o) => `${o.ref}: ${o.actors.join(', ') || 'no recorded actor'} (${o.why})`),
      ),
    );
  }
  if (verdict.pushes.length > 0) {
    tail.push(
      '',
      `Branch moves during the job (this job acts as ${text(verdict.identity ?? 'an unknown identity')}):`,
      '',
      '| Pushed by | Ref | Type | From → To |',
      '|---|---|---|---|',
    );
    for (const push of verdict.pushes.slice(0, MAX_LIST_ITEMS)) {
      tail.push(
        `| ${text(push.actor ?? 'unknown')} | ${code(push.ref)} | ${text(push.activityType)} | ${short(push.before)} → ${short(push.after)} |`,
      );
    }
  }
  const perimeters = Object.entries(verdict.perPerimeter);
  if (perimeters.length > 0) {
    tail.push(
      '',
      '### Perimeters',
      '',
      '| Perimeter | Calls | Refusals | Secrets hidden | Credential writes refused |',
      '|---|---:|---:|---:|---:|',
    );
    for (const [name, counts] of perimeters)
      tail.push(
        `| ${code(name)} | ${counts.calls} | ${counts.refusals} | ${counts.hidden ?? 0} | ${counts.credentialRefusals ?? 0} |`,
      );
  }
  if (verdict.notes.length > 0) tail.push('', '### Notes', '', ...list(verdict.notes));

  const fixed = Buffer.byteLength(head.join('\n')) + Buffer.byteLength(tail.join('\n'));
  const files =
    verdict.files.length === 0
      ? ['', '### Changed files', '', 'None.']
      : ['', `### Changed files (${verdict.files.length})`, '', ...fileRows(verdict.files, budget - fixed)];
  return [...head, ...files, ...tail, ''].join('\n');
}
