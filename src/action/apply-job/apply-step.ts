import { DefaultArtifactClient } from '@actions/artifact';
import * as core from '@actions/core';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  applyChangeSet,
  judgeChangeSet,
  targetProblem,
  type ApplyTarget,
  type ApplyVerdict,
} from '../../apply/apply-changes.js';
import { ChangeSetError, readChangeSet, type StagedChangeSet, type Upstream } from '../../github/index.js';
import type { Perimeter } from '../../policy/index.js';
import { createSecretFilter } from '../../safety/index.js';
import {
  AgentJobError,
  agentJobWindow,
  inlineText,
  judgeRecordArtifact,
  RecordEvidenceError,
  renderNotice,
  type Receipt,
  type RecordEvidence,
} from '../../verify/index.js';
import { ActionError, readConfigFile } from '../config-loader.js';
import { establishPerimeters } from '../establish.js';
import { Inputs } from '../constants.js';
import { readApplySettings, STAGED_FILE, type ApplySettings } from './apply-inputs.js';
import { publishBestEffort, publishReceipt } from '../publish.js';
import { runStep } from '../step.js';
import { receiptSettings, reviewMode, sendToReview } from './send-to-review.js';
import { converse } from './apply-conversation.js';

/**
 * The apply job (`writes: stage`): reads the staged change set as untrusted, re-judges every commit against
 * perimeters.yml from the trusted ref, writes it to the bound branch only when nothing is out of scope, and
 * posts the receipt. Nothing is written when anything is wrong. The branch, the perimeters and the config
 * come from this step's inputs and the head from GitHub; the change set brings commits and objects only.
 */
export async function runApply(): Promise<void> {
  await runStep({
    read: () => readApplySettings(),
    secrets: (settings) => (settings.reviewToken === null ? [] : [settings.reviewToken]),
    done: 'applied',
    run: async ({ upstream, settings }) => {
      const file = await changeSetFile(upstream, settings);
      const set = readChangeSet(JSON.parse(await readFile(file, 'utf8')) as unknown);
      const verdict = await apply(upstream, settings, set);
      await concludeApply(upstream, settings, verdict);
      await converse(upstream, settings, set, verdict);
    },
    failed: async ({ upstream, settings }, error, message) => {
      const reason = error instanceof SyntaxError ? `the staged change set is not JSON: ${message}` : message;
      const known = [ActionError, ChangeSetError, AgentJobError, RecordEvidenceError];
      if (!known.some((type) => error instanceof type)) core.debug(String((error as Error).stack));
      await publishBestEffort(
        upstream,
        receiptSettings,
        notice(settings, { state: 'error', description: `Not applied: ${reason}` }),
        { sha: null, branch: settings.branch },
      );
      core.setFailed(`nothing was applied: ${reason}`);
    },
  });
}

/** The apply job's judging: establish the perimeters, judge every staged commit, write what may land. */
async function apply(
  upstream: Upstream,
  settings: ApplySettings,
  set: StagedChangeSet,
): Promise<ApplyVerdict> {
  const { branch } = settings;
  // The heads as GitHub lists them at the start (never the change set's word): the target's head, and for a
  // config-ref given as a SHA, what it names.
  // and the default branch, which a perimeter may be bound to only when its branches name it.
  const [heads, defaultBranch] = await Promise.all([
    upstream.listRefs(),
    upstream.getRepository().then((r) => r.defaultBranch),
  ]);
  const head = heads.get(`refs/heads/${branch}`);
  if (head === undefined)
    throw new ActionError(
      `branch "${branch}" does not exist in ${settings.owner}/${settings.repo}; set the ${Inputs.Branch} input to the branch the agent job was bound to`,
    );
  const target: ApplyTarget = { branch, head };
  const misfit = await targetProblem(upstream, set, target);
  if (misfit !== null) {
    core.error(`Not applied: ${misfit.reason}`, { title: 'Perimeter: staged change set refused' });
    const headline = misfit.state === 'failure' ? 'Refused, nothing applied' : 'Not applied';
    return refused(misfit.state, `${headline}: ${misfit.reason}`, head, misfit.reason, null);
  }
  const configRef = settings.configRef ?? defaultBranch;
  const { text } = await readConfigFile(upstream, settings.configFile, configRef);
  // Judged as named, the default branch too: a config read from the branch the changes go to cannot judge them.
  const { perimeters, trust, warning } = await establishPerimeters(upstream, {
    file: settings.configFile,
    text,
    names: settings.perimeters,
    configRef,
    branch,
    defaultBranch,
    // the same trust rule main applied to this run's trigger: the set may use only what main exposed
    eventName: settings.eventName,
    event: settings.event,
    heads: Object.fromEntries(heads),
  });
  if (trust !== null) core.info(trust);
  if (warning !== null) core.warning(warning);
  core.info(
    `${settings.configFile} at ${configRef}: judging ${perimeters.map((p) => p.name).join(', ')} on branch ${branch} at ${head.slice(0, 7)}`,
  );
  // Paths a commit's perimeter may send to review count as in scope here; they decide where the commits go below.
  // the content rule scans as the gateway does, this job's own secrets among the credentials it knows
  const filter = createSecretFilter({
    extraSecrets: [settings.token, settings.reviewToken ?? ''].filter(Boolean),
  });
  const judged = await judgeChangeSet(upstream, set, perimeters, branch, filter);
  if (judged.violations.length > 0) {
    for (const v of judged.violations.slice(0, 10))
      core.error(v.message, {
        title: 'Perimeter: staged change refused',
        ...(v.path ? { file: v.path } : {}),
      });
    const paths = judged.violations.map((v) => v.path ?? v.message);
    return refused(
      'failure',
      `Refused, nothing applied: ${paths.join(', ')}`,
      head,
      judged.violations.map((v) => v.message).join('; '),
      perimeters,
    );
  }
  const { review } = judged;
  const mode = review.length === 0 ? settings.mode : reviewMode(settings, review);
  if (review.length > 0)
    core.info(
      `${review.length} path(s) sent to review: a draft pull request from ${mode.kind === 'pull-request' ? mode.branch : ''}, "${branch}" stays where it is`,
    );
  const result = await applyChangeSet(upstream, set, judged, target, mode);
  if (result.state === 'blocked')
    return refused('error', `Not applied: ${result.reason}`, head, result.reason, perimeters);
  core.setOutput('head', result.head);
  core.setOutput('commits', result.commits.join(' '));
  const count = `${result.commits.length} staged commit(s)`;
  const scope = `${judged.paths.length} path(s), all in scope`;
  const where = head === set.base ? '' : ` on top of ${head.slice(0, 7)}`;
  if (result.state === 'opened') core.setOutput('pull-request', result.pull.url);
  if (result.state === 'opened' && review.length > 0)
    return { ...(await sendToReview(upstream, settings, result, review, `${count}${where}`)), perimeters };
  const description =
    result.state === 'opened'
      ? `${count} in draft PR #${result.pull.number}${where}: ${scope}`
      : `${count} applied${where}: ${scope}`;
  // into apply's own pull request, the changes did not reach the bound branch: the agent's has nothing to show
  const applied = result.state !== 'opened';
  return { state: 'success', description, sha: result.head, failure: null, applied, perimeters };
}

