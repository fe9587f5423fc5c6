/**
 * A GitHub runner, emulated closely enough to run README's workflows whole: jobs in `needs` order, each on a
 * fresh runner, each step in order, `${{ }}` evaluated from the contexts the runner has (an expression it does
 * not know is an error here, where the runner would give an empty string only for a missing property), `run:`
 * in bash as the runner starts it, this action's `uses:` from its bundles (main now, post after the last step),
 * and the well-known actions the workflows use emulated by what they hand the next steps.
 *
 * The job's token is the stand-in's; the job's `permissions` decide what it may do there. Before each step
 * that is not this action's (the agent's steps), `reach` records whether the job's token is in that step's
 * environment, in a file it can read (the workspace, RUNNER_TEMP, HOME and the runner's step files) or in the
 * memory of the job's gateway, read as the step's user (directly, or through sudo where it has it).
 */
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { parse as parseYaml } from 'yaml';
import {
  ActionRunner,
  createRunnerUser,
  downloadAction,
  freshRunner,
  git,
  Job,
  memoryRoute,
  processUid,
  REPOSITORY,
  RUN_ID,
  runnerUserMissing,
  type RunnerOptions,
  type StepResult,
} from '@perimeter/test-rigs';
import { isGatewayRunning } from '../../src/action/agent-job/gateway-process.js';
import { checkoutSettings, persistCredential } from './checkout.js';
import { binDir, installDir } from './clients.js';
import { asText, evaluateValue, property, truthy, type Scope, type Value } from './expressions.js';
import { installLine } from './readme-jobs.js';

const run = promisify(execFile);

export interface WorkflowStep {
  id?: string;
  name?: string;
  if?: string;
  uses?: string;
  with?: Record<string, unknown>;
  env?: Record<string, unknown>;
  run?: string;
  shell?: string;
  'working-directory'?: string;
}

export interface WorkflowJob {
  'runs-on'?: string;
  needs?: string | string[];
  if?: string;
  permissions?: Record<string, string> | string;
  outputs?: Record<string, string>;
  env?: Record<string, unknown>;
  steps?: WorkflowStep[];
}

export interface Workflow {
  on?: unknown;
  permissions?: Record<string, string> | string;
  env?: Record<string, unknown>;
  jobs?: Record<string, WorkflowJob>;
}

export interface WorkflowOptions {
  /** the committed (or fresh) bundles: action.yml, dist/, verify/, apply/ */
  actionDir: string;
  /**
   * the action `actionDir` is, as the workflow names it (`octo-fork/perimeter@<sha>`): only that `uses:` (and
   * its `/verify` and `/apply`) runs the bundles, and any other Perimeter-like `uses:` fails as GitHub fails an
   * action it cannot resolve. Default: the docs' `OWNER/perimeter@v1` and any owner's `perimeter` at any ref.
   */
  action?: string;
  /** the repository's default branch */
  files: Record<string, string>;
  /** workflow_dispatch inputs */
  inputs: Record<string, string>;
  secrets: Record<string, string>;
  /** what the test adds to an agent step (the model's route); never a token */
  agentEnv?: (job: string, step: WorkflowStep) => Record<string, string>;
  /** guard against a hung client step (not an assertion) */
  stepTimeoutMs?: number;
  /** GITHUB_TOKEN's permissions where the workflow sets none; default restricted (GitHub's for new repositories) */
  defaultPermissions?: DefaultPermissions;
  /** a change to what the perimeter step wrote, before the next step runs */
  afterMain?: (standIn: Job) => void;
  /**
   * the bound branch the perimeter step names, when not the stand-in's default (`agent/work`); made by the
   * workflow's own steps (not there before the run) when `madeByWorkflow`
   */
  branch?: { name: string; madeByWorkflow: boolean };
  /** the repository is in the stand-in, no step has run (start what the agent steps talk to) */
  beforeJob?: (standIn: Job) => Promise<void>;
  /**
   * the event that starts the run, made after `beforeJob` (so it may name a pull request made there); default
   * workflow_dispatch with `inputs`, on the bound branch
   */
  event?: (standIn: Job) => Promise<WorkflowEvent>;
}

export interface WorkflowEvent {
  /** GITHUB_EVENT_NAME */
  name: string;
  /** the payload at GITHUB_EVENT_PATH; its `action` is the activity type `types:` filters */
  payload: Record<string, unknown>;
  /** GITHUB_REF (pull_request_target: the base branch) */
  ref: string;
}

/**
 * Whether `on:` runs the workflow on this event: a name, a list of names, or a map whose entry may narrow it
 * by `types` (without `types`, an event's default activity types; only pull_request's and
 * pull_request_target's, opened, synchronize and reopened, are modelled).
 * https://docs.github.com/actions/reference/workflows-and-actions/events-that-trigger-workflows
 */
export function triggers(on: unknown, event: WorkflowEvent): boolean {
  if (typeof on === 'string') return on === event.name;
  if (Array.isArray(on)) return on.includes(event.name);
  if (!on || typeof on !== 'object' || !(event.name in on)) return false;
  if (event.name === 'push') return pushFilters((on as Record<string, PushFilters | null>).push, event.ref);
  const types = ((on as Record<string, { types?: string[] } | null>)[event.name] ?? {}).types;
  const action = event.payload.action;
  if (typeof action !== 'string') return true;
  if (types) return types.includes(action);
  return !/^pull_request/.test(event.name) || ['opened', 'synchronize', 'reopened'].includes(action);
}

interface PushFilters {
  branches?: string[];
  tags?: string[];
  'branches-ignore'?: string[];
  'tags-ignore'?: string[];
}

