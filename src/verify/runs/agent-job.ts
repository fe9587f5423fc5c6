import type { WorkflowJob } from '../../github/index.js';

/** GitHub's job times have whole seconds. */
const CLOCK_SLACK_MS = 1_000;
/** Main opens a job's window this long before its start snapshot, on GitHub's clock (whole seconds). */
export const START_MARGIN_MS = 5_000;
/** After the agent job completed: a move or status its token made in its last second is still inside. */
export const END_MARGIN_MS = 5_000;

const at = (time: string): number => Date.parse(time);

/** Why the agent job cannot be judged: said in the `error` receipt as it is. */
export class AgentJobError extends Error {
  override name = 'AgentJobError';
}

/** The agent job as GitHub's Actions jobs API records it: when it ran, on GitHub's clock. */
export interface AgentJobWindow {
  /** its jobs: one, or a matrix's legs */
  jobs: WorkflowJob[];
  /** GitHub's clock: a second before the first of them started */
  since: string;
  /** GitHub's clock: END_MARGIN_MS after the last of them completed (its token had expired by then) */
  until: string;
  /** how each one ended, when not every one succeeded */
  conclusion: string | null;
}

/**
 * The agent job among this run attempt's jobs, by the name the workflow file gives it (a matrix's legs are
 * `name (a, b)`): only GitHub's record says when it ran, never anything the job handed over. Every one must
 * have completed (the verify job `needs` it).
 * https://docs.github.com/rest/actions/workflow-jobs#list-jobs-for-a-workflow-run
 */
export function agentJobWindow(
  jobs: readonly WorkflowJob[],
  wanted: { name: string; runId: number; attempt: number },
): AgentJobWindow {
  const named = jobs.filter(
    (job) =>
      job.runAttempt === wanted.attempt &&
      (job.name === wanted.name || job.name.startsWith(`${wanted.name} (`)),
  );
  const where = `run ${wanted.runId} attempt ${wanted.attempt}`;
  if (named.length === 0) {
    const listed = [...new Set(jobs.filter((j) => j.runAttempt === wanted.attempt).map((j) => j.name))];
    throw new AgentJobError(
      `GitHub lists no job "${wanted.name}" in ${where} (its jobs: ${listed.map((n) => `"${n}"`).join(', ') || 'none'}): set agent-job to the agent job's name as the run shows it`,
    );
  }
  const running = named.filter((job) => job.status !== 'completed' || job.completedAt === null);
  if (running.length > 0)
    throw new AgentJobError(
      `the agent job "${running[0]!.name}" is ${running[0]!.status}, not completed: run the verify job after it (needs: <agent job>, if: always())`,
    );
  const since = Math.min(...named.map((job) => at(job.startedAt))) - CLOCK_SLACK_MS;
  const until = Math.max(...named.map((job) => at(job.completedAt as string))) + END_MARGIN_MS;
  if (Number.isNaN(since) || Number.isNaN(until))
    throw new AgentJobError(`GitHub records no start or end time for the agent job "${wanted.name}"`);
  const ended = named.filter((job) => job.conclusion !== 'success');
  return {
    jobs: named,
    since: new Date(since).toISOString(),
    until: new Date(until).toISOString(),
    conclusion:
      ended.length === 0
        ? null
        : ended.map((job) => `"${job.name}" ${job.conclusion ?? 'without a conclusion'}`).join(', '),
  };
}
