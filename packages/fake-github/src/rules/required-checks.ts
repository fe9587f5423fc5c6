import type { StoredCheckRun, StoredStatus } from '../repo.js';
import type { RequiredStatusCheck } from './ruleset.js';

/**
 * Judges a head commit's checks against the required status checks of a ruleset, as a merge does. Pure: the
 * caller passes the commit's check runs and statuses.
 *
 * What counts, per required check `context` (and `integration_id` when set):
 * - Check runs named `context`: for each App, only its latest run counts, the one created last (greatest id).
 *   GitHub documents no rule here; reruns supersede earlier runs of the same App and name, and the id is the
 *   order of creation, which no creator can choose. `started_at` and `completed_at` are what the creator says
 *   and never decide. With `integration_id`, only the runs of that App count at all, so nothing another App
 *   creates, whatever times it claims, can stand in for it.
 * - Commit statuses with that `context`: the latest one (greatest id), as GitHub shows a context's state. With
 *   `integration_id` it counts only when that App's installation token created it; a later status from anyone
 *   else replaces it (the rule then answers "was not set by the expected GitHub app").
 * - "If a check and a commit status have the same name, both must pass when that name is required"
 *   (https://docs.github.com/pull-requests/how-tos/merge-and-close-pull-requests/troubleshooting-required-status-checks):
 *   every source that counts must pass, and at least one must exist.
 * - Passing: a completed check run whose conclusion is success, neutral or skipped ("Required status checks must
 *   have a successful, skipped, or neutral status",
 *   https://docs.github.com/repositories/configuring-branches-and-merges-in-your-repository/managing-protected-branches/about-protected-branches),
 *   a status whose state is success.
 */

type Problem = 'expected' | 'wrong app' | 'failing' | 'in progress' | 'queued' | 'pending';

const PASSING = ['success', 'neutral', 'skipped'];
/** Worst first: a source in a worse state decides what the refusal says. */
const SEVERITY: Problem[] = ['failing', 'in progress', 'queued', 'pending'];

/** The words GitHub's refusals use after `Required status check "<context>"`. */
const PHRASE: Record<Problem, string> = {
  expected: 'is expected.',
  'wrong app': 'was not set by the expected GitHub app.',
  failing: 'is failing.',
  'in progress': 'is in progress.',
  queued: 'is queued.',
  pending: 'is pending.',
};

function runProblem(run: StoredCheckRun): Problem | null {
  if (run.status === 'queued') return 'queued';
  if (run.status !== 'completed') return 'in progress';
  return PASSING.includes(run.conclusion ?? '') ? null : 'failing';
}

function statusProblem(status: StoredStatus): Problem | null {
  if (status.state === 'success') return null;
  return status.state === 'pending' ? 'pending' : 'failing';
}

function problemOf(
  check: RequiredStatusCheck,
  runs: StoredCheckRun[],
  statuses: StoredStatus[],
): Problem | null {
  const app = check.integration_id;
  const named = runs.filter((run) => run.name === check.context);
  const latestByApp = new Map<number, StoredCheckRun>();
  for (const run of named)
    if ((latestByApp.get(run.app.id)?.id ?? -1) < run.id) latestByApp.set(run.app.id, run);
  const ofContext = statuses.filter((status) => status.context === check.context);
  const latestStatus = ofContext.reduce<StoredStatus | null>((a, b) => (a && a.id > b.id ? a : b), null);

  const problems: Array<Problem | null> = [];
  for (const [appId, run] of latestByApp)
    if (app === undefined || appId === app) problems.push(runProblem(run));
  if (latestStatus && (app === undefined || latestStatus.creatorApp === app))
    problems.push(statusProblem(latestStatus));
  if (problems.length === 0)
    return app !== undefined && named.length + ofContext.length > 0 ? 'wrong app' : 'expected';
  return SEVERITY.find((p) => problems.includes(p)) ?? null;
}

/**
 * The lines of GitHub's refusal for these required checks, none when all pass: one check wrong names it
 * (`Required status check "perimeter" is expected.`); several missing are counted (`2 of 3 required status
 * checks are expected.`); several wrong in mixed ways are counted as not succeeded. GitHub does not document
 * these; they are the forms its refusals show (https://github.com/georust/proj/pull/178,
 * https://github.com/mikelward/scripts/pull/197).
 */
export function requiredCheckViolations(
  required: RequiredStatusCheck[],
  runs: StoredCheckRun[],
  statuses: StoredStatus[],
): string[] {
  const wrong = required
    .map((check) => ({ check, problem: problemOf(check, runs, statuses) }))
    .filter((w): w is { check: RequiredStatusCheck; problem: Problem } => w.problem !== null);
  if (wrong.length === 0) return [];
  if (wrong.length === 1)
    return [`Required status check "${wrong[0]!.check.context}" ${PHRASE[wrong[0]!.problem]}`];
  const all = `${wrong.length} of ${required.length} required status checks`;
  return wrong.every((w) => w.problem === 'expected')
    ? [`${all} are expected.`]
    : [`${all} have not succeeded.`];
}
