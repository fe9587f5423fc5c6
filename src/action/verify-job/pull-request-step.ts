import * as core from '@actions/core';
import type {
  PullRequestInfo,
  PullRequests,
  Receipts,
  RepoCoordinates,
  RepoReads,
} from '../../github/index.js';
import { assignPullRequest, compilePerimeter, DEFAULT_CONFIG_FILE, parseConfig } from '../../policy/index.js';
import { PULL_REQUEST_COMMIT_LIMIT, STATUS_CONTEXT, verifyPullRequest } from '../../verify/index.js';
import { readConfigFile } from '../config-loader.js';
import { checkConfigRef } from '../config-ref.js';
import { VerifyInputs } from '../constants.js';
import { configFile } from '../inputs.js';
import { pullRequestHeadSha, pullRequestNumber } from './pull-request-event.js';
import { publishJudged, readVerifyBasics, type VerifyBasics } from './judging-step.js';
import { publishError } from '../publish.js';
import { runStep } from '../step.js';

type Env = Record<string, string | undefined>;

interface GateSettings extends VerifyBasics {
  config: string;
  /** the pull request the event names */
  number: number;
}

/** Why the gate judged nothing: said in the receipt as it is, and never a success. */
class GateRefusal extends Error {
  override name = 'GateRefusal';
}

function readGateSettings(env: Env = process.env): GateSettings {
  return {
    ...readVerifyBasics(env),
    config: configFile(core.getInput(VerifyInputs.Config) || DEFAULT_CONFIG_FILE),
    number: pullRequestNumber(env),
  };
}

/**
 * The pull-request gate (perimeter/verify on pull_request_target): for agents that push from elsewhere
 * (Copilot coding agent), it judges every commit of the pull request against the perimeter perimeters.yml on
 * the default branch assigns to its author and head branch, and posts the receipt on the head commit. It
 * never checks out or runs the pull request's code: it reads everything through the API.
 */
export async function runPullRequestGate(): Promise<void> {
  let head: string | null = null;
  await runStep({
    read: () => readGateSettings(),
    done: 'verified',
    run: async ({ upstream, settings }) => {
      // First, before any read that can fail: a receipt an earlier run left on the head does not stand while
      // this one judges (a head already judged `success` for another perimeter, say).
      head = pullRequestHeadSha(process.env);
      if (head !== null) await markPending(upstream, settings, head);
      const pull = await upstream.getPullRequest(settings.number);
      if (pull.headSha !== head) {
        head = pull.headSha;
        await markPending(upstream, settings, head);
      }
      await gate(upstream, settings, pull);
    },
    failed: async ({ upstream, settings }, error, message) => {
      const reason =
        error instanceof GateRefusal ? message : `the pull-request gate could not verify: ${message}`;
      const context = {
        runUrl: settings.runUrl,
        receiptBy: 'post' as const,
        receiptAs: settings.receiptAs,
        statusContext: STATUS_CONTEXT,
      };
      if (head !== null) await publishError(upstream, context, '', head, reason);
      core.setFailed(`Perimeter: ${reason}`);
    },
  });
}

async function markPending(upstream: Receipts, settings: GateSettings, sha: string): Promise<void> {
  if (settings.receiptAs === 'check-run') return;
  await upstream.createStatus(sha, {
    state: 'pending',
    context: STATUS_CONTEXT,
    description: `Judging each commit of pull request #${settings.number}`,
    ...(settings.runUrl !== undefined ? { targetUrl: settings.runUrl } : {}),
  });
}

async function gate(
  upstream: RepoCoordinates & RepoReads & Receipts & PullRequests,
  settings: GateSettings,
  pull: PullRequestInfo,
): Promise<void> {
  const repository = `${settings.owner}/${settings.repo}`;
  if (pull.state !== 'open')
    throw new GateRefusal(
      `pull request #${pull.number} is ${pull.state}: only open pull requests are judged`,
    );
  if (pull.headRepository?.toLowerCase() !== repository.toLowerCase())
    throw new GateRefusal(
      `pull request #${pull.number} comes from ${pull.headRepository ?? 'a deleted repository'}, not from a branch of ${repository}: the gate judges pull requests from this repository's branches only`,
    );
  const { defaultBranch } = await upstream.getRepository();
  // A receipt is on a commit, not on a pull request: judged against any other base, a success on this head
  // would stand for a later pull request into the default branch too.
  if (pull.baseRef !== defaultBranch)
    throw new GateRefusal(
      `pull request #${pull.number} is into "${pull.baseRef}", not the default branch "${defaultBranch}": the gate judges pull requests into the default branch only`,
    );
  // perimeters.yml from the default branch (where pull_request_target's workflow comes from), never the head
  const config = await readConfigFile(upstream, settings.config, defaultBranch);
  const specs = parseConfig(config.text, settings.config).perimeters;
  const assignment = assignPullRequest(specs, { author: pull.author, headBranch: pull.headRef });
  if (assignment.kind !== 'assigned') throw new GateRefusal(assignment.reason);
  const perimeter = compilePerimeter(assignment.spec, settings.config);
  // Judged as a named ref, as apply judges it, not as main judges an absent config-ref (which refuses only the
  // bound branch): the gate always reads the default branch, and a perimeter whose branches list lets agents be
  // bound to that branch would be judged by a file its own agents may have written. Written refs/heads/..., the
  // ref is never read as a commit SHA, so no heads are needed.
  checkConfigRef(
    {
      configRef: `refs/heads/${defaultBranch}`,
      defaultBranch,
      branch: pull.headRef,
      perimeters: [perimeter],
      heads: {},
    },
    (message) =>
      new GateRefusal(
        `${settings.config} on the default branch cannot judge pull request #${pull.number}: ${message}`,
      ),
  );
  core.info(
    `pull request #${pull.number} by ${pull.author} from "${pull.headRef}": perimeter "${perimeter.name}" (${assignment.rule})`,
  );

  const commits =
    pull.commits > PULL_REQUEST_COMMIT_LIMIT ? [] : await upstream.listPullRequestCommits(pull.number);
  const verdict = await verifyPullRequest({
    upstream,
    pull,
    commits,
    baseHead: await upstream.getBranchHead(pull.baseRef),
    perimeter,
    assignedBy: assignment.rule,
  });
  return publishJudged(upstream, settings, verdict, {
    context: STATUS_CONTEXT,
    config: { file: settings.config, ref: defaultBranch, blobSha: config.sha },
    shas: [pull.headSha],
  });
}
