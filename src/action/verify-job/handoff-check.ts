import type { StatusRecord, WorkflowJob } from '../../github/index.js';
import { HandoffError, type Handoff } from '../handoff.js';

/** GitHub's job and status times have whole seconds; main's window opens 5 s before its snapshot. */
const CLOCK_SLACK_MS = 1_000;
const START_MARGIN_MS = 5_000;
/** After the agent job completed: a status its token posted in its last second is still inside the window. */
export const END_MARGIN_MS = 5_000;

const at = (time: string): number => Date.parse(time);

/**
 * The agent job among the run's jobs, by GitHub's record: the same run attempt, the runner main ran on, and
 * running when main's pending status was posted. Exactly one, and completed (the verify job `needs` it),
 * else the handoff does not describe a job of this run that GitHub knows.
 */
export function findAgentJob(jobs: readonly WorkflowJob[], handoff: Handoff): WorkflowJob {
  const posted = at(handoff.pending.createdAt);
  const candidates = jobs.filter(
    (job) =>
      job.runAttempt === handoff.run.attempt &&
      (handoff.run.runner === '' || job.runnerName === handoff.run.runner) &&
      at(job.startedAt) <= posted + CLOCK_SLACK_MS &&
      (job.completedAt === null || at(job.completedAt) + CLOCK_SLACK_MS >= posted),
  );
  const where = `run ${handoff.run.id} attempt ${handoff.run.attempt} on runner "${handoff.run.runner}"`;
  if (candidates.length === 0)
    throw new HandoffError(
      `GitHub lists no job of ${where} that was running when main posted its pending status (${handoff.pending.createdAt}): the handoff does not come from a job of this run`,
    );
  if (candidates.length > 1)
    throw new HandoffError(
      `GitHub lists ${candidates.length} jobs of ${where} running when main posted its pending status (${candidates.map((j) => j.name).join(', ')}), so the agent job cannot be told apart`,
    );
  const job = candidates[0] as WorkflowJob;
  if (job.status !== 'completed' || job.completedAt === null)
    throw new HandoffError(
      `the agent job "${job.name}" is ${job.status}, not completed: run the verify job after it (needs: <agent job>, if: always())`,
    );
  const startedAt = at(handoff.startedAt);
  if (startedAt < at(job.startedAt) - START_MARGIN_MS - CLOCK_SLACK_MS || startedAt > posted + CLOCK_SLACK_MS)
    throw new HandoffError(
      `the handoff's start (${handoff.startedAt}) is not between the agent job's start (${job.startedAt}) and main's pending status (${handoff.pending.createdAt})`,
    );
  return job;
}

/** Main's pending status as GitHub records it must be the one the handoff describes. */
export function checkPending(statuses: readonly StatusRecord[], handoff: Handoff): void {
  const { pending } = handoff;
  const found = statuses.find((status) => status.id === pending.id);
  const startHead = handoff.startRefs[`refs/heads/${handoff.branch}`];
  const differences = [
    found === undefined && `GitHub has no status ${pending.id} on ${pending.sha.slice(0, 7)}`,
    startHead !== pending.sha &&
      `it is on ${pending.sha.slice(0, 7)}, not on the start head of "${handoff.branch}" (${startHead?.slice(0, 7) ?? 'absent'})`,
    found && found.state !== 'pending' && `its state is ${found.state}`,
    found && found.context !== pending.context && `its context is "${found.context}"`,
    found && (found.description ?? '') !== pending.description && 'its description differs',
    found && at(found.createdAt) !== at(pending.createdAt) && `it was posted at ${found.createdAt}`,
    found && found.creator !== handoff.identity && `it was posted by ${found.creator ?? 'nobody known'}`,
  ].filter((d): d is string => typeof d === 'string');
  if (differences.length > 0)
    throw new HandoffError(
      `the handoff's pending status does not match GitHub's record: ${differences.join('; ')}`,
    );
}

/** The window in which a status on the receipt's context can only have come from the agent job. */
export function receiptWindowOf(handoff: Handoff, job: WorkflowJob) {
  const opens = Math.min(at(job.startedAt), at(handoff.startedAt));
  return {
    context: handoff.pending.context,
    known: [handoff.pending.id],
    since: new Date(opens).toISOString(),
    until: new Date(at(job.completedAt ?? handoff.pending.createdAt) + END_MARGIN_MS).toISOString(),
  };
}
