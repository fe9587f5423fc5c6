import * as core from '@actions/core';
import { tmpdir } from 'node:os';
import type { Receipts, RepoCoordinates, RepoReads, RepoWrites, RunRecords } from '../../github/index.js';
import { compilePerimeter, parseConfig } from '../../policy/index.js';
import { receiptJson, snapshotRefs, STATUS_CONTEXT, verifyJob } from '../../verify/index.js';
import { readConfigFile } from '../config-loader.js';
import { checkConfigRef } from '../config-ref.js';
import { VerifyInputs } from '../constants.js';
import { HandoffError, parseHandoff, type Handoff } from '../handoff.js';
import { checkPending, findAgentJob, receiptWindowOf } from './handoff-check.js';
import { readRecordSettings, runFacts, type RecordSettings, type RunFacts } from '../inputs.js';
import { publishJudged, readVerifyBasics, type VerifyBasics } from './judging-step.js';
import { publishError } from '../publish.js';
import { recordLine, uploadRecord } from '../record.js';
import { runStep } from '../step.js';

type Env = Record<string, string | undefined>;

interface VerifySettings extends VerifyBasics {
  handoff: string;
  runId: number;
  /** this job, as the runner names it: its record is this job's */
  run: RunFacts;
  /** GITHUB_SHA, where a receipt goes when the handoff names no branch */
  sha: string;
  record: RecordSettings;
  tempDir: string;
}

function readVerifySettings(env: Env = process.env): VerifySettings {
  return {
    ...readVerifyBasics(env),
    handoff: core.getInput(VerifyInputs.Handoff),
    runId: Number(runFacts(env).id) || 0,
    run: runFacts(env),
    sha: env.GITHUB_SHA ?? '',
    record: readRecordSettings(env),
    tempDir: env.RUNNER_TEMP || tmpdir(),
  };
}

/**
 * The verify job (perimeter/verify): on a runner the agent never touched, with a token of its own, it judges
 * the agent job from GitHub's records and main's handoff, which it checks against GitHub first. Nothing the
 * agent job left behind is trusted; the receipt is posted last.
 */
export async function runVerify(): Promise<void> {
  let handoff: Handoff | null = null;
  await runStep({
    read: () => readVerifySettings(),
    done: 'verified',
    run: ({ upstream, settings }) => {
      handoff = parseHandoff(settings.handoff);
      return verify(upstream, settings, handoff);
    },
    failed: async ({ upstream, settings }, error, message) => {
      const reason = error instanceof HandoffError ? message : `the verify job could not verify: ${message}`;
      await publishError(
        upstream,
        {
          runUrl: settings.runUrl,
          receiptBy: 'post',
          receiptAs: settings.receiptAs,
          statusContext: handoff?.pending.context ?? STATUS_CONTEXT,
        },
        handoff?.branch ?? '',
        handoff === null ? settings.sha || null : null,
        reason,
      );
      core.setFailed(`Perimeter: ${reason}`);
    },
  });
}

async function verify(
  upstream: RepoCoordinates & RepoReads & RepoWrites & Receipts & RunRecords,
  settings: VerifySettings,
  handoff: Handoff,
): Promise<void> {
  const repository = `${settings.owner}/${settings.repo}`;
  if (handoff.repository !== repository || handoff.run.id !== settings.runId)
    throw new HandoffError(
      `the handoff is from ${handoff.repository} run ${handoff.run.id}, not from this run (${repository} run ${settings.runId})`,
    );
  const job = findAgentJob(await upstream.listRunJobs(handoff.run.id), handoff);
  checkPending(await upstream.listStatuses(handoff.pending.sha), handoff);
  core.info(
    `agent job "${job.name}" (${job.id}): ${job.startedAt} to ${job.completedAt}, ${job.conclusion ?? 'no conclusion'}`,
  );

  // The perimeters from the trusted ref, read here: they must be the ones main read.
  const { file, ref, sha } = handoff.config;
  const config = await readConfigFile(upstream, file, ref);
  if (config.sha !== sha)
    throw new HandoffError(
      `${file} at ${ref} is blob ${config.sha.slice(0, 7)} now, not ${sha.slice(0, 7)} as main read it: the perimeters changed since the agent job started, so it was not verified`,
    );
  const specs = parseConfig(config.text, file).perimeters;
  const missing = handoff.perimeters.filter((name) => !specs.some((spec) => spec.name === name));
  if (missing.length > 0)
    throw new HandoffError(`the handoff exposes perimeters ${file} does not define: ${missing.join(', ')}`);
  const perimeters = specs
    .filter((spec) => handoff.perimeters.includes(spec.name))
    .map((spec) => compilePerimeter(spec, file));

  const end = await snapshotRefs(upstream);
  // The handoff names the ref main read: the default branch when no config-ref was given, which cannot be told
  // from the default branch named. It is judged as main judges an absent config-ref, so a job main passed is not
  // refused here. A SHA is looked up in this job's own snapshot, never in the handoff's start refs.
  const { defaultBranch } = await upstream.getRepository();
  const warning = checkConfigRef(
    {
      configRef: ref === defaultBranch ? null : ref,
      defaultBranch,
      branch: handoff.branch,
      perimeters,
      heads: end,
    },
    (message) => new HandoffError(`${file} at ${ref} cannot judge the agent job: ${message}`),
  );
  if (warning !== null) core.warning(warning);
  const endedAt = new Date().toISOString();
  // with a check run for a receipt, a check run of its name that the verify job did not create is forged too
  const window = { ...receiptWindowOf(handoff, job), checkRuns: settings.receiptAs !== 'status' };
  const verdict = await verifyJob({
    upstream,
    branch: handoff.branch,
    start: handoff.startRefs,
    end,
    perimeters,
    ledger: null,
    ledgerExpected: false,
    directPushes: handoff.directPushes,
    ignoreRefs: handoff.ignoreRefs,
    startedAt: handoff.startedAt,
    identity: handoff.identity,
    // main took the snapshot before it posted the pending status
    startTaken: { before: handoff.pending.createdAt, jobEnded: window.until },
    receiptWindow: window,
  });
  if (job.conclusion !== 'success')
    verdict.notes.push(`the agent job ended ${job.conclusion ?? 'without a conclusion'}`);
  // The verify job's record holds its own receipt only: the agent job's ledger is not evidence here.
  const record = await uploadRecord(
    settings,
    receiptJson(verdict, {
      repository,
      context: handoff.pending.context,
      run: { ...settings.run, url: settings.runUrl ?? null },
      config: { file, ref, text: config.text },
      perimeters: handoff.perimeters,
      directPushes: handoff.directPushes,
      ignoreRefs: handoff.ignoreRefs,
      window: { startedAt: handoff.startedAt, endedAt },
      refs: { start: handoff.startRefs, end },
      ledger: null,
      ledgerIncluded: false,
      receiptWindow: window,
    }),
    null,
  );
  return publishJudged(upstream, settings, verdict, {
    context: handoff.pending.context,
    config: { file, ref, blobSha: sha },
    sha: end[`refs/heads/${handoff.branch}`] ?? handoff.pending.sha,
    recordNote: recordLine(record),
  });
}
