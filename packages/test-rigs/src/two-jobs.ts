/**
 * Two jobs of one workflow run, as docs/verify-job.md's setup runs them: the agent job (main, the agent's
 * steps, post) on one runner, then the verify job (perimeter/verify) on a fresh runner with a token of its
 * own and its own inputs; nothing passes from the agent job to it. The agent job's runner has its own copy of the action, as a runner downloads it
 * into `_actions/OWNER/NAME/REF`, so an agent can rewrite it (`tamper`) without touching the verify job's.
 * The stand-in records both jobs for the Actions jobs API and revokes the agent job's token when it ends, as
 * GitHub does with GITHUB_TOKEN.
 */
import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppToken, JobConclusion, JobRecord } from '@perimeter/fake-github';
import { Job, REPOSITORY, RUN_ID, type JobOptions } from './job.js';
import { ActionRunner, type StepResult } from './runner.js';

export { RUN_ID };
const AGENT_RUNNER = 'GitHub Actions 1';
const VERIFY_RUNNER = 'GitHub Actions 2';

export class TwoJobs {
  /** the verify job's own GITHUB_TOKEN (same identity as the agent job's, another token) */
  readonly verifyToken = `ghs_${randomBytes(18).toString('hex')}`;
  agentRecord: JobRecord | null = null;
  verifyRunner: ActionRunner | null = null;

  private constructor(
    readonly agent: Job,
    private readonly pushedBefore: boolean,
    /** the agent job's main step's perimeters input, which the workflow gives the verify step too */
    private readonly perimeters: string,
    /** the agent runner's copy of the action (action.yml, verify/, dist/) */
    readonly agentActionDir: string,
    private readonly actionDir: string,
  ) {}

  /**
   * `options.actionDir` is the pristine action; the agent job runs a copy of it. `verifyChecks`: the verify
   * job token's checks permission (default write); `verifyApp`: the verify job's token is this GitHub App's
   * installation token (actions/create-github-app-token), not a GITHUB_TOKEN.
   */
  static async create(
    options: JobOptions & { verifyChecks?: 'none' | 'read' | 'write'; verifyApp?: AppToken },
  ): Promise<TwoJobs> {
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
    const jobs = new TwoJobs(
      agent,
      options.branchFiles !== undefined || options.history !== undefined || options.source !== undefined,
      options.inputs?.perimeters ?? 'all',
      copy,
      options.actionDir,
    );
    const checks = options.verifyChecks ?? 'write';
    if (options.verifyApp) agent.gh.addAppToken(jobs.verifyToken, options.verifyApp, { checks });
    else agent.gh.addToken(jobs.verifyToken, 'github-actions[bot]', { checks });
    return jobs;
  }

  /**
   * The agent job starts (recorded in progress on its runner) and its main step runs. On GitHub a job starts
   * seconds after the push that set up its branch; here, after the stand-in's clock has passed the second
   * of the last push before the job, so that push is older than the job's window as GitHub records both.
   */
  async startAgentJob(): Promise<StepResult> {
    if (this.pushedBefore) await new Promise((resolve) => setTimeout(resolve, 2_100));
    this.startAgentJobRecord();
    return this.agent.main();
  }

  /** GitHub starts the agent job (its runner picks it up); its steps have not run yet. */
  startAgentJobRecord(): void {
    this.agentRecord = this.agent.startRecord('implement', AGENT_RUNNER);
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
    await this.agent.end(options.conclusion ?? 'success');
    this.agentRecord = this.agent.record;
    this.agent.gh.revokeToken(this.agent.token);
    return post;
  }

  /**
   * The verify job: a fresh runner of the same run (the same GITHUB_REF as the agent job's), the pristine
   * action's verify/, its own token, and its own inputs (`agent-job: implement` and the agent job's
   * `perimeters` unless given); `name`: its
   * job name in the run.
   */
  async verify(inputs: Record<string, string> = {}, name = 'verify'): Promise<StepResult> {
    const record = this.agent.gh.recordJob(REPOSITORY, {
      runId: RUN_ID,
      name,
      runnerName: VERIFY_RUNNER,
    });
    this.verifyRunner?.dispose();
    this.verifyRunner = new ActionRunner({
      apiUrl: this.agent.gh.url,
      serverUrl: 'https://github.com',
      repository: REPOSITORY,
      token: this.verifyToken,
      ref: `refs/heads/${this.agent.branch}`,
      actionDir: join(this.actionDir, 'verify'),
      inputs: { 'agent-job': 'implement', perimeters: this.perimeters, ...inputs },
      env: { GITHUB_JOB: name, RUNNER_NAME: VERIFY_RUNNER, GITHUB_RUN_ID: String(RUN_ID) },
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