/**
 * `on: push` with `branches`/`tags` filters: a push of a tag runs the workflow only when `tags` matches it, and
 * not when only `branches` is given (and the other way round); without either, every push. Filter patterns:
 * `*` is any characters but `/`, `**` any characters, `?` one character; the other special characters
 * (`+`, `[]`, `!`) are not emulated and refused.
 * https://docs.github.com/actions/reference/workflows-and-actions/workflow-syntax#onpushbranchestagsbranches-ignoretags-ignore
 */
function pushFilters(filters: PushFilters | null | undefined, ref: string): boolean {
  const f = filters ?? {};
  for (const key of ['branches-ignore', 'tags-ignore'] as const)
    if (f[key]) throw new Error(`on.push.${key}: not emulated`);
  const tag = /^refs\/tags\/(.+)$/.exec(ref)?.[1];
  const branch = /^refs\/heads\/(.+)$/.exec(ref)?.[1];
  if (!f.branches && !f.tags) return true;
  const list = tag !== undefined ? f.tags : f.branches;
  const name = tag ?? branch;
  if (!list || name === undefined) return false;
  return list.some((pattern) => filterPattern(pattern).test(name));
}

function filterPattern(pattern: string): RegExp {
  if (/[+[\]!]/.test(pattern)) throw new Error(`filter pattern ${pattern}: not emulated`);
  const body = pattern
    .split(/(\*\*|\*|\?)/)
    .map((part) =>
      part === '**'
        ? '.*'
        : part === '*'
          ? '[^/]*'
          : part === '?'
            ? '[^/]'
            : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    )
    .join('');
  return new RegExp(`^${body}$`);
}

/** Whether the job's token was in an agent step's reach, and where. */
export interface Reach {
  job: string;
  step: string;
  /** the job's token may push (its `contents` permission is write) */
  writeToken: boolean;
  /** where the token was found: `env NAME`, a file path or `memory of the gateway (…)`; empty when nowhere */
  found: string[];
}

export interface StepRun {
  job: string;
  name: string;
  outcome: 'success' | 'failure' | 'skipped';
  log: string;
  /** a step of the agent's: a `run:` step other than an install */
  agent: boolean;
  /** what the step wrote to its job summary (post's receipt summary) */
  summary?: string;
}

export interface WorkflowRun {
  /** the first job's stand-in: its repository, the token, the statuses */
  standIn: Job;
  /** a token of another identity that may read the repository after the job tokens expired */
  observer: string;
  steps: StepRun[];
  results: Record<string, 'success' | 'failure' | 'skipped'>;
  outputs: Record<string, Record<string, string>>;
  /** the runner's warnings (a job output dropped because it held a secret) */
  warnings: string[];
  reach: Reach[];
}

const STEP_KEYS = new Set([
  'id',
  'name',
  'if',
  'uses',
  'with',
  'env',
  'run',
  'shell',
  'working-directory',
  'continue-on-error',
  'timeout-minutes',
]);
const JOB_KEYS = new Set([
  'name',
  'runs-on',
  'needs',
  'if',
  'permissions',
  'outputs',
  'env',
  'steps',
  'defaults',
  'timeout-minutes',
  'concurrency',
  'environment',
  'strategy',
  'continue-on-error',
]);

/** The keys an event's entry in `on:` may have, for the events README's workflows use. */
const EVENT_KEYS: Record<string, string[]> = {
  workflow_dispatch: ['inputs'],
  pull_request: ['types', 'branches', 'branches-ignore', 'paths', 'paths-ignore'],
  pull_request_target: ['types', 'branches', 'branches-ignore', 'paths', 'paths-ignore'],
  issue_comment: ['types'],
  push: ['branches', 'branches-ignore', 'tags', 'tags-ignore', 'paths', 'paths-ignore'],
};

/**
 * Parses a workflow as GitHub would accept it, or throws as GitHub refuses it: `on:` and `jobs:`, each job
 * with `runs-on` and `steps`, each step with exactly one of `uses` and `run`, no unknown keys.
 * https://docs.github.com/actions/reference/workflows-and-actions/workflow-syntax
 */
export function parseWorkflow(text: string): Workflow {
  const doc = parseYaml(text) as Workflow | null;
  if (!doc || typeof doc !== 'object' || doc.on === undefined || doc.on === null || !doc.jobs) {
    throw new Error('not a complete workflow: it needs `on:` and `jobs:`');
  }
  if (typeof doc.on === 'object' && !Array.isArray(doc.on))
    for (const [event, filters] of Object.entries(doc.on as Record<string, unknown>)) {
      const allowed = EVENT_KEYS[event];
      if (!allowed || filters === null) continue;
      if (typeof filters !== 'object') throw new Error(`on.${event}: expected a mapping`);
      for (const key of Object.keys(filters))
        if (!allowed.includes(key)) throw new Error(`on.${event}: unexpected key ${key}`);
    }
  for (const [name, job] of Object.entries(doc.jobs)) {
    if (!job || typeof job !== 'object') throw new Error(`job ${name} is empty`);
    for (const key of Object.keys(job))
      if (!JOB_KEYS.has(key)) throw new Error(`job ${name}: unexpected key ${key}`);
    if (typeof job['runs-on'] !== 'string') throw new Error(`job ${name}: runs-on is required`);
    if (!Array.isArray(job.steps) || job.steps.length === 0)
      throw new Error(`job ${name}: steps are required`);
    for (const step of job.steps) {
      if (!step || typeof step !== 'object') throw new Error(`job ${name}: a step is empty`);
      for (const key of Object.keys(step))
        if (!STEP_KEYS.has(key)) throw new Error(`job ${name}: unexpected step key ${key}`);
      if ((step.uses === undefined) === (step.run === undefined))
        throw new Error(`job ${name}: a step needs one of uses and run`);
    }
  }
  return doc;
}

const PERIMETER = /^[A-Za-z0-9_-]+\/perimeter(\/(verify|apply))?@/;

