/**
 * Workflow jobs as GitHub's Actions API shows them. The stand-in runs no workflows: tests record a job when
 * they start one (in_progress) and complete it when it ends, on the stand-in's clock, and the jobs routes
 * answer from that record.
 * https://docs.github.com/rest/actions/workflow-jobs
 */

export type JobConclusion =
  'success' | 'failure' | 'neutral' | 'cancelled' | 'skipped' | 'timed_out' | 'action_required';

/**
 * One step of a job as "Get a job for a workflow run" lists it: GitHub's runner reports each step's name,
 * status, conclusion and times (whole seconds), the post steps of actions as `Post <step name>`.
 * https://docs.github.com/rest/actions/workflow-jobs#get-a-job-for-a-workflow-run
 */
export interface StepRecord {
  name: string;
  number: number;
  status: 'queued' | 'in_progress' | 'completed';
  conclusion: JobConclusion | null;
  startedAt: string;
  completedAt: string | null;
}

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
  steps: StepRecord[];
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
      steps: [],
    };
    this.jobs.push(record);
    return { ...record };
  }

  complete(id: number, conclusion: JobConclusion): JobRecord {
    const job = this.jobs.find((j) => j.id === id);
    if (!job) throw new Error(`no job ${id}`);
    if (job.status === 'completed') throw new Error(`job ${id} is already completed`);
    const open = job.steps.find((s) => s.status !== 'completed');
    if (open) this.close(open, conclusion === 'success' ? 'success' : 'cancelled');
    job.status = 'completed';
    job.conclusion = conclusion;
    job.completedAt = githubNow();
    return copy(job);
  }

  /** The job's runner starts a step now (the step before it, if still running, completes as a success). */
  startStep(id: number, name: string): StepRecord {
    const job = this.running(id);
    const open = job.steps.find((s) => s.status !== 'completed');
    if (open) this.close(open, 'success');
    const step: StepRecord = {
      name,
      number: job.steps.length + 1,
      status: 'in_progress',
      conclusion: null,
      startedAt: githubNow(),
      completedAt: null,
    };
    job.steps.push(step);
    return { ...step };
  }

  /** The job's running step ends with `conclusion`. */
  completeStep(id: number, conclusion: JobConclusion): StepRecord {
    const step = this.running(id).steps.find((s) => s.status !== 'completed');
    if (!step) throw new Error(`job ${id} has no running step`);
    this.close(step, conclusion);
    return { ...step };
  }

  get(id: number): JobRecord | undefined {
    const job = this.jobs.find((j) => j.id === id);
    return job && copy(job);
  }

  ofRun(runId: number): JobRecord[] {
    return this.jobs.filter((j) => j.runId === runId).map(copy);
  }

  private running(id: number): JobRecord {
    const job = this.jobs.find((j) => j.id === id);
    if (!job) throw new Error(`no job ${id}`);
    if (job.status === 'completed') throw new Error(`job ${id} is already completed`);
    return job;
  }

  private close(step: StepRecord, conclusion: JobConclusion): void {
    step.status = 'completed';
    step.conclusion = conclusion;
    step.completedAt = githubNow();
  }
}

const copy = (job: JobRecord): JobRecord => ({ ...job, steps: job.steps.map((s) => ({ ...s })) });
