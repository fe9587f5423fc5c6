import * as core from '@actions/core';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { compileGlobList, DEFAULT_CONFIG_FILE, globProblem } from '../policy/index.js';
import { MIN_SCRUBBED_LENGTH } from '../safety/secret-forms.js';
import { MIN_SECRET_LENGTH } from '../gateway/serving/bearer-secret.js';
import type { JudgingRules } from '../verify/index.js';
import { Inputs, STATUS_CONTEXT } from './constants.js';

export type DirectPushes = JudgingRules['directPushes'];
/** Who posts the receipt: the post step, a verify job, or (always with `writes: stage`) the apply job. */
export type ReceiptBy = 'post' | 'verify-job' | 'apply-job';
/** What the receipt is on GitHub: a commit status, a check run of the same name, or both. */
export type ReceiptAs = 'status' | 'check-run' | 'both';

export interface RunFacts {
  /** GITHUB_RUN_ID, '' outside a runner */
  id: string;
  /** GITHUB_RUN_ATTEMPT */
  attempt: string;
  /** GITHUB_JOB: the job's key in the workflow */
  job: string;
}

/**
 * What main and post run with, from the step's inputs and runner variables. The verify and apply jobs read
 * their own inputs in verify-job/ and apply-job/, with the parsers exported here.
 */
export interface Settings extends JudgingRules {
  /** the token the gateway and the post check act with; masked */
  token: string;
  owner: string;
  repo: string;
  /** REST API root (GITHUB_API_URL) */
  apiUrl: string;
  /** link to this run, for the commit status; undefined outside a runner */
  runUrl: string | undefined;
  /** `${server}/${owner}/${repo}`, for links to commits in the receipt; undefined outside a runner */
  repositoryUrl: string | undefined;
  /** gateway port on 127.0.0.1; 0 picks a free one */
  port: number;
  failOnViolation: boolean;
  /**
   * fixed bearer secrets by perimeter (input endpoint-secrets), for configs committed with a fixed port;
   * perimeters not named get a random secret
   */
  endpointSecrets: Record<string, string>;
  /** export every perimeter's secret and URL to all later steps (PERIMETER_TOKEN_<NAME>); default: none */
  exportSecrets: boolean;
  /** content-creating requests per minute the gateway allows itself (GitHub's secondary limit: 80) */
  writesPerMinute: number;
  /** push: the gateway writes to GitHub; stage: it keeps the commits for an apply job (writes: stage) */
  writes: 'push' | 'stage';
  /**
   * `post`: the post step posts the receipt; `verify-job`: a later job (perimeter/verify) does, from its own
   * inputs and GitHub's records, and main and post post no commit status (post's verdict stays in the log);
   * `apply-job`: implied by `writes: stage`, the apply job's receipt is the one, and main and post post none
   */
  receiptBy: ReceiptBy;
  /** a commit status, a check run (needs checks: write) or both, posted by whoever posts the receipt */
  receiptAs: ReceiptAs;
  /** milliseconds post may spend verifying before it posts an error receipt */
  verifyTimeoutMs: number;
  /** where main writes the ledger, log, snapshot and client configs (RUNNER_TEMP) */
  tempDir: string;
  /**
   * The folder each exposed perimeter's workspace is made in (`<folder>/<perimeter>`), absolute; null: no
   * workspace (input `workspace`: false). `true` is RUNNER_TEMP/perimeter-workspaces.
   */
  workspace: string | null;
  /**
   * `user`: the gateway runs as its own system user, and main takes the runner's user's sudo and Docker socket
   * away before any agent step (src/action/agent-job/isolation.ts); `none`: all steps share one user
   */
  isolation: Isolation;
  /**
   * With isolation: user, the hosts (and `host:port`s) the agent's egress proxy lets the agent reach, presets
   * expanded (`anthropic`, `openai`, `copilot`); [] reaches the gateway only (input `agent-egress`)
   */
  agentEgress: string[];
  /** this run and job, as the runner names them ('' outside a runner) */
  run: RunFacts;
  /** RUNNER_NAME: the Actions jobs API shows it for the job the runner ran ('' outside a runner) */
  runnerName: string;
  record: RecordSettings;
}

/** The workflow artifact a step uploads (post, the verify job): its name, and its retention in days (undefined: the repository's). */
export interface RecordSettings {
  name: string;
  retentionDays: number | undefined;
}

export class InputError extends Error {
  override name = 'InputError';
}

export type Env = Record<string, string | undefined>;
export type ReadInput = (name: string) => string;