/**
 * This action as a step uses it: published (`OWNER/perimeter@v1`, `OWNER/perimeter/verify@v1`) or local, a
 * path in the workspace (`./`, `./.perimeter-action`, `./verify`), which the runner runs from the files an
 * earlier step of the job put there ("the action must be checked out before the step that uses it"); `sub`
 * is the sub-action (verify, apply) or undefined for main and post. Null: another action.
 * https://docs.github.com/actions/reference/workflows-and-actions/workflow-syntax#example-using-an-action-in-the-same-repository-as-the-workflow
 */
export function perimeterAction(
  uses: string | undefined,
  action?: string,
): { sub: 'verify' | 'apply' | undefined; local: string | null } | null {
  if (uses === undefined) return null;
  if (uses !== '.' && !uses.startsWith('./')) {
    const entry = perimeterEntry(uses, action);
    return entry === null ? null : { sub: entry === 'main' ? undefined : entry, local: null };
  }
  if (uses.includes('@')) throw new Error(`uses: ${uses}: a local action takes no @ref`);
  const sub = /(?:^|\/)(verify|apply)\/?$/.exec(uses)?.[1] as 'verify' | 'apply' | undefined;
  return { sub, local: uses };
}

/**
 * The directory a local action runs from: `uses` in the workspace, which must hold this action as the test
 * built it (the stand-in's repository is given those files); anything else is an action this emulation does
 * not know.
 */
function localActionDir(
  workspace: string,
  local: string,
  actionDir: string,
  sub: 'verify' | 'apply' | undefined,
): string {
  const dir = join(workspace, local);
  const yml = join(dir, 'action.yml');
  let text: string;
  try {
    text = readFileSync(yml, 'utf8');
  } catch {
    throw new Error(
      `uses: ${local}: no action.yml in the workspace at ${local} (check the action out in an earlier step)`,
    );
  }
  if (text !== readFileSync(join(actionDir, sub ?? '', 'action.yml'), 'utf8'))
    throw new Error(`uses: ${local}: an action.yml this emulation does not know`);
  return dir;
}

/**
 * Which of the action's entries a `uses:` runs: `main`, `verify` or `apply`; null when it is not this action.
 * With `action` (`owner/repo@ref`) only that repository at that ref is this action: a `uses:` naming it at
 * another ref, or another Perimeter, throws, as the runner fails a step whose action it cannot download.
 */
export function perimeterEntry(
  uses: string | undefined,
  action?: string,
): 'main' | 'verify' | 'apply' | null {
  if (uses === undefined) return null;
  if (action === undefined) {
    const match = PERIMETER.exec(uses);
    return match === null ? null : ((match[2] as 'verify' | 'apply' | undefined) ?? 'main');
  }
  const at = action.lastIndexOf('@');
  const [repository, ref] = [action.slice(0, at), action.slice(at + 1)];
  for (const entry of ['main', 'verify', 'apply'] as const) {
    if (uses === `${repository}${entry === 'main' ? '' : `/${entry}`}@${ref}`) return entry;
  }
  if (uses.startsWith(`${repository}@`) || uses.startsWith(`${repository}/`) || PERIMETER.test(uses))
    throw new Error(`Unable to resolve action ${uses}: this run serves ${action} only`);
  return null;
}

type Level = 'none' | 'read' | 'write';
/** GITHUB_TOKEN's default where a workflow sets no `permissions`, a setting of the repository */
export type DefaultPermissions = 'restricted' | 'permissive';
export interface TokenPermissions {
  contents: 'read' | 'write';
  statuses: Level;
  checks: Level;
  'pull-requests': Level;
  issues: Level;
  actions: Level;
}

/**
 * The token's permissions for the stand-in. A job's `permissions` replaces the workflow's, and either names what
 * the token gets and nothing else ("If you specify the access for any of these permissions, all of those that
 * are not specified are set to none"); with neither, the repository's default: restricted (contents: read) or
 * permissive (write to every scope), as the repository's Actions settings choose. `read-all` and `write-all`
 * give every permission that level. The stand-in has no `contents: none`: every token may read the repository.
 * https://docs.github.com/actions/writing-workflows/choosing-what-your-workflow-does/controlling-permissions-for-github_token
 */
function permissionsOf(
  job: WorkflowJob,
  workflow: Workflow,
  defaults: DefaultPermissions = 'restricted',
): TokenPermissions {
  const given = job.permissions ?? workflow.permissions;
  const all = (level: Level) => ({
    contents: level,
    statuses: level,
    checks: level,
    'pull-requests': level,
    issues: level,
    actions: level,
  });
  const p: Record<string, string> =
    given === 'write-all'
      ? all('write')
      : given === 'read-all'
        ? all('read')
        : typeof given === 'object' && given !== null
          ? given
          : defaults === 'permissive'
            ? all('write')
            : { contents: 'read' };
  const level = (v: string | undefined): Level => (v === 'write' ? 'write' : v === 'read' ? 'read' : 'none');
  return {
    contents: p.contents === 'write' ? 'write' : 'read',
    statuses: level(p.statuses),
    checks: level(p.checks),
    'pull-requests': level(p['pull-requests']),
    issues: level(p.issues),
    actions: level(p.actions),
  };
}

/** Jobs in an order where each comes after the jobs it needs. */
function ordered(jobs: Record<string, WorkflowJob>): string[] {
  const done: string[] = [];
  const visit = (name: string, path: string[]) => {
    if (done.includes(name)) return;
    if (path.includes(name)) throw new Error(`needs cycle: ${[...path, name].join(' -> ')}`);
    const job = jobs[name];
    if (!job) throw new Error(`needs names an unknown job ${name}`);
    for (const need of [job.needs ?? []].flat()) visit(need, [...path, name]);
    done.push(name);
  };
  for (const name of Object.keys(jobs)) visit(name, []);
  return done;
}

