/**
 * Two jobs of one workflow run, as docs/verify-job.md's setup runs them: the agent job (main, the agent's
 * steps, post) on one runner, then the verify job (perimeter/verify) on a fresh runner with a token of its
 * own and only the handoff. The agent job's runner has its own copy of the action, as a runner downloads it
 * into `_actions/OWNER/NAME/REF`, so an agent can rewrite it (`tamper`) without touching the verify job's.
 * The stand-in records both jobs for the Actions jobs API and revokes the agent job's token when it ends, as
 * GitHub does with GITHUB_TOKEN.
 */
import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JobConclusion, JobRecord } from '@perimeter/fake-github';
import { Job, REPOSITORY, type JobOptions } from './job.js';
import { ActionRunner, type StepResult } from './runner.js';

export const RUN_ID = 4242;
const AGENT_RUNNER = 'GitHub Actions 1';
const VERIFY_RUNNER = 'GitHub Actions 2';

export class TwoJobs {
  /** the verify job's own GITHUB_TOKEN (same identity as the agent job's, another token) */
  readonly verifyToken = `ghs_${randomBytes(18).toString('hex')}`;
  agentRecord: JobRecord | null = null;
  verifyRunner: ActionRunner | null = null;

  private constructor(
    readonly agent: Job,
    /** the agent runner's copy of the action (action.yml, verify/, dist/) */
    readonly agentActionDir: string,
    private readonly actionDir: string,
  ) {}

  /** `options.actionDir` is the pristine action; the agent job runs a copy of it. */
  /** `verifyChecks`: the verify job token's checks permission (default write) */
  static async create(options: JobOptions & { verifyChecks?: 'none' | 'read' | 'write' }): Promise<TwoJobs> {
    const copy = join(
      mkdtempSync(join(tmpdir(), 'perimeter-agent-runner-')),
      '_actions',
      'octo',
      'perimeter',
      'v1',
    );
    copyAction(options.actionDir, copy);
    const agent = await Job.create({
      ...options,
      actionDir: copy,
      inputs: { 'receipt-by': 'verify-job', ...options.inputs },
    });
    const jobs = new TwoJobs(agent, copy, options.actionDir);
    agent.gh.addToken(jobs.verifyToken, 'github-actions[bot]', { checks: options.verifyChecks ?? 'write' });
    return jobs;
  }

  /** The agent job starts (recorded in progress on its runner) and its main step runs. */
  async startAgentJob(): Promise<StepResult> {
    this.agentRecord = this.agent.gh.recordJob(REPOSITORY, {
      runId: RUN_ID,
      name: 'implement',
      runnerName: AGENT_RUNNER,
    });
    return this.agent.main();
  }

  /** The agent, root on its runner, rewrites the action's files there (dist/post/index.js, say). */
  tamper(path: string, content: string): void {
    writeFileSync(join(this.agentActionDir, path), content);
  }

  /**
   * The agent job ends: its post step runs (unless `post: false`, a job cancelled before it), the job is
   * completed with `conclusion`, and its token stops working.
   */
  async endAgentJob(
    options: { post?: boolean; conclusion?: JobConclusion } = {},
  ): Promise<StepResult | null> {
    const post = options.post === false ? null : await this.agent.post();
    if (this.agentRecord === null) throw new Error('the agent job never started');
    this.agent.gh.completeJob(REPOSITORY, this.agentRecord.id, options.conclusion ?? 'success');
    this.agent.gh.revokeToken(this.agent.token);
    return post;
  }

  /** The handoff as the agent job's outputs pass it on: main's output, '' when main set none. */
  handoff(): string {
    return this.agent.runner.main?.outputs.handoff ?? '';
  }

  /** The verify job: a fresh runner, the pristine action's verify/, its own token, only the handoff. */
  async verify(handoff = this.handoff(), inputs: Record<string, string> = {}): Promise<StepResult> {
    const record = this.agent.gh.recordJob(REPOSITORY, {
      runId: RUN_ID,
      name: 'verify',
      runnerName: VERIFY_RUNNER,
    });
    this.verifyRunner = new ActionRunner({
      apiUrl: this.agent.gh.url,
      serverUrl: 'https://github.com',
      repository: REPOSITORY,
      token: this.verifyToken,
      ref: 'refs/heads/main',
      actionDir: join(this.actionDir, 'verify'),
      inputs: { handoff, ...inputs },
      env: { GITHUB_JOB: 'verify', RUNNER_NAME: VERIFY_RUNNER, GITHUB_RUN_ID: String(RUN_ID) },
    });
    const step = await this.verifyRunner.runMain();
    this.agent.gh.completeJob(REPOSITORY, record.id, step.exitCode === 0 ? 'success' : 'failure');
    return step;
  }

  async close(): Promise<void> {
    this.verifyRunner?.dispose();
    await this.agent.close();
    rmSync(join(this.agentActionDir, '..', '..', '..', '..'), { recursive: true, force: true });
  }
}

function copyAction(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const part of ['action.yml', 'verify', 'dist'])
    cpSync(join(from, part), join(to, part), { recursive: true });
}