export const defaultRead: ReadInput = (name) => core.getInput(name);

/** What every Perimeter step reads the same way: the token, the repository and where the run is. */
export interface StepBasics {
  token: string;
  owner: string;
  repo: string;
  apiUrl: string;
  runUrl: string | undefined;
  repositoryUrl: string | undefined;
  tempDir: string;
}

export function readStepBasics(env: Env = process.env, read: ReadInput = defaultRead): StepBasics {
  return {
    token: tokenInput(read(Inputs.GithubToken)),
    ...readRunner(env),
    tempDir: env.RUNNER_TEMP || tmpdir(),
  };
}

/**
 * The settings that decide a verdict, read alike by main, the verify job and apply, each from its own step's
 * inputs (the workflow file) and the run's event: none of them from the agent's job.
 */
export function readJudgingRules(env: Env = process.env, read: ReadInput = defaultRead): JudgingRules {
  const event = readEvent(env);
  const branch = boundBranch(read(Inputs.Branch), env, event);
  return {
    configFile: configFile(read(Inputs.Config) || DEFAULT_CONFIG_FILE),
    configRef: read(Inputs.ConfigRef) || null,
    perimeters: perimeterList(read(Inputs.Perimeters)),
    branch,
    directPushes: directPushes(read(Inputs.DirectPushes)),
    requireChanges: boolean(Inputs.RequireChanges, read(Inputs.RequireChanges), false),
    statusContext: statusContext(read(Inputs.StatusContext)),
    ignoreRefs: ignoreRefs(read(Inputs.IgnoreRefs), branch),
    eventName: env.GITHUB_EVENT_NAME ?? '',
    event,
  };
}

export function readSettings(env: Env = process.env, read: ReadInput = defaultRead): Settings {
  const writes = writesMode(read(Inputs.Writes));
  return {
    ...readStepBasics(env, read),
    ...readJudgingRules(env, read),
    port: port(read(Inputs.Port)),
    failOnViolation: boolean(Inputs.FailOnViolation, read(Inputs.FailOnViolation), true),
    endpointSecrets: endpointSecrets(read(Inputs.EndpointSecrets)),
    exportSecrets: boolean(Inputs.ExportSecrets, read(Inputs.ExportSecrets), false),
    writesPerMinute: positiveInteger(Inputs.WritesPerMinute, read(Inputs.WritesPerMinute), 80),
    writes,
    receiptBy: receiptBy(read(Inputs.ReceiptBy), writes),
    receiptAs: receiptAs(Inputs.ReceiptAs, read(Inputs.ReceiptAs)),
    verifyTimeoutMs: positiveInteger(Inputs.VerifyTimeout, read(Inputs.VerifyTimeout), 600) * 1000,
    workspace: workspaceFolder(read(Inputs.Workspace), env),
    isolation: isolation(read(Inputs.Isolation)),
    agentEgress: agentEgress(read(Inputs.AgentEgress)),
    run: runFacts(env),
    runnerName: env.RUNNER_NAME ?? '',
    record: readRecordSettings(env, read),
  };
}

/** The record inputs (record-name, record-retention-days), which post and the verify job share. */
export function readRecordSettings(env: Env = process.env, read: ReadInput = defaultRead): RecordSettings {
  const days = read(Inputs.RecordRetentionDays);
  return {
    name: recordName(read(Inputs.RecordName), env),
    retentionDays: days === '' ? undefined : positiveInteger(Inputs.RecordRetentionDays, days, 0),
  };
}

/**
 * The artifact's name: unique in a run (GitHub refuses a second one of a name), so by job and attempt;
 * matrix legs share a job id and need their own. The characters GitHub's artifact client refuses are refused here.
 */