export interface Contexts {
  inputs: Record<string, string>;
  declaredInputs: Set<string>;
  secrets: Record<string, string>;
  /** the github context: strings, and the event payload as `event` */
  github: Record<string, Value>;
  runner: Record<string, string>;
  env: Record<string, string>;
  steps: Record<string, { outputs: Record<string, string>; outcome: string }>;
  needs: Record<string, { outputs: Record<string, string>; result: string }>;
  status: 'success' | 'failure';
}

/**
 * One `${{ }}` expression as text (test/agents/expressions.ts evaluates it). A property of a context that
 * exists but lacks it is `''` as on the runner (a step without that output, an unset secret, a field the event
 * payload does not have); an unknown context, an undeclared input or a `github` property this emulation does
 * not set is an error.
 */
export function evaluate(expr: string, x: Contexts): string {
  return asText(evaluateValue(expr, scopeOf(x)));
}

function scopeOf(x: Contexts): Scope {
  return {
    status: x.status,
    lookup: (path) => {
      const [context, name, ...rest] = path;
      const e = path.join('.');
      if (name === undefined) throw new Error(`\${{ ${e} }}: not an expression this runner emulation knows`);
      const deeper = (value: Value): Value => rest.reduce(property, value);
      if (context === 'steps') {
        const step = x.steps[name];
        if (rest[0] === 'outputs' && rest.length === 2) return step?.outputs[rest[1]!] ?? '';
        if ((rest[0] === 'outcome' || rest[0] === 'conclusion') && rest.length === 1)
          return step?.outcome ?? '';
        throw new Error(`\${{ ${e} }}: not emulated`);
      }
      if (context === 'needs') {
        const need = x.needs[name];
        if (!need) throw new Error(`\${{ ${e} }}: the job does not need ${name}`);
        if (rest[0] === 'outputs' && rest.length === 2) return need.outputs[rest[1]!] ?? '';
        if (rest[0] === 'result' && rest.length === 1) return need.result;
        throw new Error(`\${{ ${e} }}: not emulated`);
      }
      if (context === 'inputs') {
        if (!x.declaredInputs.has(name))
          throw new Error(`\${{ ${e} }}: the workflow declares no input ${name}`);
        return deeper(x.inputs[name] ?? '');
      }
      if (context === 'secrets') return deeper(x.secrets[name] ?? '');
      if (context === 'env') return deeper(x.env[name] ?? '');
      if (context === 'github' || context === 'runner') {
        const value = (x[context] as Record<string, Value | undefined>)[name];
        if (value === undefined) throw new Error(`\${{ ${e} }}: not emulated`);
        return deeper(value);
      }
      throw new Error(`\${{ ${e} }}: not an expression this runner emulation knows`);
    },
  };
}

export function interpolate(text: string, x: Contexts): string {
  return text.replace(/\$\{\{([\s\S]+?)\}\}/g, (_, expr: string) => evaluate(expr, x));
}

/** A step's `if:`, which may be written with or without `${{ }}`. */
function condition(text: string | undefined, x: Contexts): boolean {
  if (text === undefined) return x.status === 'success';
  const inner = /^\s*\$\{\{([\s\S]+)\}\}\s*$/.exec(text)?.[1] ?? text;
  return truthy(evaluateValue(inner, scopeOf(x)));
}

