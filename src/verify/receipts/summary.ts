import { clip, markdownText } from './escape.js';
import { SUMMARY_BUDGET } from './limits.js';
import type { FileDecision, Verdict } from '../types.js';

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

/** The job summary; `budget` bounds the changed-files table in bytes (the rest has lists of at most 100). */
export function renderSummary(verdict: Verdict, headline: string, budget = SUMMARY_BUDGET): string {
  const { commits } = verdict;
  const head: string[] = [
    `## ${ICON[verdict.state]} Perimeter: ${verdict.state}`,
    '',
    text(headline, 1000),
    '',
    `Branch ${code(verdict.branch)}: ${short(verdict.startHead)} → ${short(verdict.endHead)}` +
      (verdict.baseline ? `, compared with ${text(verdict.baseline.label, 500)}` : ''),
  ];
  if (verdict.violations.length > 0)
    head.push('', '### Violations', '', ...list(verdict.violations.map((v) => v.message)));
  if (verdict.unchecked.length > 0) head.push('', '### Not checked', '', ...list(verdict.unchecked));

  const tail: string[] = ['', '### Commits', ''];
  tail.push(
    `${commits.gateway.length} via the gateway, ${commits.direct.length} pushed directly` +
      (commits.others.length > 0 ? `, ${commits.others.length} pushed by others (not judged)` : '') +
      (commits.unattributed.length > 0 ? `, ${commits.unattributed.length} not attributed` : '') +
      (commits.complete ? '.' : ' (the list of new commits is incomplete).'),
  );
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
