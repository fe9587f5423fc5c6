/**
 * Runs the action the way a GitHub runner does: each step (`runs.main`, `runs.post` from action.yml) as its
 * own `node` process with INPUT_* (defaults from action.yml applied), GITHUB_* variables, the event payload,
 * fresh command files per step (GITHUB_OUTPUT, GITHUB_STATE, GITHUB_ENV, GITHUB_PATH, GITHUB_STEP_SUMMARY),
 * STATE_* for post parsed from main's state file, and variables exported with GITHUB_ENV carried to later steps.
 * Like the runner, a step is over when its process exited AND its stdout/stderr closed: a child that keeps the
 * step's pipes open makes the step hang (and here, time out).
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/**
 * The node that runs the action's steps: PERIMETER_RUNNER_NODE when set (the runner's Node 24 of action.yml's
 * `using: node24`, installed by `npm run test:node24`), else the node running the tests.
 */
export function runnerNode(): string {
  return process.env.PERIMETER_RUNNER_NODE || process.execPath;
}

export interface RunnerOptions {
  /** GITHUB_API_URL (the stand-in's url) */
  apiUrl: string;
  /** GITHUB_SERVER_URL; default https://github.com */
  serverUrl?: string;
  /** 'owner/name' */
  repository: string;
  /** the value `${{ github.token }}` expands to in input defaults */
  token: string;
  /** inputs by their action.yml names; unset ones get action.yml's defaults */
  inputs?: Record<string, string>;
  /** GITHUB_REF; default refs/heads/main */
  ref?: string;
  /** GITHUB_SHA */
  sha?: string;
  /** default 'workflow_dispatch' */
  eventName?: string;
  /** the event payload written to GITHUB_EVENT_PATH */
  event?: Record<string, unknown>;
  /** GITHUB_HEAD_REF (pull_request events) */
  headRef?: string;
  /** GITHUB_WORKSPACE (the step's cwd); default a fresh empty directory */
  workspace?: string;
  /** directory holding action.yml and dist/; default the repository root */
  actionDir?: string;
  /** more variables for every step */
  env?: Record<string, string>;
  /** guard against a hung step (not an assertion), far above any step on a busy machine; default 10 min */
  stepTimeoutMs?: number;
  /** the node binary that runs main and post; default runnerNode() */
  node?: string;
  /**
   * Whether the job gets a runtime token for the artifact service from the stand-in at apiUrl (as a runner
   * gets one for each job); default true. false: the action steps run without ACTIONS_RUNTIME_TOKEN.
   */
  actionsRuntime?: boolean;
  /**
   * The user every step runs as (a runner's `runner`), with its supplementary groups (setpriv --init-groups),
   * when the tests run as root; the runner's directories and command files are that user's. Default: the
   * tests' own user.
   */
  runAs?: { user: string; uid: number; gid: number; home: string };
}

/** What a runner gives each action step (not `run:` steps) to reach the results service. */
interface RuntimeAccess {
  ACTIONS_RUNTIME_TOKEN: string;
  ACTIONS_RESULTS_URL: string;
}

export interface Annotation {
  level: 'error' | 'warning' | 'notice';
  message: string;
  file?: string;
  line?: number;
  col?: number;
  title?: string;
}

export interface StepResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** the step timed out and was killed */
  timedOut: boolean;
  /** raw stdout, workflow commands included */
  stdout: string;
  stderr: string;
  /** stdout as the log would show it: commands applied, masked values replaced by *** */
  log: string;
  annotations: Annotation[];
  /** values registered with ::add-mask:: */
  masks: string[];
  outputs: Record<string, string>;
  state: Record<string, string>;
  /** variables exported with GITHUB_ENV */
  exported: Record<string, string>;
  /** the step summary markdown */
  summary: string;
}

export class ActionRunner {
  readonly root: string;
  readonly workspace: string;
  readonly runnerTemp: string;
  /** variables exported by earlier steps (GITHUB_ENV), as later steps see them */
  readonly jobEnv: Record<string, string> = {};
  /** values masked so far; the runner keeps masking them in every later step's log */
  readonly jobMasks: string[] = [];
  private readonly eventPath: string;
  private action: {
    main: string;
    /** null: the action has no post step (perimeter/verify) */
    post: string | null;
    inputs: Record<string, { default?: unknown }>;
  };
  private state: Record<string, string> = {};
  private steps = 0;
  private runtime: { access: RuntimeAccess; jobBackendId: string } | null = null;
  main: StepResult | null = null;
  post: StepResult | null = null;