/** Runs the workflow's jobs in order on the stand-in; what each step did and whom the token reached. */
export async function runWorkflow(workflow: Workflow, options: WorkflowOptions): Promise<WorkflowRun> {
  const jobs = workflow.jobs ?? {};
  const order = ordered(jobs);
  const first = jobs[order[0]!]!;
  const perms = permissionsOf(first, workflow, options.defaultPermissions);
  const mainStep = (first.steps ?? []).find((s) => {
    const action = perimeterAction(s.uses, options.action);
    return action !== null && action.sub === undefined;
  });
  const declaredInputs = new Set(
    Object.keys(
      (workflow.on as { workflow_dispatch?: { inputs?: object } } | undefined)?.workflow_dispatch?.inputs ??
        {},
    ),
  );
  const secretsOf = (token: string) => ({ ...options.secrets, GITHUB_TOKEN: token });
  // the perimeter step's inputs: evaluated before the job starts (they name no earlier step); one that names
  // the event (a branch from the issue's number) is evaluated again when the step starts
  const mainInputs =
    mainStep &&
    Object.fromEntries(
      Object.entries(mainStep.with ?? {}).flatMap(([k, v]) => {
        try {
          return [
            [
              k,
              interpolate(String(v), {
                ...emptyContexts(),
                inputs: options.inputs,
                declaredInputs,
                secrets: options.secrets,
                github: {
                  token: '${{ github.token }}',
                  run_attempt: '1',
                  run_id: '4242',
                  repository: 'octo/widgets',
                },
              }),
            ],
          ];
        } catch {
          return [];
        }
      }),
    );
  // isolation: user takes sudo from the user the steps run as, and refuses root: the first job's steps run
  // as a runner-like user with password-less sudo, from the action as the runner downloads it
  const runAs = mainInputs?.isolation === 'user' ? isolatedRunner() : null;
  const standIn = await Job.create({
    files: options.files,
    actionDir: runAs ? downloadAction(runAs, options.actionDir) : options.actionDir,
    contents: perms.contents,
    statuses: perms.statuses,
    checks: perms.checks,
    pullRequests: perms['pull-requests'],
    issues: perms.issues,
    actions: perms.actions,
    ...(options.branch && { branch: options.branch.name, createBranch: !options.branch.madeByWorkflow }),
    ...(mainInputs && { inputs: mainInputs }),
    ...(runAs && { runner: { runAs } }),
  });
  if (runAs) chmodSync(standIn.dir, 0o711);
  const observer = `ghp_${randomBytes(18).toString('hex')}`;
  standIn.gh.addToken(observer, 'octocat');
  await options.beforeJob?.(standIn);
  const event = options.event
    ? await options.event(standIn)
    : { name: 'workflow_dispatch', payload: { inputs: options.inputs }, ref: `refs/heads/${standIn.branch}` };
  if (!triggers(workflow.on, event)) {
    await standIn.close();
    throw new Error(`the workflow does not run on ${event.name}`);
  }
  // GITHUB_SHA: the last commit on the event's ref (issue_comment, pull_request_target: the default branch's)
  // https://docs.github.com/actions/reference/workflows-and-actions/events-that-trigger-workflows
  // (a tag's: the commit it points to, an annotated tag peeled)
  const sha = (await git(standIn.bare, ['rev-parse', `${event.ref}^{commit}`])).trim();
  if (options.event)
    standIn.runner.setEvent({ name: event.name, payload: event.payload, ref: event.ref, sha });
  const out: WorkflowRun = {
    standIn,
    observer,
    steps: [],
    results: {},
    outputs: {},
    warnings: [],
    reach: [],
  };
  try {
    // each job starts when the jobs it needs are done; jobs that need nothing start together, as on GitHub
    const runOne = async (name: string, index: number): Promise<void> => {
      const job = jobs[name]!;
      const needs = Object.fromEntries(
        [job.needs ?? []]
          .flat()
          .map((n) => [n, { outputs: out.outputs[n] ?? {}, result: out.results[n] ?? 'skipped' }]),
      );
      const needsOk = Object.values(needs).every((n) => n.result === 'success');
      const jobIf =
        job.if === undefined
          ? needsOk
          : condition(job.if, {
              ...emptyContexts(),
              github: githubContext(event, sha, name),
              needs,
              status: needsOk ? 'success' : 'failure',
            });
      if (!jobIf) {
        out.results[name] = 'skipped';
        return;
      }
      const token = index === 0 ? standIn.token : `ghs_${randomBytes(18).toString('hex')}`;
      if (index > 0)
        standIn.gh.addToken(
          token,
          'github-actions[bot]',
          permissionsOf(job, workflow, options.defaultPermissions),
        );
      const result = await runJob(name, job, {
        workflow,
        options,
        standIn,
        token,
        needs,
        declaredInputs,
        secrets: secretsOf(token),
        first: index === 0,
        out,
        event,
        sha,
      });
      out.results[name] = result;
      if (index === 0) {
        if (standIn.record?.status !== 'completed')
          await standIn.end(result === 'success' ? 'success' : 'failure');
        // the job's token expires with it, as GITHUB_TOKEN does
        standIn.gh.revokeToken(standIn.token);
      }
    };
    const started = new Map<string, Promise<void>>();
    const start = (name: string): Promise<void> => {
      let running = started.get(name);
      if (!running) {
        const needs = [jobs[name]!.needs ?? []].flat();
        running = Promise.all(needs.map(start)).then(() => runOne(name, order.indexOf(name)));
        started.set(name, running);
      }
      return running;
    };
    await Promise.all(order.map(start));
  } catch (error) {
    // a run that could not go on (an expression the runner would refuse): leave nothing running
    await standIn.close();
    throw error;
  }
  return out;
}

let runnerUser: NonNullable<RunnerOptions['runAs']> | null = null;

/** The runner-like user, made once, with its sudo and Docker socket as a new GitHub-hosted job finds them. */
function isolatedRunner(): NonNullable<RunnerOptions['runAs']> {
  const missing = runnerUserMissing();
  if (missing !== null) throw new Error(`isolation: user needs a runner-like user here: ${missing}`);
  runnerUser ??= createRunnerUser();
  freshRunner();
  return runnerUser;
}

/** Whether a run made the runner-like user (the suite removes it with removeRunnerUser). */
export const madeRunnerUser = (): boolean => runnerUser !== null;

function emptyContexts(): Contexts {
  return {
    inputs: {},
    declaredInputs: new Set(),
    secrets: {},
    github: {},
    runner: {},
    env: {},
    steps: {},
    needs: {},
    status: 'success',
  };
}

function withInputs(step: WorkflowStep, x: Contexts): Record<string, string> {
  return Object.fromEntries(Object.entries(step.with ?? {}).map(([k, v]) => [k, interpolate(String(v), x)]));
}

interface JobSetting {
  workflow: Workflow;
  options: WorkflowOptions;
  standIn: Job;
  token: string;
  needs: Contexts['needs'];
  declaredInputs: Set<string>;
  secrets: Record<string, string>;
  first: boolean;
  out: WorkflowRun;
  event: WorkflowEvent;
  /** GITHUB_SHA */
  sha: string;
}

/** The github context a job's expressions see (what this emulation sets; `event` is the payload). */
function githubContext(event: WorkflowEvent, sha: string, job: string): Contexts['github'] {
  return {
    run_attempt: '1',
    run_id: '4242',
    repository: 'octo/widgets',
    job,
    event_name: event.name,
    event: event.payload as Value,
    ref: event.ref,
    sha,
  };
}

