import { DefaultArtifactClient } from '@actions/artifact';
import * as core from '@actions/core';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  applyChangeSet,
  judgeChangeSet,
  targetProblem,
  type ApplyTarget,
} from '../../apply/apply-changes.js';
import { ChangeSetError, readChangeSet, type StagedChangeSet, type Upstream } from '../../github/index.js';
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
import { ActionError, loadPerimeters, readConfigFile } from '../config-loader.js';
import { checkConfigRef } from '../config-ref.js';
import { Inputs } from '../constants.js';
import { applyTrust } from '../trust-gate.js';
import { readApplySettings, STAGED_FILE, type ApplySettings } from './apply-inputs.js';
import { publishBestEffort, publishReceipt } from '../publish.js';
import { runStep } from '../step.js';
import { receiptSettings, reviewMode, sendToReview } from './send-to-review.js';
import { converse, type Outcome } from './apply-conversation.js';

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
      const outcome = await apply(upstream, settings, set);
      await converse(upstream, settings, set, outcome);
    },
    failed: async ({ upstream, settings }, error, message) => {
      const reason = error instanceof SyntaxError ? `the staged change set is not JSON: ${message}` : message;
      const known = [ActionError, ChangeSetError, AgentJobError, RecordEvidenceError];
      if (!known.some((type) => error instanceof type)) core.debug(String((error as Error).stack));
      await publishBestEffort(
        upstream,
        receiptSettings,
        notice(settings, 'error', `Not applied: ${reason}`),
        { sha: null, branch: settings.branch },
      );
      core.setFailed(`nothing was applied: ${reason}`);
    },
  });
}

async function apply(upstream: Upstream, settings: ApplySettings, set: StagedChangeSet): Promise<Outcome> {
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
    await finish(upstream, settings, head, misfit.state, `${headline}: ${misfit.reason}`);
    core.setFailed(`nothing was applied: ${misfit.reason}`);
    return { applied: false, description: `${headline}: ${misfit.reason}`, perimeters: null };
  }
  const configRef = settings.configRef ?? defaultBranch;
  const { text } = await readConfigFile(upstream, settings.configFile, configRef);
  const { config, perimeters: selected } = loadPerimeters(
    text,
    settings.configFile,
    settings.perimeters,
    branch,
    defaultBranch,
  );
  // The same trust rule main applied to this run's trigger: the set may use only what main exposed.
  const { exposed: perimeters, note } = applyTrust(config, selected, settings.eventName, settings.event);
  if (note !== null) core.info(note);
  // Judged as named, the default branch too: a config read from the branch the changes go to cannot judge them.
  await checkConfigRef(upstream, {
    configRef,
    defaultBranch,
    branch,
    perimeters,
    heads: Object.fromEntries(heads),
  });
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
    const description = `Refused, nothing applied: ${paths.join(', ')}`;
    await finish(upstream, settings, head, 'failure', description);
    core.setFailed(`nothing was applied: ${judged.violations.map((v) => v.message).join('; ')}`);
    return { applied: false, description, perimeters };
  }
  const { review } = judged;
  const mode = review.length === 0 ? settings.mode : reviewMode(settings, review);
  if (review.length > 0)
    core.info(
      `${review.length} path(s) sent to review: a draft pull request from ${mode.kind === 'pull-request' ? mode.branch : ''}, "${branch}" stays where it is`,
    );
  const result = await applyChangeSet(upstream, set, judged, target, mode);
  if (result.state === 'blocked') {
    await finish(upstream, settings, head, 'error', `Not applied: ${result.reason}`);
    core.setFailed(`nothing was applied: ${result.reason}`);
    return { applied: false, description: `Not applied: ${result.reason}`, perimeters };
  }
  core.setOutput('head', result.head);
  core.setOutput('commits', result.commits.join(' '));
  const count = `${result.commits.length} staged commit(s)`;
  const scope = `${judged.paths.length} path(s), all in scope`;
  const where = head === set.base ? '' : ` on top of ${head.slice(0, 7)}`;
  if (result.state === 'opened' && review.length > 0) {
    core.setOutput('pull-request', result.pull.url);
    await sendToReview(upstream, settings, result, review, `${count}${where}`);
    return {
      applied: false,
      description: `${count}${where} sent to review in draft pull request #${result.pull.number}`,
      perimeters,
    };
  }
  if (result.state === 'opened') {
    core.setOutput('pull-request', result.pull.url);
    const description = `${count} in draft PR #${result.pull.number}${where}: ${scope}`;
    await finish(upstream, settings, result.head, 'success', description);
    // the changes went to apply's own pull request, not the bound branch: the agent's has nothing to show
    return { applied: false, description, perimeters };
  }
  const description = `${count} applied${where}: ${scope}`;
  await finish(upstream, settings, result.head, 'success', description);
  return { applied: true, description, perimeters };
}

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

function notice(
  settings: ApplySettings,
  state: 'success' | 'failure' | 'error',
  description: string,
): Receipt {
  return renderNotice(
    { state, heading: `Perimeter apply: ${state}`, description, body: inlineText(description) },
    { runUrl: settings.runUrl, context: settings.statusContext },
  );
}

/** The receipt: the summary, then a commit status on `sha` (the new head, or the branch's head). */
async function finish(
  upstream: Upstream,
  settings: ApplySettings,
  sha: string,
  state: 'success' | 'failure' | 'error',
  description: string,
): Promise<void> {
  await publishReceipt(upstream, receiptSettings, notice(settings, state, description), sha);
}
