/**
 * Workflow jobs as GitHub's Actions API shows them. The stand-in runs no workflows: tests record a job when
 * they start one (in_progress) and complete it when it ends, on the stand-in's clock, and the jobs routes
 * answer from that record.
 * https://docs.github.com/rest/actions/workflow-jobs
 */

export type JobConclusion =
  'success' | 'failure' | 'neutral' | 'cancelled' | 'skipped' | 'timed_out' | 'action_required';

export interface JobRecord {
  id: number;
  runId: number;
  runAttempt: number;
  name: string;
  status: 'queued' | 'in_progress' | 'completed';
  conclusion: JobConclusion | null;
  createdAt: string;
  startedAt: string;
  completedAt: string | null;
  runnerName: string;
  headSha: string;
  headBranch: string;
  workflowName: string;
}

/** What a test says about a job it starts; the rest is filled in. */
export interface JobStart {
  runId: number;
  runAttempt?: number;
  name: string;
  runnerName: string;
  headSha?: string;
  headBranch?: string;
  workflowName?: string;
}

/** GitHub's timestamps have whole seconds. */
export const githubNow = (): string => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

export class JobBook {
  private readonly jobs: JobRecord[] = [];
  private nextId = 7_000_001;

  start(job: JobStart): JobRecord {
    const now = githubNow();
    const record: JobRecord = {
      id: this.nextId++,
      runId: job.runId,
      runAttempt: job.runAttempt ?? 1,
      name: job.name,
      status: 'in_progress',
      conclusion: null,
      createdAt: now,
      startedAt: now,
      completedAt: null,
      runnerName: job.runnerName,
      headSha: job.headSha ?? '0'.repeat(40),
      headBranch: job.headBranch ?? 'main',
      workflowName: job.workflowName ?? 'agents',
    };
    this.jobs.push(record);
    return { ...record };
  }

  complete(id: number, conclusion: JobConclusion): JobRecord {
    const job = this.jobs.find((j) => j.id === id);
    if (!job) throw new Error(`no job ${id}`);
    if (job.status === 'completed') throw new Error(`job ${id} is already completed`);
    job.status = 'completed';
    job.conclusion = conclusion;
    job.completedAt = githubNow();
    return { ...job };
  }

  get(id: number): JobRecord | undefined {
    const job = this.jobs.find((j) => j.id === id);
    return job && { ...job };
  }

  ofRun(runId: number): JobRecord[] {
    return this.jobs.filter((j) => j.runId === runId).map((j) => ({ ...j }));
  }
}
