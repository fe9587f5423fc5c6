import * as core from '@actions/core';
import { tmpdir } from 'node:os';
import type { Receipts, RepoCoordinates, RepoReads, RepoWrites, RunRecords } from '../../github/index.js';
import {
  AgentJobError,
  agentJobWindow,
  readJobActivity,
  receiptJson,
  snapshotRefs,
  startFromActivity,
  verifyJob,
  type AgentJobWindow,
  type JudgingRules,
  type RefSnapshot,
} from '../../verify/index.js';
import type { Established } from '../../policy/index.js';
import { readConfigFile, readRepositoryConfig } from '../config-loader.js';
import { establishPerimeters } from '../establish.js';
import { Inputs, VerifyInputs } from '../constants.js';
import {
  InputError,
  readJudgingRules,
  readRecordSettings,
  runFacts,
  type RecordSettings,
  type RunFacts,
} from '../inputs.js';
import { createSecretFilter } from '../../safety/index.js';
import { readVerifyBasics, type VerifyBasics } from './judging-step.js';
import { conclude } from '../conclude.js';
import { publishError } from '../publish.js';
import { runStep } from '../step.js';

type Env = Record<string, string | undefined>;

/** The login GitHub records for what a workflow's GITHUB_TOKEN does. */
export const GITHUB_TOKEN_IDENTITY = 'github-actions[bot]';

/**
 * Everything that decides the verdict comes from this step's inputs, written in the workflow file, and from
 * the runner of this job, which the agent never touched: nothing from the agent's job.
 */
interface VerifySettings extends VerifyBasics, JudgingRules {
  /** the agent job's name, as the run shows it */
  agentJob: string;
  /** the login GitHub records for the agent job's token */
  identity: string;
  /** this job's run and attempt: the agent job ran in the same ones */
  run: RunFacts;
  record: RecordSettings;
  tempDir: string;
}

function readVerifySettings(env: Env = process.env): VerifySettings {
  const basics = readVerifyBasics(env);
  const agentJob = core.getInput(VerifyInputs.AgentJob).trim();
  if (agentJob === '')
    throw new InputError(
      `${VerifyInputs.AgentJob}: required: the name of the job whose agents this job verifies (its key in the workflow, or its name: when it has one); without it, perimeter/verify judges pull requests only (on pull_request_target or pull_request)`,
    );
  // main's default is every perimeter; judging by more than the agent job exposed would pass its writes
  if (core.getInput(Inputs.Perimeters).trim() === '')
    throw new InputError(
      `${Inputs.Perimeters}: required: the perimeters the agent job exposed, as its main step names them (\`all\` for every one)`,
    );
  const run = runFacts(env);
  if (!(Number(run.id) > 0)) throw new InputError('GITHUB_RUN_ID: not set; the verify job runs on a runner');
  return {
    ...basics,
    ...readJudgingRules(env),
    agentJob,
    identity: core.getInput(VerifyInputs.AgentIdentity).trim() || GITHUB_TOKEN_IDENTITY,
    run,
    record: readRecordSettings(env),
    tempDir: env.RUNNER_TEMP || tmpdir(),
  };
}

/**
 * The verify job (perimeter/verify): on a runner the agent never touched, with a token of its own, it judges
 * the agent job from GitHub's records alone: when the job ran from the Actions jobs API, every branch move
 * since from the activity list (so the start too), the rules from its own inputs. The agent's job hands over
 * nothing; the receipt is posted last, on every commit the agent's work left a ref at.
 */
export async function runVerify(): Promise<void> {
  await runStep({
    read: () => readVerifySettings(),
    done: 'verified',
    run: ({ upstream, settings }) => verify(upstream, settings),
    failed: async ({ upstream, settings }, error, message) => {
      const reason = error instanceof AgentJobError ? message : `the verify job could not verify: ${message}`;
      await publishError(
        upstream,
        {
          runUrl: settings.runUrl,
          receiptBy: 'post',
          receiptAs: settings.receiptAs,
          statusContext: settings.statusContext,
        },
        settings.branch,
        null,
        reason,
      );
      core.setFailed(`Perimeter: ${reason}`);
    },
  });
}

type VerifyUpstream = RepoCoordinates & RepoReads & RepoWrites & Receipts & RunRecords;

