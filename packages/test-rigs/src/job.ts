/**
 * One GitHub Actions job around the built action, for end-to-end tests and the demo: a repository in the
 * GitHub stand-in, the runner harness for main and post, an MCP client as the agent (connected with the
 * mcp-config file main wrote), and `git push` with the job's token as the route around the gateway.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import {
  commitToBare,
  seedRepo,
  startFakeGithub,
  type FakeGithub,
  type JobConclusion,
  type JobRecord,
} from '@perimeter/fake-github';
import { ActionRunner, REPO_ROOT, runnerNode, type RunnerOptions, type StepResult } from './runner.js';

const run = promisify(execFile);

export const REPOSITORY = 'octo/widgets';
/** The run every job of the rigs belongs to (the runner's GITHUB_RUN_ID). */
export const RUN_ID = 4242;
/** The action's step as a runner names it (`Run <uses>`); its post step is `Post Run <uses>`. */
export const ACTION_STEP = 'Run octo/perimeter@v1';

export interface JobOptions {
  /**
   * files of the default branch `main`, perimeters.yml included; with `source`, the files one commit adds on
   * top of the source's `main` (perimeters.yml, say)
   */
  files: Record<string, string>;
  /**
   * a real repository (a bare one or a checkout) whose `main` becomes the repository's history, as a
   * single-branch bare clone: the bench's jobs on a real project's history
   */
  source?: string;
  /** commits on main after the seed, oldest first (a history to list and read) */
  history?: Array<{ message: string; files: Record<string, string | null> }>;
  /** the bound branch, created from main before the job (unless it is main) */
  branch?: string;
  /** false: the bound branch is not made before the job (the workflow's own steps make it); default true */
  createBranch?: boolean;
  /** files committed on the bound branch before the job */
  branchFiles?: Record<string, string>;
  inputs?: Record<string, string>;
  /** other people with their own tokens, by login (a teammate, a bot): `push(..., { as: login })` */
  actors?: string[];
  /** files in the runner's workspace (a checkout an agent can edit) */
  workspaceFiles?: Record<string, string>;
  actionDir: string;
  /** the job token's contents permission (`read`: the job may not write the repository); default write */
  contents?: 'read' | 'write';
  /** the job token's checks permission (`read` or `none`: it may not create check runs); default write */
  checks?: 'none' | 'read' | 'write';
  /** the job token's statuses permission (`read` or `none`: it may not post statuses); default write */
  statuses?: 'none' | 'read' | 'write';
  /** the job token's pull-requests, issues and actions permissions (`read` or `none`); default write */
  pullRequests?: 'none' | 'read' | 'write';
  issues?: 'none' | 'read' | 'write';
  /** people with a permission on the repository (admin, maintain, write, triage, read); the owner is admin */
  collaborators?: Record<string, string>;
  actions?: 'none' | 'read' | 'write';
  /** more runner settings: the event name and payload, GITHUB_REF, GITHUB_HEAD_REF */
  runner?: Partial<
    Pick<RunnerOptions, 'eventName' | 'event' | 'headRef' | 'ref' | 'env' | 'actionsRuntime' | 'runAs'>
  >;
}

export interface CheckRunRecord {
  id: number;
  name: string;
  status: string;
  conclusion: string | null;
  started_at: string;
  details_url: string | null;
  output: { title: string | null; summary: string | null; text: string | null; annotations_count: number };
  app: { slug: string };
  annotations: Array<{ path: string; annotation_level: string; title: string | null; message: string }>;
}

export interface StatusRecord {
  state: string;
  context: string;
  description: string;
  target_url: string | null;
}

export class Job {
  readonly token = `ghs_${randomBytes(18).toString('hex')}`;
  /** the other actors' tokens, by login */
  readonly tokens: Record<string, string> = {};
  readonly branch: string;
  runner!: ActionRunner;
  private runnerOptions!: RunnerOptions;
  /** runners of earlier attempts (rerun), disposed with the job */
  private readonly earlier: ActionRunner[] = [];
  gh!: FakeGithub;
  /** the job as GitHub's Actions jobs API records it, with its steps; null until it starts */
  record: JobRecord | null = null;
  readonly dir = mkdtempSync(join(tmpdir(), 'perimeter-job-'));
  /**
   * main's seed commit, then each commit of `history`, oldest first; with `source`, its first-parent history
   * of `main`, then the commit of `files`
   */
  readonly commits: string[] = [];
  readonly bare = join(this.dir, 'widgets.git');
  private clients: Client[] = [];