const refused = (
  state: 'failure' | 'error',
  description: string,
  sha: string,
  why: string,
  perimeters: Perimeter[] | null,
): ApplyVerdict => ({
  state,
  description,
  sha,
  failure: `nothing was applied: ${why}`,
  applied: false,
  perimeters,
});

/** The change set file: the `change-set` input (a file, or a directory holding it), else the record. */
async function changeSetFile(upstream: Upstream, settings: ApplySettings): Promise<string> {
  if (settings.changeSet !== null) {
    const info = await stat(settings.changeSet).catch(() => null);
    if (!info) throw new ActionError(`change-set: ${settings.changeSet} does not exist`);
    return info.isDirectory() ? join(settings.changeSet, STAGED_FILE) : settings.changeSet;
  }
  const evidence = await recordEvidence(upstream, settings);
  const client = new DefaultArtifactClient();
  const { downloadPath, digestMismatch } = await client.downloadArtifact(evidence.id, {
    path: join(settings.tempDir, `perimeter-apply-${evidence.id}`),
    expectedHash: evidence.digest,
  });
  if (digestMismatch !== false)
    throw new RecordEvidenceError(
      `the record artifact "${settings.record}" (id ${evidence.id}) downloaded is not the content GitHub recorded (${evidence.digest})`,
    );
  return join(downloadPath ?? '', STAGED_FILE);
}

/**
 * The record artifact, if GitHub's own records show the agent job's post step uploaded it (its jobs API and
 * its artifact list, never anything the agent job handed over); throws why not.
 */
async function recordEvidence(upstream: Upstream, settings: ApplySettings): Promise<RecordEvidence> {
  const runId = Number(settings.run.id);
  const [jobs, artifacts] = await Promise.all([
    upstream.listRunJobs(runId),
    upstream.listRunArtifacts(runId, settings.record),
  ]);
  const agent = agentJobWindow(jobs, {
    name: settings.agentJob ?? '',
    runId,
    attempt: Number(settings.run.attempt) || 1,
  });
  const evidence = judgeRecordArtifact(settings.record, artifacts, agent.jobs);
  core.info(
    `record "${settings.record}": artifact ${evidence.id} (${evidence.digest}), uploaded by the post step of job "${evidence.job}"`,
  );
  return evidence;
}

/** The verdict as the apply receipt: a notice naming the state, or the verdict's own heading and body. */
function notice(
  settings: ApplySettings,
  verdict: Pick<ApplyVerdict, 'state' | 'description' | 'heading' | 'body'>,
): Receipt {
  return renderNotice(
    {
      state: verdict.state,
      heading: verdict.heading ?? `Perimeter apply: ${verdict.state}`,
      description: verdict.description,
      body: verdict.body ?? inlineText(verdict.description),
    },
    { runUrl: settings.runUrl, context: settings.statusContext },
  );
}

/** The conclude step: the receipt (the summary, then a commit status on the verdict's commit), then the outcome. */
async function concludeApply(
  upstream: Upstream,
  settings: ApplySettings,
  verdict: ApplyVerdict,
): Promise<void> {
  await publishReceipt(upstream, receiptSettings, notice(settings, verdict), verdict.sha);
  if (verdict.failure !== null) core.setFailed(verdict.failure);
}
