import * as core from '@actions/core';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { Conversations, Receipts, RepoReads, RepoWrites } from '../../github/index.js';
import { parseConfig, compilePerimeter, proposeScope, type Perimeter } from '../../policy/index.js';
import { createSecretFilter } from '../../safety/index.js';
import {
  inlineText,
  readLedgerFacts,
  RECORD_FILES,
  receiptJson,
  renderScopeRequests,
  snapshotRefs,
  verifyJob,
  type LedgerFacts,
  type RefSnapshot,
} from '../../verify/index.js';
import { Inputs, State, STOP_GRACE_MS } from '../constants.js';
import { logTail, stopGateway } from './gateway-process.js';
import { readEgress, renderEgress } from './egress-summary.js';
import { handOver } from './hand-over.js';
import { takeOverGateway, type ControlAccess } from './take-over.js';
import { readSettings, type Settings } from '../inputs.js';
import { conclude } from '../conclude.js';
import { publishError } from '../publish.js';
import { runStep } from '../step.js';
import {
  actionsState,
  brokenSeal,
  CONFIG_FILE_KEYS,
  readStateFile,
  START_REFS_KEYS,
  type JobSettings,
  type StateStore,
} from './state.js';

/**
 * The post step: stop the gateway, recompute what changed from GitHub, post the receipt.
 * Whatever main did not get to, or whatever broke since, becomes a problem that keeps the verdict from success.
 */
export async function runPost(): Promise<void> {
  // a state that is not main's decides nothing: no gateway to ask, no file to read, only an error receipt
  const broken = brokenSeal();
  if (broken !== null) return refuseState(broken);
  const problems: string[] = [];
  const isolation = actionsState.get(State.Isolation);
  // with isolation the gateway is another user's: it stops, and hands its files over, when post asks
  const store = isolation
    ? await takeOverGateway(
        actionsState,
        JSON.parse(isolation) as ControlAccess,
        process.env.RUNNER_TEMP || tmpdir(),
        problems,
      )
    : actionsState;
  const pid = isolation ? 0 : Number(store.get(State.GatewayPid));
  if (pid > 0) {
    const stopped = await stopGateway(pid, STOP_GRACE_MS);
    if (stopped === 'not-running')
      problems.push('the gateway was not running when the job ended (it died or was stopped)');
    if (stopped === 'killed') problems.push('the gateway did not stop on SIGTERM and was killed');
  }

  await runStep({
    read: () => ({ ...readSettings(), ...savedJobSettings(store) }),
    secrets: () => [store.get(State.LedgerKey)],
    done: 'verified',
    run: ({ upstream, settings }) => verifyInTime(settings, upstream, store, problems),
    failed: async ({ upstream, settings }, _error, message) => {
      await publishError(upstream, settings, branchOf(store, settings), store.get(State.StartHead), message);
      core.setFailed(`Perimeter could not verify this job: ${message}`);
    },
  });
}

/** The error receipt for a state that is not main's, on the bound branch as the inputs name it. */
async function refuseState(reason: string): Promise<void> {
  const why = `${reason}, so nothing done during this job was verified`;
  await runStep({
    read: () => readSettings(),
    done: 'verified',
    run: async ({ upstream, settings }) => {
      await publishError(upstream, settings, settings.branch, null, why);
      core.setFailed(`Perimeter: ${why}`);
    },
    failed: async (_context, _error, message) => core.setFailed(`Perimeter: ${why} (${message})`),
  });
}

const branchOf = (store: StateStore, settings: Settings): string =>
  store.get(State.Branch) || settings.branch;

/** The verification, or an error receipt when it does not finish within verify-timeout. */
async function verifyInTime(
  settings: Settings,
  upstream: RepoReads & RepoWrites & Receipts & Pick<Conversations, 'findOpenPullRequest'>,
  store: StateStore,
  problems: string[],
): Promise<void> {
  const branch = branchOf(store, settings);
  const deadline = { passed: false };
  let timer: NodeJS.Timeout | undefined;
  const timeUp = new Promise<'time up'>((resolve) => {
    timer = setTimeout(() => resolve('time up'), settings.verifyTimeoutMs);
  });
  try {
    const finished = await Promise.race([
      verify(settings, upstream, store, branch, problems, deadline),
      timeUp,
    ]);
    if (finished === 'time up') {
      // A receipt always comes: a verification still running now is abandoned (the step then exits).
      deadline.passed = true;
      const reason = `the verification did not finish within ${settings.verifyTimeoutMs / 1000} s (input ${Inputs.VerifyTimeout})`;
      await publishError(upstream, settings, branch, store.get(State.StartHead) || null, reason);
      core.setFailed(`Perimeter: ${reason}`);
    }
  } finally {
    clearTimeout(timer);
  }
}