function recordName(value: string, env: Env): string {
  const name = value || `perimeter-${env.GITHUB_JOB || 'job'}-${env.GITHUB_RUN_ATTEMPT || '1'}`;
  if (/["\\:<>|*?\r\n/]/.test(name))
    throw new InputError(
      `${Inputs.RecordName}: ${JSON.stringify(name)} holds a character artifact names may not have (" : < > | * ? \\ / CR LF)`,
    );
  return name;
}

/** The repository, API and run link every step of Perimeter takes from the runner. */
export function readRunner(
  env: Env,
): Pick<Settings, 'owner' | 'repo' | 'apiUrl' | 'runUrl' | 'repositoryUrl'> {
  const repository = env.GITHUB_REPOSITORY ?? '';
  const match = /^([A-Za-z0-9-_.]+)\/([A-Za-z0-9-_.]+)$/.exec(repository);
  if (!match)
    throw new InputError(`GITHUB_REPOSITORY: expected "owner/name", got ${JSON.stringify(repository)}`);
  const [, owner, repo] = match as unknown as [string, string, string];
  const serverUrl = env.GITHUB_SERVER_URL?.replace(/\/+$/, '');
  const runUrl =
    serverUrl && env.GITHUB_RUN_ID
      ? `${serverUrl}/${repository}/actions/runs/${env.GITHUB_RUN_ID}`
      : undefined;
  return {
    owner,
    repo,
    apiUrl: (env.GITHUB_API_URL || 'https://api.github.com').replace(/\/+$/, ''),
    runUrl,
    repositoryUrl: serverUrl ? `${serverUrl}/${repository}` : undefined,
  };
}

export function runFacts(env: Env): RunFacts {
  return {
    id: env.GITHUB_RUN_ID ?? '',
    attempt: env.GITHUB_RUN_ATTEMPT ?? '',
    job: env.GITHUB_JOB ?? '',
  };
}

/**
 * With `writes: stage` the agent job's token holds no write permission at all, statuses included: the apply
 * job's receipt is the one (or a verify job's, when named). A status from the agent job would need
 * `statuses: write`, and with it the agent could post a forged success anywhere.
 */
function receiptBy(value: string, writes: 'push' | 'stage'): ReceiptBy {
  if (value === 'verify-job') return 'verify-job';
  if (value !== '' && value !== 'post')
    throw new InputError(
      `${Inputs.ReceiptBy}: expected "post" or "verify-job", got ${JSON.stringify(value)}`,
    );
  if (writes === 'push') return 'post';
  if (value === 'post')
    throw new InputError(
      `${Inputs.ReceiptBy}: "post" cannot go with ${Inputs.Writes}: stage, whose job needs no statuses: write; perimeter/apply posts the receipt`,
    );
  return 'apply-job';
}

export function receiptAs(name: string, value: string): ReceiptAs {
  if (value === '') return 'status';
  if (value === 'status' || value === 'check-run' || value === 'both') return value;
  throw new InputError(`${name}: expected "status", "check-run" or "both", got ${JSON.stringify(value)}`);
}

/** A token given as an input: required, and long enough to be scrubbed from every message. */
export function tokenInput(token: string): string {
  if (!token) throw new InputError(`${Inputs.GithubToken}: required; the default is \${{ github.token }}`);
  // GitHub's tokens have 40 characters or more; a shorter value could not be scrubbed from messages
  if (token.length < MIN_SCRUBBED_LENGTH)
    throw new InputError(
      `${Inputs.GithubToken}: ${token.length} characters, shorter than any GitHub token (at least ${MIN_SCRUBBED_LENGTH} are required)`,
    );
  return token;
}

export function booleanInput(name: string, value: string, fallback: boolean): boolean {
  return boolean(name, value, fallback);
}

export function readEvent(env: Env): unknown {
  if (!env.GITHUB_EVENT_PATH) return null;
  try {
    return JSON.parse(readFileSync(env.GITHUB_EVENT_PATH, 'utf8')) as unknown;
  } catch {
    return null;
  }
}

export function configFile(value: string): string {
  const segments = value.split('/');
  const bad =
    value.startsWith('/') ||
    value.includes('\\') ||
    // eslint-disable-next-line no-control-regex
    /[\u0000-\u001f]/.test(value) ||
    segments.some((s) => s === '' || s === '.' || s === '..' || s.toLowerCase() === '.git');
  if (bad) {
    throw new InputError(
      `${Inputs.Config}: expected a repository-relative path like "perimeters.yml", got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

export function perimeterList(value: string): string[] | null {
  const names = value.split(/[\s,]+/).filter(Boolean);
  if (names.length === 0 || (names.length === 1 && names[0] === 'all')) return null;
  if (names.includes('all')) {
    throw new InputError(
      `${Inputs.Perimeters}: "all" cannot be combined with names, got ${JSON.stringify(value)}`,
    );
  }
  return [...new Set(names)];
}

function boundBranch(value: string, env: Env, payload: unknown): string {
  const explicit = value.replace(/^refs\/heads\//, '');
  const branch =
    explicit || pullRequestHead(env, payload as PullRequestEvent | null) || headsRef(env.GITHUB_REF);
  if (!branch) {
    throw new InputError(
      `${Inputs.Branch}: not given, and this run is neither a pull request nor on a branch ` +
        `(GITHUB_REF is ${JSON.stringify(env.GITHUB_REF ?? '')}); set the input`,
    );
  }
  // git check-ref-format, the parts that matter here
  // eslint-disable-next-line no-control-regex
  const invalid = /[\u0000-\u0020~^:?*[\\\u007f]|\.\.|@\{|\/\/|^[/.]|[/.]$|\.lock$|\.lock\//;
  if (invalid.test(branch) || branch === '@') {
    throw new InputError(`${Inputs.Branch}: not a valid branch name: ${JSON.stringify(branch)}`);
  }
  return branch;
}

function headsRef(ref: string | undefined): string {
  return ref?.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : '';
}

interface PullRequestEvent {
  pull_request?: { head?: { ref?: unknown; repo?: { full_name?: unknown; id?: unknown } | null } };
  repository?: { id?: unknown };
}

/**
 * The pull request's head branch, when this run is for a pull request whose head lives in this repository;
 * '' when the run is not for a pull request. A head in another repository (a fork) names a branch there, and
 * its author picks the name: `main` in a fork must never bind this repository's `main`. Without proof that
 * the head is here, refuse and ask for an explicit `branch`.
 * The payload's `pull_request.head.repo` is the head repository (null when a fork was deleted):
 * https://docs.github.com/en/webhooks/webhook-events-and-payloads#pull_request
 */
function pullRequestHead(env: Env, event: PullRequestEvent | null): string {
  const head = event?.pull_request?.head;
  const headRef = env.GITHUB_HEAD_REF || (typeof head?.ref === 'string' ? head.ref : '');
  if (headRef === '') return '';
  const repository = env.GITHUB_REPOSITORY ?? '';
  const headRepo = head?.repo?.full_name;
  const sameName = typeof headRepo === 'string' && headRepo.toLowerCase() === repository.toLowerCase();
  const ids = [head?.repo?.id, event?.repository?.id];
  const sameId = ids.some((id) => id === undefined) || ids[0] === ids[1];
  if (sameName && sameId) return headRef;
  const where =
    typeof headRepo === 'string'
      ? `lives in ${JSON.stringify(headRepo)}, not in ${repository}`
      : 'cannot be shown to live in this repository (the event payload names no head repository)';
  throw new InputError(
    `${Inputs.Branch}: not given, and the pull request's head branch ${JSON.stringify(headRef)} ${where}; ` +
      'a fork chooses its branch names, so it cannot choose the branch this job writes. ' +
      `Set the ${Inputs.Branch} input to a branch of ${repository}`,
  );
}

function port(value: string): number {
  if (value === '') return 0;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) {
    throw new InputError(
      `${Inputs.Port}: expected a port number from 0 to 65535, got ${JSON.stringify(value)}`,
    );
  }
  return n;
}

function ignoreRefs(value: string, branch: string): string[] {
  const globs = value
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  for (const glob of globs) {
    const problem = glob.startsWith('refs/') ? globProblem(glob) : 'a full ref name starts with "refs/"';
    if (problem !== null)
      throw new InputError(`${Inputs.IgnoreRefs}: ${JSON.stringify(glob)} is not a ref glob (${problem})`);
  }
  const covering = compileGlobList(globs).find(`refs/heads/${branch}`);
  if (covering !== null) {
    throw new InputError(
      `${Inputs.IgnoreRefs}: ${JSON.stringify(covering)} covers the bound branch refs/heads/${branch}, which is always judged`,
    );
  }
  return globs;
}

function positiveInteger(name: string, value: string, fallback: number): number {
  if (value === '') return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 1_000_000) {
    throw new InputError(`${name}: expected a whole number from 1 to 1000000, got ${JSON.stringify(value)}`);
  }
  return n;
}

function boolean(name: string, value: string, fallback: boolean): boolean {
  if (value === '') return fallback;
  if (/^(true|True|TRUE)$/.test(value)) return true;
  if (/^(false|False|FALSE)$/.test(value)) return false;
  throw new InputError(`${name}: expected true or false, got ${JSON.stringify(value)}`);
}

/** false (none), true (under RUNNER_TEMP) or a folder, relative ones to GITHUB_WORKSPACE. */
function workspaceFolder(value: string, env: Env): string | null {
  if (value === '' || /^(false|False|FALSE)$/.test(value)) return null;
  const temp = env.RUNNER_TEMP || tmpdir();
  if (/^(true|True|TRUE)$/.test(value)) return join(temp, 'perimeter-workspaces');
  if (/[\0\r\n]/.test(value))
    throw new InputError(
      `${Inputs.Workspace}: expected false, true or a folder, got ${JSON.stringify(value)}`,
    );
  return isAbsolute(value) ? resolve(value) : resolve(env.GITHUB_WORKSPACE || process.cwd(), value);
}

function directPushes(value: string): DirectPushes {
  if (value === '' || value === 'check') return 'check';
  if (value === 'deny') return 'deny';
  throw new InputError(`${Inputs.DirectPushes}: expected "check" or "deny", got ${JSON.stringify(value)}`);
}

export type Isolation = 'user' | 'none';

function isolation(value: string): Isolation {
  const mode = value.trim() || 'none';
  if (mode !== 'user' && mode !== 'none')
    throw new InputError(`${Inputs.Isolation}: expected "user" or "none", got ${JSON.stringify(value)}`);
  return mode;
}

/** The hosts each preset of `agent-egress` stands for: the model servers of the agents README shows. */
export const EGRESS_PRESETS: Record<string, string[]> = {
  anthropic: ['api.anthropic.com'],
  openai: ['api.openai.com'],
  copilot: ['api.githubcopilot.com', '*.githubcopilot.com', 'api.github.com'],
};

function agentEgress(value: string): string[] {
  const hosts: string[] = [];
  for (const entry of value.split(/[\s,]+/).filter(Boolean)) {
    const preset = EGRESS_PRESETS[entry.toLowerCase()];
    if (preset) hosts.push(...preset);
    else if (
      /^(\*\.)?[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*(:\d{1,5})?$/.test(
        entry,
      )
    )
      hosts.push(entry.toLowerCase());
    else
      throw new InputError(
        `${Inputs.AgentEgress}: expected host names, *.domain, host:port or a preset (${Object.keys(EGRESS_PRESETS).join(', ')}), got ${JSON.stringify(entry)}`,
      );
  }
  return [...new Set(hosts)];
}

function writesMode(value: string): 'push' | 'stage' {
  const mode = value.trim() || 'push';
  if (mode !== 'push' && mode !== 'stage')
    throw new InputError(`${Inputs.Writes}: expected "push" or "stage", got ${JSON.stringify(value)}`);
  return mode;
}

export function statusContext(value: string): string {
  if (value === '') return STATUS_CONTEXT;
  // eslint-disable-next-line no-control-regex
  if (value.length > 100 || /[\u0000-\u001f\u007f]/.test(value)) {
    throw new InputError(
      `${Inputs.StatusContext}: expected a short status name like "perimeter/tests", got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

/**
 * Parses the `endpoint-secrets` input: one `perimeter=secret` per line (a secret may hold any visible
 * character, commas included).
 * Messages name the perimeter and never quote a secret. Secrets must be visible ASCII: they travel in an
 * `Authorization: Bearer` header.
 */
function endpointSecrets(value: string): Record<string, string> {
  const out: Record<string, string> = {};
  const byValue = new Map<string, string>();
  for (const item of value
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)) {
    const eq = item.indexOf('=');
    const name = eq > 0 ? item.slice(0, eq) : '';
    const secret = eq > 0 ? item.slice(eq + 1) : '';
    if (!/^[a-z][a-z0-9-]*$/.test(name)) {
      throw new InputError(
        `${Inputs.EndpointSecrets}: expected lines of "perimeter=secret", got an entry ` +
          (eq > 0 ? `named ${JSON.stringify(name)}` : 'without "="'),
      );
    }
    if (name in out)
      throw new InputError(`${Inputs.EndpointSecrets}: ${JSON.stringify(name)} is given twice`);
    if (!/^[\x21-\x7e]+$/.test(secret)) {
      throw new InputError(
        `${Inputs.EndpointSecrets}: the secret of ${JSON.stringify(name)} is empty or holds characters outside visible ASCII`,
      );
    }
    if (secret.length < MIN_SECRET_LENGTH) {
      throw new InputError(
        `${Inputs.EndpointSecrets}: the secret of ${JSON.stringify(name)} has ${secret.length} characters; ` +
          `at least ${MIN_SECRET_LENGTH} are required (e.g. \`openssl rand -base64 32\`)`,
      );
    }
    const other = byValue.get(secret);
    if (other !== undefined) {
      throw new InputError(
        `${Inputs.EndpointSecrets}: ${JSON.stringify(other)} and ${JSON.stringify(name)} have the same secret; ` +
          'give each perimeter its own, or one endpoint opens the other',
      );
    }
    byValue.set(secret, name);
    out[name] = secret;
  }
  return out;
}