async function runJob(name: string, job: WorkflowJob, s: JobSetting): Promise<'success' | 'failure'> {
  const perms = permissionsOf(job, s.workflow, s.options.defaultPermissions);
  // a later job runs on a fresh runner (another machine): its own workspace, RUNNER_TEMP and step files
  let runner: ActionRunner = s.first ? s.standIn.runner : laterRunner(name, s, {});
  const made: ActionRunner[] = s.first ? [] : [runner];
  const home = mkdtempSync(join(tmpdir(), `runner-home-${name}-`));
  const runAs = s.first ? s.standIn.runner.runAs : undefined;
  if (runAs) chownSync(home, runAs.uid, runAs.gid);
  const x: Contexts = {
    inputs: s.options.inputs,
    declaredInputs: s.declaredInputs,
    secrets: s.secrets,
    github: { ...githubContext(s.event, s.sha, name), token: s.token, workspace: runner.workspace },
    runner: { temp: runner.runnerTemp, os: 'Linux' },
    env: {},
    steps: {},
    needs: s.needs,
    status: 'success',
  };
  const jobEnv = { ...strings(s.workflow.env, x), ...strings(job.env, x) };
  x.env = jobEnv;
  let path = process.env.PATH ?? '/usr/bin:/bin';
  const masks: string[] = [...Object.values(s.secrets).filter(Boolean)];
  let postAction: (() => Promise<StepResult>) | null = null;
  if (s.first) s.standIn.startRecord(name);
  // the gateway this job's perimeter step started (only the first job runs one), read as the steps' user
  const gateway = (): GatewayMemory => ({ pid: s.first ? s.standIn.gatewayPid() : 0, as: runAs });
  for (const [i, step] of (job.steps ?? []).entries()) {
    const label = step.name ?? step.id ?? step.uses ?? `step ${i + 1}`;
    if (!condition(step.if, x)) {
      s.out.steps.push({ job: name, name: label, outcome: 'skipped', log: '', agent: false });
      continue;
    }
    let result: { ok: boolean; log: string; outputs: Record<string, string>; agent?: boolean };
    try {
      // evaluated when the step starts: an expression error fails the step, as on the runner
      const stepEnv = { ...jobEnv, ...strings(step.env, { ...x, env: jobEnv }) };
      const action = perimeterAction(step.uses, s.options.action);
      if (action) {
        const { sub, local } = action;
        if (sub === undefined) {
          if (!s.first) throw new Error('the perimeter step runs in the workflow first job here');
          if (local !== null)
            s.standIn.runner.useAction(localActionDir(runner.workspace, local, s.options.actionDir, sub));
          s.standIn.runner.setInputs(withInputs(step, x));
          const main = await s.standIn.main();
          masks.push(...main.masks);
          s.options.afterMain?.(s.standIn);
          postAction = () => s.standIn.post();
          result = { ok: main.exitCode === 0, log: main.log + main.stderr, outputs: main.outputs };
        } else {
          // a later job: a fresh runner (another machine) running the sub-action, recorded as its own job
          const record = s.standIn.gh.recordJob(REPOSITORY, {
            runId: RUN_ID,
            name,
            runnerName: 'GitHub Actions 2',
          });
          runner = laterRunner(name, s, {
            actionDir:
              local === null
                ? join(s.options.actionDir, sub)
                : localActionDir(runner.workspace, local, s.options.actionDir, sub),
            inputs: withInputs(step, x),
            workspace: runner.workspace,
          });
          made.push(runner);
          const main = await runner.runMain();
          s.standIn.gh.completeJob(REPOSITORY, record.id, main.exitCode === 0 ? 'success' : 'failure');
          result = { ok: main.exitCode === 0, log: main.log + main.stderr, outputs: main.outputs };
        }
      } else {
        const wrapper = step.uses === undefined ? undefined : WRAPPERS[step.uses.split('@')[0]!];
        if (step.uses?.startsWith('actions/checkout@')) {
          // checked out by root (git refuses a repository of another user), then given to the step's user
          if (runAs) execFileSync('chown', ['root:', runner.workspace]);
          result = await checkout(s.standIn, runner, step, x, s.token, s.event.ref);
          if (runAs) execFileSync('chown', ['-R', `${runAs.user}:`, runner.workspace]);
        } else if (wrapper) {
          const inputs = withInputs(step, x);
          const given = await wrapper({
            inputs,
            token: s.token,
            runner,
            home,
            stepEnv: { ...stepEnv, HOME: home },
          });
          const env = {
            ...(s.options.agentEnv?.(name, step) ?? {}),
            ...given.env,
            PATH: `${binDir()}:${path}`,
          };
          s.out.reach.push(
            await reachOf(
              name,
              label,
              perms.contents === 'write',
              s.token,
              runner,
              home,
              given.env,
              gateway(),
            ),
          );
          const r = await runner.runShell(given.script, env, s.options.stepTimeoutMs, ['bash', '-e']);
          result = {
            agent: true,
            ok: r.exitCode === 0,
            log: `exit ${r.exitCode}${r.timedOut ? ' (timed out)' : ''}\n${r.stdout}\n${r.stderr}`,
            outputs: {},
          };
        } else if (step.run !== undefined && installLine(interpolate(step.run, x))) {
          const install = installLine(interpolate(step.run, x))!;
          // answered from the pinned cache: what `npm install` would leave, without the registry
          if (install.global) path = `${binDir()}:${path}`;
          else symlinkSync(join(installDir(), 'node_modules'), join(runner.workspace, 'node_modules'));
          result = { ok: true, log: `installed ${install.pkg} from the cache`, outputs: {} };
        } else if (step.run !== undefined) {
          // an agent's step: first, is the job's token anywhere it can read? Through run-agent, the agent is
          // its own user: the gateway's memory is read as that user (and its home searched too)
          const agent = agentUserOf(interpolate(step.run, x), x);
          s.out.reach.push(
            await reachOf(
              name,
              label,
              perms.contents === 'write',
              s.token,
              runner,
              agent?.home ?? home,
              stepEnv,
              agent ? { ...gateway(), as: agent } : gateway(),
            ),
          );
          const env = { ...(s.options.agentEnv?.(name, step) ?? {}), ...stepEnv, PATH: path, HOME: home };
          // what the suite wrote for the client (Codex's home) is the step's user's, as the runner's files are
          if (runAs) execFileSync('chown', ['-R', `${runAs.user}:`, runner.runnerTemp]);
          const workdir = step['working-directory'];
          const script = interpolate(step.run, x);
          const shell = shellOf(step.shell);
          const r = await runner.runShell(
            workdir === undefined ? script : `cd '${interpolate(workdir, x)}'\n${script}`,
            env,
            s.options.stepTimeoutMs,
            shell,
          );
          result = {
            agent: true,
            ok: r.exitCode === 0,
            log: `exit ${r.exitCode}${r.timedOut ? ' (timed out)' : ''}\n${r.stdout}\n${r.stderr}`,
            outputs: r.outputs,
          };
        } else {
          throw new Error(`a step this runner emulation cannot run: ${JSON.stringify(step)}`);
        }
      }
    } catch (error) {
      result = { ok: false, log: String((error as Error).stack ?? error), outputs: {} };
    }
    s.out.steps.push({
      job: name,
      name: label,
      outcome: result.ok ? 'success' : 'failure',
      log: result.log,
      agent: result.agent === true,
    });
    if (step.id) x.steps[step.id] = { outputs: result.outputs, outcome: result.ok ? 'success' : 'failure' };
    if (!result.ok) x.status = 'failure';
  }
  // post steps run always() by default, after the last step
  if (postAction) {
    const post = await postAction();
    s.out.steps.push({
      job: name,
      name: 'post',
      outcome: post.exitCode === 0 ? 'success' : 'failure',
      log: post.log + post.stderr,
      agent: false,
      summary: post.summary,
    });
    if (post.exitCode !== 0) x.status = 'failure';
  }
  s.out.outputs[name] = jobOutputs(name, job, x, masks, s.out.warnings);
  for (const r of made) r.dispose();
  return x.status;
}

