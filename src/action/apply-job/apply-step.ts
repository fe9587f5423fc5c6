import { DefaultArtifactClient } from '@actions/artifact';
import * as core from '@actions/core';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { applyChangeSet, judgeChangeSet } from '../../apply/apply-changes.js';
import { ChangeSetError, readChangeSet } from '../../github/staged/change-set.js';
import { createOctokitUpstream } from '../../github/octokit/octokit-upstream.js';
import type { StagedChangeSet } from '../../github/staged/staged-upstream.js';
import type { Receipts, RepoReads } from '../../github/upstream.js';
import { clip, inlineText, MAX_DESCRIPTION, visible } from '../../verify/index.js';
import { ActionError, loadPerimeters, readConfigFile } from '../config-loader.js';
import { readApplySettings, STAGED_FILE, type ApplySettings } from './apply-inputs.js';

/**
 * The apply job (`writes: stage`): reads the staged change set as untrusted, re-judges every commit against
 * perimeters.yml from the trusted ref, writes it to the bound branch only when nothing is out of scope, and
 * posts the receipt. Nothing is written when anything is wrong.
 */
export async function runApply(): Promise<void> {
  let settings: ApplySettings;
  try {
    settings = readApplySettings();
  } catch (error) {
    core.setFailed(`nothing was applied: ${(error as Error).message}`);
    return;
  }
  core.setSecret(settings.token);
  const upstream = createOctokitUpstream({
    token: settings.token,
    owner: settings.owner,
    repo: settings.repo,
    baseUrl: settings.apiUrl,
  });
  let set: StagedChangeSet | null = null;
  try {
    set = readChangeSet(JSON.parse(await readFile(await changeSetFile(settings), 'utf8')) as unknown);
    const configRef = settings.configRef ?? (await upstream.getRepository()).defaultBranch;
    if (configRef === set.branch || configRef === `refs/heads/${set.branch}`)
      throw new ActionError(
        `config-ref ${JSON.stringify(configRef)} is the branch the staged changes go to: it cannot judge them`,
      );
    const { text } = await readConfigFile(upstream, settings.config, configRef);
    const { perimeters } = loadPerimeters(text, settings.config, settings.perimeters, set.branch);
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
    await finish(
      upstream,
      settings,
      set.branch,
      result.head,
      'success',
      `${count} applied${where}: ${scope}`,
    );
  } catch (error) {
    const reason =
      error instanceof SyntaxError
        ? `the staged change set is not JSON: ${error.message}`
        : (error as Error).message;
    if (!(error instanceof ActionError || error instanceof ChangeSetError))
      core.debug(String((error as Error).stack));
    await finish(upstream, settings, set?.branch ?? null, null, 'error', `Not applied: ${reason}`).catch(
      () => undefined,
    );
    core.setFailed(`nothing was applied: ${reason}`);
  }
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

/** The receipt: summary line, then a commit status on the new head (or the branch's head). */
async function finish(
  upstream: RepoReads & Receipts,
  settings: ApplySettings,
  branch: string | null,
  sha: string | null,
  state: 'success' | 'failure' | 'error',
  description: string,
): Promise<void> {
  core.summary.addHeading(`Perimeter apply: ${state}`, 2).addRaw(inlineText(description), true);
  await core.summary.write().catch(() => undefined);
  const target = sha ?? (branch ? await upstream.tryGetBranchHead(branch) : null);
  if (!target) return;
  await upstream.createStatus(target, {
    state,
    context: settings.statusContext,
    description: clip(visible(description), MAX_DESCRIPTION),
    targetUrl: settings.runUrl,
  });
}
