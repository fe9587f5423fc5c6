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
    const { number, commits, perimeter, people = 0 } = verdict.pullRequest;
    const judged = commits - people;
    const inside = perimeter.includes(', ')
      ? `its maker's perimeter (${perimeter})`
      : `perimeter "${perimeter}"`;
    const how =
      people === 0
        ? `each inside ${inside}`
        : `${judged} inside ${judged === 0 ? 'no perimeter' : inside}, ${people} a person's own (not judged)`;
    return `Pull request #${number}: ${plural(commits, 'commit')}, ${how}; ${plural(files, 'changed file')}`;
  }
  const { gateway, direct, unattributed } = verdict.commits;
  const commits = gateway.length + direct.length + unattributed.length;
  if (files === 0 && commits === 0 && (verdict.staged ?? 0) > 0)
    return `Nothing pushed during the job: ${plural(verdict.staged!, 'commit')} staged for perimeter/apply${activity(verdict.calls)}`;
  if (files === 0 && commits === 0) return `No changes during the job${activity(verdict.calls)}`;
  // without a ledger (the verify job) a commit is judged by its tree, not told gateway from direct
  const how =
    gateway.length + direct.length === 0
      ? plural(commits, 'commit')
      : `${plural(gateway.length, 'commit')} via the gateway, ${direct.length + unattributed.length} direct`;
  return `${plural(files, 'changed file')}, all inside the perimeters; ${how}`;
}

/** What the gateway's ledger says the agent did, so "did nothing" reads apart from "did it all right". */
function activity(calls: Verdict['calls']): string {
  if (calls === null || calls === undefined) return '';
  if (calls.answered === 0) return ': the agent made no call to the gateway';
  return `; the gateway answered ${plural(calls.answered, 'call')}, ${calls.refused} refused`;
}