/** The runner of a later job, or of a sub-action step in it (sharing the job's workspace). */
function laterRunner(
  name: string,
  s: JobSetting,
  step: { actionDir?: string; inputs?: Record<string, string>; workspace?: string },
): ActionRunner {
  return new ActionRunner({
    apiUrl: s.standIn.gh.url,
    serverUrl: 'https://github.com',
    repository: REPOSITORY,
    token: s.token,
    ref: s.event.ref,
    sha: s.sha,
    eventName: s.event.name,
    event: s.event.payload,
    actionDir: step.actionDir ?? s.options.actionDir,
    ...(step.inputs && { inputs: step.inputs }),
    ...(step.workspace && { workspace: step.workspace }),
    env: { GITHUB_JOB: name, RUNNER_NAME: 'GitHub Actions 2', GITHUB_RUN_ID: String(RUN_ID) },
  });
}

/**
 * `run:` without `shell:` is `bash -e {0}`; `shell: bash` is `bash --noprofile --norc -eo pipefail {0}`.
 * https://docs.github.com/actions/reference/workflows-and-actions/workflow-syntax#jobsjob_idstepsshell
 */
export function shellOf(shell: string | undefined): string[] {
  if (shell === undefined) return ['bash', '-e'];
  if (shell === 'bash') return ['bash', '--noprofile', '--norc', '-eo', 'pipefail'];
  throw new Error(`shell ${shell} is not emulated`);
}

/**
 * A job's outputs: "Outputs containing secrets are redacted on the runner and not sent to GitHub Actions", with
 * a warning naming the output.
 * https://docs.github.com/actions/reference/workflows-and-actions/workflow-syntax#jobsjob_idoutputs
 */
export function jobOutputs(
  name: string,
  job: WorkflowJob,
  x: Contexts,
  masks: string[],
  warnings: string[],
): Record<string, string> {
  const outputs: Record<string, string> = {};
  for (const [key, expr] of Object.entries(job.outputs ?? {})) {
    const value = interpolate(expr, x);
    if (masks.some((mask) => mask.length > 0 && value.includes(mask))) {
      warnings.push(`Skip output '${key}' since it may contain secret. (job ${name})`);
      continue;
    }
    outputs[key] = value;
  }
  return outputs;
}

function strings(map: Record<string, unknown> | undefined, x: Contexts): Record<string, string> {
  return Object.fromEntries(Object.entries(map ?? {}).map(([k, v]) => [k, interpolate(String(v), x)]));
}

/**
 * actions/checkout (the majors and inputs `checkout.ts` accepts): a clone of the event's ref (GITHUB_REF: the
 * bound branch for workflow_dispatch, the default branch for issue_comment) in the workspace; unless
 * `persist-credentials: false` the token stays where that major leaves it (v6 and later: a file under
 * RUNNER_TEMP that the workspace's git config includes).
 */
async function checkout(
  standIn: Job,
  runner: ActionRunner,
  step: WorkflowStep,
  x: Contexts,
  token: string,
  ref: string,
): Promise<{ ok: boolean; log: string; outputs: Record<string, string> }> {
  const { major, persist } = checkoutSettings(step.uses ?? '', withInputs(step, x));
  const workspace = runner.workspace;
  await git(workspace, ['init', '--quiet']);
  await git(workspace, ['fetch', '--quiet', standIn.bare, ref]);
  await git(workspace, ['checkout', '--quiet', 'FETCH_HEAD']);
  const stored = persist ? await persistCredential(major, workspace, runner.runnerTemp, token) : undefined;
  return {
    ok: true,
    log: `checked out ${ref}${stored ? ` (credentials persisted in ${stored})` : ''}`,
    outputs: {},
  };
}

interface WrapperCall {
  inputs: Record<string, string>;
  /** the job's token, what `${{ github.token }}` gives */
  token: string;
  runner: ActionRunner;
  home: string;
  /** the step's env as the workflow sets it */
  stepEnv: Record<string, string>;
}

/**
 * The agent wrapper actions, by what they hand the agent: the environment its process gets (emulated
 * exactly, since that decides what the agent can reach) and the command they run. Neither is run from its
 * own bundle (they need GitHub); the pinned client stands for the one each installs.
 */
const WRAPPERS: Record<
  string,
  (call: WrapperCall) => Promise<{ env: Record<string, string>; script: string }>