  constructor(private readonly options: RunnerOptions) {
    this.root = mkdtempSync(join(tmpdir(), 'perimeter-runner-'));
    this.workspace = options.workspace ?? join(this.root, 'workspace');
    this.runnerTemp = join(this.root, 'runner-temp');
    mkdirSync(this.workspace, { recursive: true });
    mkdirSync(this.runnerTemp, { recursive: true });
    this.eventPath = join(this.root, 'event.json');
    writeFileSync(this.eventPath, JSON.stringify(options.event ?? {}));
    this.own(this.root, this.workspace, this.runnerTemp, this.eventPath);
    this.action = ActionRunner.actionAt(options.actionDir ?? REPO_ROOT);
  }

  private static actionAt(actionDir: string): ActionRunner['action'] {
    const doc = parseYaml(readFileSync(join(actionDir, 'action.yml'), 'utf8')) as {
      runs: { main: string; post?: string };
      inputs?: Record<string, { default?: unknown }>;
    };
    return {
      main: join(actionDir, doc.runs.main),
      post: doc.runs.post === undefined ? null : join(actionDir, doc.runs.post),
      inputs: doc.inputs ?? {},
    };
  }

  /**
   * Runs the action at `actionDir` from the next step on: a local action (`uses: ./path`), which the runner
   * runs from the workspace, where an earlier step of the job put it (its post step too).
   */
  useAction(actionDir: string): void {
    this.action = ActionRunner.actionAt(actionDir);
  }

  /** The user the steps run as, when not this process's. */
  get runAs(): RunnerOptions['runAs'] {
    return this.options.runAs;
  }

  /** Gives paths to the user the steps run as (runAs); nothing without one. */
  private own(...paths: string[]): void {
    const as = this.options.runAs;
    if (as) for (const path of paths) chownSync(path, as.uid, as.gid);
  }

  /** The variables every step of the job sees (what an agent step would get too). */
  baseEnv(): Record<string, string> {
    const o = this.options;
    return {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: o.runAs?.home ?? process.env.HOME ?? this.root,
      CI: 'true',
      GITHUB_ACTIONS: 'true',
      RUNNER_OS: 'Linux',
      RUNNER_TEMP: this.runnerTemp,
      GITHUB_WORKSPACE: this.workspace,
      GITHUB_API_URL: o.apiUrl,
      GITHUB_SERVER_URL: o.serverUrl ?? 'https://github.com',
      GITHUB_GRAPHQL_URL: `${o.apiUrl}/graphql`,
      GITHUB_REPOSITORY: o.repository,
      GITHUB_REPOSITORY_OWNER: o.repository.split('/')[0] ?? '',
      GITHUB_REF: o.ref ?? 'refs/heads/main',
      // the short name and its kind, as the runner sets them beside GITHUB_REF
      GITHUB_REF_NAME: (o.ref ?? 'refs/heads/main').replace(/^refs\/(heads|tags|pull)\//, ''),
      GITHUB_REF_TYPE: (o.ref ?? 'refs/heads/main').startsWith('refs/tags/') ? 'tag' : 'branch',
      GITHUB_SHA: o.sha ?? '0'.repeat(40),
      GITHUB_EVENT_NAME: o.eventName ?? 'workflow_dispatch',
      GITHUB_EVENT_PATH: this.eventPath,
      GITHUB_HEAD_REF: o.headRef ?? '',
      GITHUB_BASE_REF: '',
      GITHUB_RUN_ID: '4242',
      GITHUB_RUN_ATTEMPT: '1',
      GITHUB_JOB: 'implement',
      GITHUB_ACTOR: 'octocat',
      GITHUB_RETENTION_DAYS: '90',
      RUNNER_NAME: 'GitHub Actions 1',
      ...o.env,
      ...this.jobEnv,
    };
  }

  /**
   * The action step's inputs as the runner evaluates them when the step starts (they may name the outputs of
   * earlier steps); post gets the same.
   */
  setInputs(inputs: Record<string, string>): void {
    this.options.inputs = inputs;
  }

  /**
   * The event that started the run, when it is known only after the runner was made (it names an issue or a
   * pull request opened in the stand-in): GITHUB_EVENT_NAME, the payload at GITHUB_EVENT_PATH, GITHUB_REF and
   * GITHUB_SHA, for every later step.
   */
  setEvent(event: { name: string; payload: Record<string, unknown>; ref: string; sha: string }): void {
    this.options.eventName = event.name;
    this.options.event = event.payload;
    this.options.ref = event.ref;
    this.options.sha = event.sha;
    writeFileSync(this.eventPath, JSON.stringify(event.payload));
  }

  private inputEnv(): Record<string, string> {
    const env: Record<string, string> = {};
    const given = this.options.inputs ?? {};
    for (const name of new Set([...Object.keys(this.action.inputs), ...Object.keys(given)])) {
      const fallback = this.action.inputs[name]?.default;
      const raw = given[name] ?? (fallback === undefined ? '' : String(fallback));
      env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] = raw.replace(
        /\$\{\{\s*github\.token\s*\}\}/g,
        this.options.token,
      );
    }
    return env;
  }