/** What main established and left for post: the start of the job and the perimeters file it judged by. */
interface MainState {
  startHead: string;
  startedAt: string;
  configText: string;
  configFile: string;
}

/** Main's state, or why there is none to trust (then nothing done during the job was verified). */
function readMainState(store: StateStore, settings: Settings): MainState | { problem: string } {
  const startHead = store.get(State.StartHead);
  const startedAt = store.get(State.StartedAt);
  const configText = readStateFile(store, CONFIG_FILE_KEYS);
  if (startHead && startedAt && configText !== 'missing' && configText !== 'changed')
    return {
      startHead,
      startedAt,
      configText,
      configFile: store.get(State.ConfigFile) || settings.configFile,
    };
  const mainError = store.get(State.MainError);
  return {
    problem:
      configText === 'changed' && startHead
        ? 'the perimeters main read were changed on the runner during the job, so nothing done during this job was verified'
        : mainError
          ? `the main step failed (${mainError.split('\n')[0]}), so nothing done during this job was verified`
          : 'the main step failed before it recorded the starting state of the repository, so nothing done during this job was verified',
  };
}

/**
 * Post as a script: main's state (its establish decision: the file and the perimeters it exposed), the refs and
 * the ledger gathered, the job judged, the verdict concluded, or handed to the verify job.
 */
async function verify(
  settings: Settings,
  upstream: RepoReads & RepoWrites & Receipts & Pick<Conversations, 'findOpenPullRequest'>,
  store: StateStore,
  branch: string,
  problems: string[],
  deadline: { passed: boolean },
): Promise<void> {
  const main = readMainState(store, settings);
  if ('problem' in main) {
    await publishError(upstream, settings, branch, store.get(State.StartHead) || null, main.problem);
    core.setFailed(`Perimeter: ${main.problem}`);
    return;
  }
  const { startHead, startedAt, configText, configFile } = main;
  if (store.get(State.Ready) !== 'true') problems.push('the main step failed before the gateway was ready');
  if (settings.receiptBy === 'verify-job') return handOver(settings, store, branch, main, problems);
  const names = JSON.parse(store.get(State.Perimeters) || '[]') as string[];
  const perimeters = parseConfig(configText, configFile)
    .perimeters.filter((spec) => names.includes(spec.name))
    .map((spec) => compilePerimeter(spec, configFile));

  const end = await snapshotRefs(upstream);
  const endedAt = new Date().toISOString();
  const start = readStartSnapshot(store, branch, startHead, end, problems);
  const ledger = await readLedger(store);

  const verdict = await verifyJob({
    upstream,
    branch,
    start,
    end,
    perimeters,
    ledger,
    directPushes: settings.directPushes,
    // staged writes leave the branch as it was: the change set is the work, and apply judges it
    requireChanges: settings.requireChanges && store.get(State.StagePath) === '',
    ignoreRefs: settings.ignoreRefs,
    problems,
    startedAt,
    writesStaged: store.get(State.StagePath) !== '',
    // the content rule scans as the gateway does, the job's own secrets among the credentials it knows
    filter: createSecretFilter({
      extraSecrets: [settings.token, store.get(State.LedgerKey)].filter(Boolean),
    }),
    ...stagedCount(store),
  });
  const logPath = store.get(State.LogPath);
  const gatewayLog =
    ledger?.ok === false || problems.length > 0
      ? logTail(logPath, [settings.token, store.get(State.LedgerKey)])
      : '';
  if (deadline.passed) return;
  const ledgerPath = store.get(State.LedgerPath);
  const included = ledgerPath !== '' && existsSync(ledgerPath);
  const json = receiptJson(verdict, {
    repository: `${settings.owner}/${settings.repo}`,
    context: settings.statusContext,
    run: { ...settings.run, url: settings.runUrl ?? null },
    config: { file: configFile, ref: store.get(State.ConfigRef) || settings.configRef, text: configText },
    perimeters: names,
    directPushes: settings.directPushes,
    requireChanges: settings.requireChanges && store.get(State.StagePath) === '',
    ignoreRefs: settings.ignoreRefs,
    window: { startedAt, endedAt },
    refs: { start, end },
    ledger,
    ledgerIncluded: included,
  });
  // with isolation: every host the agent asked its egress proxy for
  let summary = renderEgress(readEgress(ledgerPath));
  // what the agents asked to write (request_scope): a ready perimeters.yml change, never a grant
  const requests = ledger?.scopeRequests ?? [];
  if (requests.length > 0)
    summary += renderScopeRequests(requests, proposeScope(configText, configFile, requests), configFile);
  summary += await pullRequestLine(upstream, branch, perimeters);
  await conclude(upstream, settings, verdict, {
    context: settings.statusContext,
    shas: end[`refs/heads/${branch}`] ?? startHead,
    evidence: json,
    record: {
      json,
      ledger: included ? { path: ledgerPath } : null,
      staged: stagedChangeSet(store),
      to: settings,
    },
    summary,
    gatewayLog,
    abandoned: () => deadline.passed,
  });
}