/** The verify job as a script: find the agent job, read where the refs stood, establish, judge, conclude. */
async function verify(upstream: VerifyUpstream, settings: VerifySettings): Promise<void> {
  const window = await findAgentJob(upstream, settings);
  const refs = await readRefs(upstream, window);
  const established = await establishAtStart(upstream, settings, refs);
  const receiptWindow = {
    context: settings.statusContext,
    // main posts no status when a verify job posts the receipt: every one in the window is forged
    known: [],
    since: window.since,
    until: window.until,
    checkRuns: settings.receiptAs !== 'status',
  };
  const verdict = await verifyJob({
    upstream,
    branch: settings.branch,
    ...refs,
    perimeters: established.perimeters,
    ledger: null,
    ledgerExpected: false,
    directPushes: settings.directPushes,
    requireChanges: settings.requireChanges,
    ignoreRefs: settings.ignoreRefs,
    startedAt: window.since,
    identity: settings.identity,
    receiptWindow,
    // the content rule scans as the gateway does, this job's own token among the credentials it knows
    filter: createSecretFilter({ extraSecrets: [settings.token] }),
  });
  if (window.conclusion !== null) verdict.notes.push(`the agent job ended: ${window.conclusion}`);
  const json = receiptJson(verdict, {
    repository: `${settings.owner}/${settings.repo}`,
    context: settings.statusContext,
    run: { ...settings.run, url: settings.runUrl ?? null },
    config: { file: settings.configFile, ref: established.configRef, text: established.text },
    perimeters: established.perimeters.map((p) => p.name),
    directPushes: settings.directPushes,
    requireChanges: settings.requireChanges,
    ignoreRefs: settings.ignoreRefs,
    window: { startedAt: window.since, endedAt: new Date().toISOString() },
    refs: { start: refs.start, end: refs.end },
    ledger: null,
    ledgerIncluded: false,
    receiptWindow,
  });
  await conclude(upstream, { ...settings, receiptBy: 'post' }, verdict, {
    context: settings.statusContext,
    shas: verdict.receiptOn ?? [],
    // nothing the agent job left is read here, so the check run cites no ledger
    evidence: { config: json.config, ledger: null },
    record: { json, ledger: null, staged: null, to: settings },
  });
}

/** The agent job of this run attempt, and when it ran, from GitHub's Actions jobs API. */
async function findAgentJob(upstream: VerifyUpstream, settings: VerifySettings): Promise<AgentJobWindow> {
  const runId = Number(settings.run.id);
  const window = agentJobWindow(await upstream.listRunJobs(runId), {
    name: settings.agentJob,
    runId,
    attempt: Number(settings.run.attempt) || 1,
  });
  core.info(
    `agent job "${settings.agentJob}" (${window.jobs.map((job) => job.id).join(', ')}): ${window.since} to ${window.until}`,
  );
  return window;
}

/** The refs now, every branch move since the agent job started (GitHub's activity list), and so the start. */
async function readRefs(upstream: VerifyUpstream, window: AgentJobWindow) {
  const end = await snapshotRefs(upstream);
  const activity = await readJobActivity(upstream, { since: window.since, end });
  if ('problem' in activity) throw new AgentJobError(`the verify job could not verify: ${activity.problem}`);
  return { start: startFromActivity(activity.items, end), end, activity };
}

/**
 * The establish step: the perimeters as they were when the agent job started, from the ref the workflow
 * names. One request where it can: with config-ref, the file at its start commit and the default branch beside
 * it; without, the default branch with the file at its head, which is the one wanted unless the branch moved
 * since the agent job started (then read again at its start commit).
 */
async function establishAtStart(
  upstream: VerifyUpstream,
  settings: VerifySettings,
  { start, end }: { start: RefSnapshot; end: RefSnapshot },
): Promise<Established & { configRef: string; text: string }> {
  const file = settings.configFile;
  const first = await readRepositoryConfig(
    upstream,
    file,
    settings.configRef === null ? null : configCommit(settings.configRef, start, end),
  );
  const { defaultBranch } = first;
  const configRef = settings.configRef ?? defaultBranch;
  const at = configCommit(configRef, start, end);
  const config =
    settings.configRef !== null || first.commit === at ? first : await readConfigFile(upstream, file, at);
  const established = await establishPerimeters(
    upstream,
    {
      file,
      text: config.text,
      names: settings.perimeters,
      configRef: settings.configRef,
      branch: settings.branch,
      defaultBranch,
      eventName: settings.eventName,
      event: settings.event,
      heads: start,
    },
    (message) => new AgentJobError(`${file} at ${configRef} cannot judge the agent job: ${message}`),
  );
  if (established.trust !== null) core.info(established.trust);
  if (established.warning !== null) core.warning(established.warning);
  const names = established.perimeters.map((p) => p.name);
  core.info(`${file} at ${configRef}: judging ${names.join(', ')} on branch ${settings.branch}`);
  return { ...established, configRef, text: config.text };
}

/**
 * The commit the perimeters are read at: a branch or tag as it was when the agent job started (GitHub's
 * activity list says where a branch was), a commit SHA as it is. A ref created during the job is refused:
 * the agent's job may have made it.
 */
function configCommit(ref: string, start: RefSnapshot, end: RefSnapshot): string {
  if (/^[0-9a-f]{40}$/i.test(ref)) return ref;
  const names = ref.startsWith('refs/')
    ? [ref]
    : [`refs/heads/${ref.replace(/^heads\//, '')}`, `refs/tags/${ref.replace(/^tags\//, '')}`];
  for (const name of names) {
    const sha = start[name];
    if (sha !== undefined) return sha;
    if (end[name] !== undefined)
      throw new AgentJobError(
        `config-ref "${ref}" was created while the agent job ran, so the agent's job may have written it`,
      );
  }
  return ref;
}
