import { DefaultArtifactClient } from '@actions/artifact';
import * as core from '@actions/core';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { applyChangeSet, judgeChangeSet } from '../../apply/apply-changes.js';
import { ChangeSetError, readChangeSet, type StagedChangeSet, type Upstream } from '../../github/index.js';
import { inlineText, renderNotice, type Receipt } from '../../verify/index.js';
import { ActionError, loadPerimeters, readConfigFile } from '../config-loader.js';
import { checkConfigRef } from '../config-ref.js';
import { readApplySettings, STAGED_FILE, type ApplySettings } from './apply-inputs.js';
import { publishBestEffort, publishReceipt } from '../publish.js';
import { runStep } from '../step.js';

/**
 * The apply job (`writes: stage`): reads the staged change set as untrusted, re-judges every commit against
 * perimeters.yml from the trusted ref, writes it to the bound branch only when nothing is out of scope, and
 * posts the receipt. Nothing is written when anything is wrong.
 */
export async function runApply(): Promise<void> {
  let set: StagedChangeSet | null = null;
  await runStep({
    read: () => readApplySettings(),
    done: 'applied',
    run: async ({ upstream, settings }) => {
      set = readChangeSet(JSON.parse(await readFile(await changeSetFile(settings), 'utf8')) as unknown);
      await apply(upstream, settings, set);
    },
    failed: async ({ upstream, settings }, error, message) => {
      const reason = error instanceof SyntaxError ? `the staged change set is not JSON: ${message}` : message;
      if (!(error instanceof ActionError || error instanceof ChangeSetError))
        core.debug(String((error as Error).stack));
      await publishBestEffort(
        upstream,
        receiptSettings,
        notice(settings, 'error', `Not applied: ${reason}`),
        {
          sha: null,
          branch: set?.branch ?? null,
        },
      );
      core.setFailed(`nothing was applied: ${reason}`);
    },
  });
}

async function apply(upstream: Upstream, settings: ApplySettings, set: StagedChangeSet): Promise<void> {
  // The heads as GitHub lists them at the start (never the change set's word), for a config-ref given as a SHA.
  const [heads, defaultBranch] = await Promise.all([
    upstream.listRefs(),
    settings.configRef === null ? upstream.getRepository().then((r) => r.defaultBranch) : '',
  ]);
  const configRef = settings.configRef ?? defaultBranch;
  const { text } = await readConfigFile(upstream, settings.config, configRef);
  const { perimeters } = loadPerimeters(text, settings.config, settings.perimeters, set.branch);
  // Judged as named, the default branch too: a config read from the branch the changes go to cannot judge them.
  checkConfigRef({
    configRef,
    defaultBranch,
    branch: set.branch,
    perimeters,
    heads: Object.fromEntries(heads),
  });
  const judged = await judgeChangeSet(upstream, set, perimeters);
  if (judged.violations.length > 0) {
    for (const v of judged.violations.slice(0, 10))
      core.error(v.message, {
        title: 'Perimeter: staged change refused',
        ...(v.path ? { file: v.path } : {}),
      });
    const paths = judged.violations.map((v) => v.path ?? v.message);
    await finish(
      upstream,
      settings,
      set.branch,
      null,
      'failure',
      `Refused, nothing applied: ${paths.join(', ')}`,
    );
    core.setFailed(`nothing was applied: ${judged.violations.map((v) => v.message).join('; ')}`);
    return;
  }
  const result = await applyChangeSet(upstream, set, judged, settings.mode);
  if (result.state === 'blocked') {
    await finish(upstream, settings, set.branch, null, 'error', `Not applied: ${result.reason}`);
    core.setFailed(`nothing was applied: ${result.reason}`);
    return;
  }
  core.setOutput('head', result.head);
  core.setOutput('commits', result.commits.join(' '));
  const count = `${result.commits.length} staged commit(s)`;
  const scope = `${judged.paths.length} path(s), all in scope`;
  if (result.state === 'opened') {
    core.setOutput('pull-request', result.pull.url);
    await finish(
      upstream,
      settings,
      null,
      result.head,
      'success',
      `${count} in draft PR #${result.pull.number}: ${scope}`,
    );
    return;
  }
  const where = result.onTopOf === set.base ? '' : ` on top of ${result.onTopOf.slice(0, 7)}`;
  await finish(upstream, settings, set.branch, result.head, 'success', `${count} applied${where}: ${scope}`);
}

/** The change set file: the `change-set` input (a file, or a directory holding it), else the artifact. */
async function changeSetFile(settings: ApplySettings): Promise<string> {
  if (settings.changeSet !== null) {
    const info = await stat(settings.changeSet).catch(() => null);
    if (!info) throw new ActionError(`change-set: ${settings.changeSet} does not exist`);
    return info.isDirectory() ? join(settings.changeSet, STAGED_FILE) : settings.changeSet;
  }
  const client = new DefaultArtifactClient();
  const { artifact } = await client.getArtifact(settings.record);
  const { downloadPath } = await client.downloadArtifact(artifact.id, {
    path: join(settings.tempDir, `perimeter-apply-${artifact.id}`),
  });
  return join(downloadPath ?? '', STAGED_FILE);
}

/** Apply posts its receipt as a commit status, itself. */
const receiptSettings = { receiptBy: 'post', receiptAs: 'status' } as const;

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

/** The receipt: the summary, then a commit status on the new head (or the branch's head). */
async function finish(
  upstream: Upstream,
  settings: ApplySettings,
  branch: string | null,
  sha: string | null,
  state: 'success' | 'failure' | 'error',
  description: string,
): Promise<void> {
  const target = sha ?? (branch ? await upstream.tryGetBranchHead(branch) : null);
  const receipt = notice(settings, state, description);
  if (target === null)
    await publishBestEffort(upstream, receiptSettings, receipt, { sha: null, branch: null });
  else await publishReceipt(upstream, receiptSettings, receipt, target);
}