/**
 * The pull request from the bound branch, linked from the receipt's summary, when a perimeter of the job may
 * open one: GitHub's answer now, never the agent's word. Best effort: a token that may not read pull requests
 * leaves the line out.
 */
async function pullRequestLine(
  upstream: Pick<Conversations, 'findOpenPullRequest'>,
  branch: string,
  perimeters: Perimeter[],
): Promise<string> {
  if (!perimeters.some((p) => p.tools.has('open_pull_request'))) return '';
  const pull = await upstream.findOpenPullRequest(branch).catch(() => null);
  if (pull === null) return '';
  const kind = pull.draft ? 'draft pull request' : 'pull request';
  return `\n**Pull request:** [${kind} #${pull.number}](${pull.url}) from ${inlineText(branch)} into ${inlineText(pull.base)}\n`;
}

/** The start snapshot main wrote; its digest travelled in the runner's state, out of the job's reach. */
function readStartSnapshot(
  store: StateStore,
  branch: string,
  startHead: string,
  end: RefSnapshot,
  problems: string[],
): RefSnapshot {
  const text = readStateFile(store, START_REFS_KEYS);
  if (text !== 'missing' && text !== 'changed') return JSON.parse(text) as RefSnapshot;
  problems.push(
    text === 'missing'
      ? 'the start snapshot of the refs is missing, so refs other than the bound branch were not checked'
      : 'the start snapshot of the refs was changed during the job, so refs other than the bound branch were not checked',
  );
  return { ...end, [`refs/heads/${branch}`]: startHead };
}

/** What main fixed for the verdict; {} when main did not get that far (then the inputs stand). */
function savedJobSettings(store: StateStore): Partial<JobSettings> {
  const saved = store.get(State.JobSettings);
  return saved ? (JSON.parse(saved) as JobSettings) : {};
}

/** null when main never started a gateway; a missing or broken ledger comes back with ok: false. */
async function readLedger(store: StateStore): Promise<LedgerFacts | null> {
  const path = store.get(State.LedgerPath);
  const key = store.get(State.LedgerKey);
  return path && key ? readLedgerFacts(path, key) : null;
}

/**
 * How many commits the gateway staged (writes: stage), for the receipt to say so rather than "no changes";
 * {} when writes were not staged. A count only: apply re-reads and re-judges the change set itself.
 */
function stagedCount(store: StateStore): { stagedCommits?: number } {
  const path = store.get(State.StagePath);
  if (!path) return {};
  if (!existsSync(path)) return { stagedCommits: 0 };
  try {
    const set = JSON.parse(readFileSync(path, 'utf8')) as { commits?: unknown };
    return Array.isArray(set.commits) ? { stagedCommits: set.commits.length } : {};
  } catch {
    return {};
  }
}

/** The change set the gateway kept (writes: stage), or null when nothing was staged. */
function stagedChangeSet(store: StateStore): string | null {
  const path = store.get(State.StagePath);
  if (!path) return null;
  if (!existsSync(path)) {
    core.info('Perimeter: writes were staged, and no commit was: there is nothing for perimeter/apply');
    return null;
  }
  core.info(
    `Perimeter: the staged commits go into the record as ${RECORD_FILES.staged}, for perimeter/apply`,
  );
  return path;
}