> = {
  /**
   * anthropics/claude-code-action v1: its action.yml sets `DEFAULT_WORKFLOW_TOKEN: ${{ github.token }}` on the
   * step that runs Claude, and the SDK gets the whole process environment; `github_token` (or the token of its
   * App) becomes GITHUB_TOKEN and GH_TOKEN and goes into the checkout's remote (src/github/operations/git-config.ts).
   */
  'anthropics/claude-code-action': async ({ inputs, token, runner, stepEnv }) => {
    const github = inputs.github_token;
    if (!github)
      throw new Error('claude-code-action without github_token needs its App (OIDC): not emulated');
    await run(
      'git',
      ['remote', 'add', 'origin', `https://x-access-token:${github}@github.com/octo/widgets.git`],
      {
        cwd: runner.workspace,
      },
    ).catch(() => undefined);
    return {
      env: {
        ...stepEnv,
        ANTHROPIC_API_KEY: inputs.anthropic_api_key ?? '',
        GITHUB_TOKEN: github,
        GH_TOKEN: github,
        DEFAULT_WORKFLOW_TOKEN: token,
        PROMPT: inputs.prompt ?? '',
      },
      script: `claude -p "$PROMPT" ${(inputs.claude_args ?? '').replace(/\s+/g, ' ')}`,
    };
  },
  /**
   * openai/codex-action v1: `codex exec` with CODEX_HOME from `codex-home`. `safety-strategy`: drop-sudo
   * (default) and read-only keep the step's environment; unprivileged-user runs Codex with `sudo -u`, which
   * starts it with a fresh environment (only what the action passes: CODEX_HOME, and the key through its
   * proxy); unsafe keeps everything, sudo included.
   */
  'openai/codex-action': async ({ inputs, runner, home, stepEnv }) => {
    const strategy = inputs['safety-strategy'] || 'drop-sudo';
    const codex = {
      CODEX_HOME: inputs['codex-home'] ?? '',
      CODEX_API_KEY: inputs['openai-api-key'] ?? '',
      PROMPT: inputs.prompt ?? '',
    };
    if (strategy === 'unprivileged-user') {
      return {
        env: { HOME: mkdtempSync(join(tmpdir(), 'codex-user-')), ...codex },
        script:
          'env -i PATH="$PATH" HOME="$HOME" CODEX_HOME="$CODEX_HOME" CODEX_API_KEY="$CODEX_API_KEY" codex exec "$PROMPT"',
      };
    }
    if (strategy !== 'drop-sudo' && strategy !== 'read-only')
      throw new Error(`safety-strategy ${strategy}: not emulated`);
    return { env: { ...runner.baseEnv(), ...stepEnv, HOME: home, ...codex }, script: 'codex exec "$PROMPT"' };
  },
};

/** The forms the token is written in: as is, and as git's basic credential. */
function needles(token: string): string[] {
  return [
    token,
    Buffer.from(`x-access-token:${token}`).toString('base64'),
    Buffer.from(token).toString('base64'),
  ];
}

/**
 * The agent's user, when the step runs its command through the action's run-agent output (isolation: user):
 * `perimeter-agent`, with the home main made for it beside run-agent.
 */
function agentUserOf(script: string, x: Contexts): RunnerOptions['runAs'] | null {
  const runAgent = Object.values(x.steps).find((step) => step.outputs['run-agent'])?.outputs['run-agent'];
  if (!runAgent || !script.includes(runAgent)) return null;
  const id = (flag: string): number =>
    Number(execFileSync('id', [flag, 'perimeter-agent'], { encoding: 'utf8' }).trim());
  return { user: 'perimeter-agent', uid: id('-u'), gid: id('-g'), home: join(dirname(runAgent), 'home') };
}

/** The job's gateway (pid 0: none) and the user the job's steps run as (this process's when undefined). */
interface GatewayMemory {
  pid: number;
  as: RunnerOptions['runAs'];
}

async function reachOf(
  job: string,
  step: string,
  writeToken: boolean,
  token: string,
  runner: ActionRunner,
  home: string,
  stepEnv: Record<string, string>,
  gateway: GatewayMemory,
): Promise<Reach> {
  const found: string[] = [];
  const forms = needles(token);
  for (const [k, v] of Object.entries({ ...runner.baseEnv(), ...stepEnv }))
    if (forms.some((f) => v.includes(f))) found.push(`env ${k}`);
  // the runner's directory holds RUNNER_TEMP and the step files (state, outputs, env); then workspace and HOME
  for (const dir of new Set([runner.root, runner.workspace, runner.runnerTemp, home]))
    scan(dir, forms, found);
  const memory = await gatewayMemory(gateway, forms);
  if (memory !== null) found.push(memory);
  return { job, step, writeToken, found: [...new Set(found)] };
}

/**
 * The gateway's memory, read for the token as the step's user would: directly, and when the kernel refuses,
 * through `sudo -n` (a hosted runner's user has it unless isolation took it away). Tried, not inferred from
 * uids: with `isolation: user` the gateway is another user's and sudo is gone, so both reads fail.
 */
async function gatewayMemory({ pid, as }: GatewayMemory, forms: string[]): Promise<string | null> {
  if (pid <= 0 || !isGatewayRunning(pid)) return null;
  const route = await memoryRoute(pid, forms, as);
  if (route === null) return null;
  const how =
    route === 'through sudo'
      ? 'through sudo'
      : processUid(pid) === (as?.uid ?? process.getuid?.())
        ? 'as the same user'
        : `as uid ${as?.uid ?? process.getuid?.()}`;
  return `memory of the gateway (pid ${pid}, ${how})`;
}

function scan(dir: string, forms: string[], found: string[], depth = 0): void {
  if (depth > 12) return;
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return;
  }
  for (const entry of entries) {
    const path = join(dir, entry);
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) continue;
    if (stat.isDirectory()) scan(path, forms, found, depth + 1);
    else if (stat.isFile() && stat.size < 8 * 1024 * 1024) {
      const text = readFileSync(path, 'latin1');
      if (forms.some((f) => text.includes(f))) found.push(path);
    }
  }
}