  private constructor(private readonly options: JobOptions) {
    this.branch = options.branch ?? 'agent/work';
  }

  static async create(options: JobOptions): Promise<Job> {
    const job = new Job(options);
    if (options.source) {
      await run('git', [
        'clone',
        '-q',
        '--bare',
        '--single-branch',
        '--branch',
        'main',
        options.source,
        job.bare,
      ]);
      const { stdout } = await run('git', ['rev-list', '--first-parent', '--reverse', 'main'], {
        cwd: job.bare,
        maxBuffer: 64 * 1024 * 1024,
      });
      job.commits.push(...stdout.trim().split('\n'));
      job.commits.push(await commitToBare(job.bare, 'main', options.files, "The job's files"));
    } else job.commits.push(await seedRepo(job.bare, options.files));
    for (const commit of options.history ?? [])
      job.commits.push(await commitToBare(job.bare, 'main', commit.files, commit.message));
    if (job.branch !== 'main' && options.createBranch !== false)
      await git(job.bare, ['branch', job.branch, 'main']);
    for (const login of options.actors ?? []) job.tokens[login] = `ghp_${randomBytes(18).toString('hex')}`;
    job.gh = await startFakeGithub({
      token: job.token,
      repos: { [REPOSITORY]: job.bare },
      extraTokens: Object.fromEntries(Object.entries(job.tokens).map(([login, token]) => [token, login])),
      ...(options.contents ? { contents: options.contents } : {}),
      ...(options.checks ? { checks: options.checks } : {}),
      ...(options.statuses ? { statuses: options.statuses } : {}),
      ...(options.pullRequests ? { pullRequests: options.pullRequests } : {}),
      ...(options.issues ? { issues: options.issues } : {}),
      ...(options.collaborators ? { collaborators: options.collaborators } : {}),
      ...(options.actions ? { actions: options.actions } : {}),
    });
    if (options.branchFiles) await job.push(options.branchFiles, { message: 'Before the job' });
    const workspace = join(job.dir, 'workspace');
    for (const [path, content] of Object.entries(options.workspaceFiles ?? {})) {
      mkdirSync(dirname(join(workspace, path)), { recursive: true });
      writeFileSync(join(workspace, path), content);
    }
    const runnerOptions: RunnerOptions = {
      apiUrl: job.gh.url,
      serverUrl: 'https://github.com',
      repository: REPOSITORY,
      token: job.token,
      ref: `refs/heads/${job.branch}`,
      workspace,
      actionDir: options.actionDir,
      ...(options.inputs && { inputs: options.inputs }),
      ...options.runner,
    };
    job.runner = new ActionRunner(runnerOptions);
    job.runnerOptions = runnerOptions;
    return job;
  }

  /** GitHub starts the job (its runner picks it up); recorded for the Actions jobs API. */
  startRecord(name = 'implement', runnerName = 'GitHub Actions 1'): JobRecord {
    this.record = this.gh.recordJob(REPOSITORY, { runId: RUN_ID, name, runnerName });
    return this.record;
  }

  /**
   * The action's main step, recorded as a step of the job; then the agent's steps begin (one step in GitHub's
   * record, until post).
   */
  async main(): Promise<StepResult> {
    const id = (this.record ?? this.startRecord()).id;
    this.gh.startStep(REPOSITORY, id, ACTION_STEP);
    const main = await this.runner.runMain();
    this.gh.completeStep(REPOSITORY, id, main.exitCode === 0 ? 'success' : 'failure');
    this.gh.startStep(REPOSITORY, id, 'Run the agent');
    return main;
  }

  /**
   * The job run again, as "Re-run jobs" runs it: attempt `attempt` of the same run on a fresh runner with the
   * same settings, against the same repository; `main()` starts it.
   */
  async rerun(attempt = 2): Promise<void> {
    for (const client of this.clients.splice(0)) await client.close().catch(() => undefined);
    this.earlier.push(this.runner);
    this.record = null;
    this.runner = new ActionRunner({
      ...this.runnerOptions,
      workspace: join(this.dir, `workspace-${attempt}`),
      env: { ...this.runnerOptions.env, GITHUB_RUN_ATTEMPT: String(attempt) },
    });
  }