  async runMain(): Promise<StepResult> {
    this.main = await this.step(this.action.main, {});
    this.state = this.main.state;
    return this.main;
  }

  /** Runs post with STATE_* from main's state file (post-if: always(), so also after a failed main). */
  async runPost(): Promise<StepResult> {
    const stateEnv: Record<string, string> = {};
    for (const [key, value] of Object.entries(this.state)) stateEnv[`STATE_${key}`] = value;
    if (this.action.post === null) throw new Error('this action has no post step');
    this.post = await this.step(this.action.post, stateEnv);
    return this.post;
  }

  /**
   * What a step writes to GITHUB_ENV, carried to the later steps as the runner does: it cannot overwrite
   * the default GITHUB_* and RUNNER_* variables, nor set NODE_OPTIONS.
   * https://docs.github.com/actions/reference/variables-reference#default-environment-variables
   */
  exportFromStep(variables: Record<string, string>): void {
    for (const [name, value] of Object.entries(variables)) {
      if (/^(GITHUB_|RUNNER_)/.test(name) || name === 'NODE_OPTIONS') continue;
      this.jobEnv[name] = value;
    }
  }

  /**
   * The job's runtime token, asked of the stand-in once per job (POST /_fake/actions/jobs): the run is
   * GITHUB_RUN_ID, the job GITHUB_JOB, as the steps see them.
   */
  private async runtimeAccess(): Promise<Partial<RuntimeAccess>> {
    if (this.options.actionsRuntime === false) return {};
    if (this.runtime) return this.runtime.access;
    const env = this.baseEnv();
    // no stand-in there (a test of an unreachable API): no artifact service either
    const response = await fetch(`${this.options.apiUrl}/_fake/actions/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        repository: this.options.repository,
        run_id: Number(env.GITHUB_RUN_ID),
        run_attempt: Number(env.GITHUB_RUN_ATTEMPT),
        job: env.GITHUB_JOB,
      }),
    }).catch(() => null);
    if (response === null) return {};
    if (!response.ok)
      throw new Error(`the stand-in gave no runtime token: ${response.status} ${await response.text()}`);
    const job = (await response.json()) as { token: string; resultsUrl: string; jobBackendId: string };
    this.runtime = {
      access: { ACTIONS_RUNTIME_TOKEN: job.token, ACTIONS_RESULTS_URL: job.resultsUrl },
      jobBackendId: job.jobBackendId,
    };
    return this.runtime.access;
  }

  /**
   * What the action steps of this job get for the artifact service (ACTIONS_RUNTIME_TOKEN and
   * ACTIONS_RESULTS_URL): what an agent with root reads from an action step's process environment.
   */
  runtimeEnvironment(): Promise<Partial<RuntimeAccess>> {
    return this.runtimeAccess();
  }

  /** The job is over: its runtime token stops working, as on GitHub. */
  async endJob(): Promise<void> {
    if (!this.runtime) return;
    await fetch(`${this.options.apiUrl}/_fake/actions/jobs/${this.runtime.jobBackendId}`, {
      method: 'DELETE',
    });
  }

  /** Removes the runner's directories (workspace included when the runner made it). */
  dispose(): void {
    rmSync(this.root, { recursive: true, force: true });
  }

  /**
   * A `run:` step: the script in a file, run as the runner runs `shell: bash` steps (`bash --noprofile --norc
   * -eo pipefail {0}`; a step without `shell:` is `bash -e {0}`, pass `['bash', '-e']`) with the job's
   * variables, the step's `env` and fresh command files.
   */
  async runShell(
    script: string,
    env: Record<string, string> = {},
    timeoutMs = this.options.stepTimeoutMs ?? 600_000,
    shell: string[] = ['bash', '--noprofile', '--norc', '-eo', 'pipefail'],
  ): Promise<StepResult> {
    const file = join(this.root, `run-${this.steps + 1}.sh`);
    writeFileSync(file, script);
    const [command = 'bash', ...args] = shell;
    return this.step(file, env, { command, args: [...args, file] }, timeoutMs);
  }

  private async step(
    script: string,
    extra: Record<string, string>,
    shell?: { command: string; args: string[] },
    timeoutMs = this.options.stepTimeoutMs ?? 600_000,
  ): Promise<StepResult> {
    const dir = join(this.root, `step-${++this.steps}`);
    mkdirSync(dir);
    const files = {
      GITHUB_OUTPUT: join(dir, 'output'),
      GITHUB_STATE: join(dir, 'state'),
      GITHUB_ENV: join(dir, 'env'),
      GITHUB_PATH: join(dir, 'path'),
      GITHUB_STEP_SUMMARY: join(dir, 'summary'),
    };
    for (const file of Object.values(files)) writeFileSync(file, '');
    this.own(dir, ...Object.values(files), ...(shell ? [script] : []));
    // a run: step gets no INPUT_* and no runtime token (those belong to the action's own steps)
    const action = shell ? {} : { ...this.inputEnv(), ...(await this.runtimeAccess()) };
    const env = { ...this.baseEnv(), ...action, ...files, ...extra };
    const command = shell?.command ?? this.options.node ?? runnerNode();
    const args = shell?.args ?? [script];
    const as = this.options.runAs;
    const result = await runProcess(
      as ? 'setpriv' : command,
      as ? [`--reuid=${as.uid}`, `--regid=${as.gid}`, '--init-groups', '--', command, ...args] : args,
      env,
      this.workspace,
      timeoutMs,
    );
    const exported = parseCommandFile(readFileSync(files.GITHUB_ENV, 'utf8'));
    this.exportFromStep(exported);
    const commands = parseStdout(result.stdout, this.jobMasks);
    this.jobMasks.push(...commands.masks);
    return {
      ...result,
      ...commands,
      outputs: parseCommandFile(readFileSync(files.GITHUB_OUTPUT, 'utf8')),
      state: parseCommandFile(readFileSync(files.GITHUB_STATE, 'utf8')),
      exported,
      summary: existsSync(files.GITHUB_STEP_SUMMARY) ? readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8') : '',
    };
  }
}

function runProcess(
  command: string,
  args: string[],
  env: Record<string, string>,
  cwd: string,
  timeoutMs: number,
): Promise<{
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
}> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
      child.stdout.destroy();
      child.stderr.destroy();
    }, timeoutMs);
    child.on('error', reject);
    // 'close' waits for the pipes too, as the runner does
    child.on('close', (exitCode, signal) => {
      clearTimeout(timer);
      resolvePromise({ exitCode, signal, timedOut, stdout, stderr });
    });
  });
}

/** `name=value` lines and `name<<DELIMITER` … `DELIMITER` blocks, as the runner reads them. */
export function parseCommandFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (line === '') continue;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const [, name, delimiter] = heredoc as unknown as [string, string, string];
      const value: string[] = [];
      for (i++; i < lines.length && lines[i] !== delimiter; i++) value.push(lines[i] ?? '');
      if (i >= lines.length) throw new Error(`command file: no closing delimiter for ${name}`);
      out[name] = value.join('\n');
      continue;
    }
    const eq = line.indexOf('=');
    if (eq <= 0) throw new Error(`command file: malformed line ${JSON.stringify(line)}`);
    out[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return out;
}

const unescapeData = (s: string) => s.replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%25/g, '%');
const unescapeProperty = (s: string) => unescapeData(s.replace(/%3A/g, ':').replace(/%2C/g, ','));

/** Workflow commands in stdout: annotations and masks; and the log as the runner would show it. */
export function parseStdout(
  stdout: string,
  earlierMasks: string[] = [],
): { annotations: Annotation[]; masks: string[]; log: string } {
  const annotations: Annotation[] = [];
  const masks: string[] = [];
  const shown: string[] = [];
  for (const line of stdout.split('\n')) {
    const command = /^::([a-z-]+)(?: ([^:]*))?::(.*)$/.exec(line);
    if (!command) {
      shown.push(line);
      continue;
    }
    const [, name, props = '', data = ''] = command as unknown as [
      string,
      string,
      string | undefined,
      string | undefined,
    ];
    const message = unescapeData(data);
    if (name === 'add-mask') {
      masks.push(message);
      continue;
    }
    if (name === 'error' || name === 'warning' || name === 'notice') {
      const p: Record<string, string> = {};
      for (const pair of props.split(',').filter(Boolean)) {
        const eq = pair.indexOf('=');
        p[pair.slice(0, eq)] = unescapeProperty(pair.slice(eq + 1));
      }
      annotations.push({
        level: name,
        message,
        ...(p.file !== undefined && { file: p.file }),
        ...(p.line !== undefined && { line: Number(p.line) }),
        ...(p.col !== undefined && { col: Number(p.col) }),
        ...(p.title !== undefined && { title: p.title }),
      });
    }
    shown.push(`${name}: ${message}`);
  }
  let log = shown.join('\n');
  const all = [...earlierMasks, ...masks].filter(Boolean).sort((a, b) => b.length - a.length);
  for (const mask of all) log = log.split(mask).join('***');
  return { annotations, masks, log };
}

/** A unique heredoc delimiter, for tests that write command files themselves. */
export const delimiter = () => `ghadelimiter_${randomUUID()}`;
