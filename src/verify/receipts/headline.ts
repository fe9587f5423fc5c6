import type { Verdict } from '../types.js';

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The one-line verdict: the commit status description, the check run title and the summary's first line. */
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