  /** The job ends: GitHub completes it and its runner's runtime token stops working. */
  async end(conclusion: JobConclusion = 'success'): Promise<void> {
    if (this.record === null) throw new Error('the job never started');
    this.record = this.gh.completeJob(REPOSITORY, this.record.id, conclusion);
    await this.runner.endJob();
  }

  /**
   * The agent, root on the runner, uploads an artifact with the runtime token it read from an action step's
   * environment (as actions/upload-artifact would), through @actions/artifact. Returns its id.
   */
  async agentUploads(name: string, files: Record<string, string>): Promise<number> {
    const dir = mkdtempSync(join(this.dir, 'upload-'));
    for (const [path, content] of Object.entries(files)) writeFileSync(join(dir, path), content);
    const script = `import { DefaultArtifactClient } from '@actions/artifact';
const [name, dir, ...files] = process.argv.slice(1);
const { id } = await new DefaultArtifactClient().uploadArtifact(name, files.map((f) => dir + '/' + f), dir);
process.stdout.write(String(id));`;
    const { stdout } = await run(
      runnerNode(),
      ['--input-type=module', '-e', script, name, dir, ...Object.keys(files)],
      { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? '', ...(await this.runner.runtimeEnvironment()) } },
    );
    return Number(stdout.trim().split('\n').pop());
  }

  /**
   * A later job of the same run on a fresh runner (its own directories and workspace, nothing carried over
   * from this job but what is passed in `inputs`), running the action in `subAction` (e.g. 'apply') with
   * `token` (default: the job's token).
   */
  laterJob(
    name: string,
    subAction: string,
    options: {
      token?: string;
      inputs?: Record<string, string>;
      /** the run's event (name and payload) as this job's: every job of a run has the same */
      sameEvent?: boolean;
    },
  ): ActionRunner {
    const event = options.sameEvent
      ? {
          ...(this.options.runner?.eventName && { eventName: this.options.runner.eventName }),
          ...(this.options.runner?.event !== undefined && { event: this.options.runner.event }),
        }
      : {};
    return new ActionRunner({
      apiUrl: this.gh.url,
      serverUrl: 'https://github.com',
      repository: REPOSITORY,
      token: options.token ?? this.token,
      ref: `refs/heads/${this.branch}`,
      actionDir: join(this.options.actionDir, subAction),
      ...(options.inputs && { inputs: options.inputs }),
      ...event,
      env: { GITHUB_JOB: name },
    });
  }

  /** The action's post step, recorded as `Post Run …` after the agent's steps. */
  async post(): Promise<StepResult> {
    for (const client of this.clients.splice(0)) await client.close().catch(() => undefined);
    const id = this.record?.id;
    if (id !== undefined) this.gh.startStep(REPOSITORY, id, `Post ${ACTION_STEP}`);
    const post = await this.runner.runPost();
    if (id !== undefined) this.gh.completeStep(REPOSITORY, id, post.exitCode === 0 ? 'success' : 'failure');
    return post;
  }

  /** An MCP client connected the way Claude Code would be: from the perimeter's mcp-config file main wrote. */
  async agent(perimeter: string): Promise<Client> {
    const path = this.runner.main?.outputs[`mcp-config-${perimeter}`];
    if (!path) throw new Error(`main wrote no mcp-config-${perimeter} output`);
    const config = JSON.parse(readFileSync(path, 'utf8')) as {
      mcpServers: Record<string, { url: string; headers: Record<string, string> }>;
    };
    const server = config.mcpServers[perimeter];
    if (!server) throw new Error(`no server ${perimeter} in ${path}`);
    const client = new Client({ name: 'test-agent', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: server.headers } }),
    );
    this.clients.push(client);
    return client;
  }

  /** A `git push` with the job's token: the route around the gateway. Returns the pushed commit. */
  async push(
    files: Record<string, string | null>,
    options: {
      branch?: string;
      from?: string;
      force?: boolean;
      message?: string;
      resetTo?: string;
      /** push as another actor (one of JobOptions.actors) instead of with the job's token */
      as?: string;
    } = {},
  ): Promise<string> {
    const work = mkdtempSync(join(this.dir, 'clone-'));
    const remote = this.remote(options.as);
    const from = options.from ?? this.branch;
    await git(work, ['clone', '--quiet', '--branch', from, remote, '.']);
    await git(work, ['config', 'user.name', 'Rogue Agent']);
    await git(work, ['config', 'user.email', 'rogue@example.com']);
    if (options.resetTo) await git(work, ['reset', '--quiet', '--hard', options.resetTo]);
    for (const [path, content] of Object.entries(files)) {
      if (content === null) {
        await git(work, ['rm', '--quiet', path]);
      } else {
        mkdirSync(dirname(join(work, path)), { recursive: true });
        writeFileSync(join(work, path), content);
        await git(work, ['add', path]);
      }
    }
    await git(work, ['commit', '--quiet', '--allow-empty', '-m', options.message ?? 'Direct push']);
    const target = options.branch ?? from;
    await git(work, [
      'push',
      '--quiet',
      ...(options.force ? ['--force'] : []),
      'origin',
      `HEAD:refs/heads/${target}`,
    ]);
    return (await git(work, ['rev-parse', 'HEAD'])).trim();
  }

  /**
   * `git push` of raw refspecs with the job's token, from a clone that has every branch and tag:
   * `:refs/heads/x` deletes, `SHA:refs/heads/x` creates or moves (add `+` to force), `SHA:refs/notes/x`.
   */
  async pushRefspecs(...refspecs: string[]): Promise<void> {
    const work = mkdtempSync(join(this.dir, 'clone-'));
    await git(work, ['clone', '--quiet', '--mirror', this.remote(), '.']);
    await git(work, ['push', '--quiet', this.remote(), ...refspecs]);
  }

  private remote(as?: string): string {
    const token = as === undefined ? this.token : this.tokens[as];
    if (token === undefined) throw new Error(`no actor ${as} in this job`);
    return `${this.gh.url.replace('http://', `http://x-access-token:${token}@`)}/${REPOSITORY}.git`;
  }

  async head(branch = this.branch): Promise<string> {
    return (await git(this.bare, ['rev-parse', `refs/heads/${branch}`])).trim();
  }

  /** Commit statuses on `sha`, newest first, as the REST API lists them (read with `token`). */
  async statuses(sha: string, token = this.token): Promise<StatusRecord[]> {
    const response = await fetch(`${this.gh.url}/repos/${REPOSITORY}/commits/${sha}/statuses`, {
      headers: { authorization: `Bearer ${token}` },
    });
    if (!response.ok) throw new Error(`statuses: ${response.status}`);
    return (await response.json()) as StatusRecord[];
  }

  /**
   * Every check run named `name` on `sha`, newest first (filter=all), with its annotations; read with `token`
   * (the job's own by default: another once the job ended and its token expired).
   */
  async checkRuns(sha: string, name = 'perimeter', token = this.token): Promise<CheckRunRecord[]> {
    const get = async (path: string): Promise<unknown> => {
      const response = await fetch(`${this.gh.url}/repos/${REPOSITORY}${path}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      if (!response.ok) throw new Error(`${path}: ${response.status}`);
      return response.json();
    };
    const list = (await get(
      `/commits/${sha}/check-runs?check_name=${encodeURIComponent(name)}&filter=all&per_page=100`,
    )) as { check_runs: Array<Omit<CheckRunRecord, 'annotations'> & { id: number }> };
    return Promise.all(
      list.check_runs.map(async (run) => ({
        ...run,
        annotations: (await get(
          `/check-runs/${run.id}/annotations?per_page=100`,
        )) as CheckRunRecord['annotations'],
      })),
    );
  }

  /** The gateway's pid, from the state main saved. */
  gatewayPid(): number {
    return Number(this.runner.main?.state.gatewayPid ?? 0);
  }

  async close(): Promise<void> {
    for (const client of this.clients.splice(0)) await client.close().catch(() => undefined);
    const pid = this.gatewayPid();
    if (pid > 0) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // stopped by post, as it should be
      }
    }
    await this.gh?.stop();
    this.runner?.dispose();
    for (const runner of this.earlier.splice(0)) runner.dispose();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export async function git(cwd: string, args: string[]): Promise<string> {
  const { stdout } = await run('git', args, {
    cwd,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: cwd,
      GIT_TERMINAL_PROMPT: '0',
      GIT_CONFIG_NOSYSTEM: '1',
    },
  });
  return stdout;
}

/** The text of a tool answer (first text content). */
export function text(result: unknown): string {
  const content = (result as { content?: Array<{ type: string; text?: string }> }).content ?? [];
  return content.map((c) => c.text ?? '').join('\n');
}
