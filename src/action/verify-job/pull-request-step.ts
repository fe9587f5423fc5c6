import * as core from '@actions/core';
import type {
  PullRequestInfo,
  PullRequests,
  Receipts,
  RepoCoordinates,
  RepoReads,
} from '../../github/index.js';
import { assignPullRequest, compilePerimeter, DEFAULT_CONFIG_FILE, parseConfig } from '../../policy/index.js';
import {
  attributePullCommits,
  PULL_REQUEST_COMMIT_LIMIT,
  STATUS_CONTEXT,
  verifyPullRequest,
  type Verdict,
} from '../../verify/index.js';
import { readConfigFile } from '../config-loader.js';
import { checkConfigRef } from '../establish.js';
import { VerifyInputs } from '../constants.js';
import { configFile } from '../inputs.js';
import { pullRequestHeadSha, pullRequestNumber } from './pull-request-event.js';
import { readVerifyBasics, type VerifyBasics } from './judging-step.js';
import { conclude } from '../conclude.js';
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
  const context = { name: STATUS_CONTEXT };
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
      await gate(upstream, settings, pull, context);
    },
    failed: async ({ upstream, settings }, error, message) => {
      const reason =
        error instanceof GateRefusal ? message : `the pull-request gate could not verify: ${message}`;
      const publishing = {
        runUrl: settings.runUrl,
        receiptBy: 'post' as const,
        receiptAs: settings.receiptAs,
        statusContext: context.name,
      };
      if (head !== null) await publishError(upstream, publishing, '', head, reason);
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

/**
 * The receipt's context. A receipt is on a commit, not on a pull request: a pull request into another branch
 * than the default one (Copilot's child pull requests into an agent's or a person's branch) is judged against
 * that base, so its receipt has a context of its own, which a required `perimeter` check on the default branch
 * never counts; `perimeter` on its head stays `pending` until a pull request into the default branch judges it.
 */
export function contextFor(baseRef: string, defaultBranch: string): string {
  return baseRef === defaultBranch ? STATUS_CONTEXT : `${STATUS_CONTEXT} (into ${baseRef})`;
}

async function gate(
  upstream: RepoCoordinates & RepoReads & Receipts & PullRequests,
  settings: GateSettings,
  pull: PullRequestInfo,
  context: { name: string },
): Promise<void> {
  const { defaultBranch } = await upstream.getRepository();
  context.name = contextFor(pull.baseRef, defaultBranch);
  // perimeters.yml from the default branch (where pull_request_target's workflow comes from), never the head
  const config = await readConfigFile(upstream, settings.config, defaultBranch);
  const rules = { config, defaultBranch };
  let verdict = await judgePull(upstream, settings, pull, rules);
  // A status is on a commit, not on a pull request: every open pull request with this head into a base of the
  // same context shows it, so it carries the strictest of their verdicts, whichever event came last.
  const sharing = (await upstream.listOpenPullRequests()).filter(
    (other) =>
      other.number !== pull.number &&
      other.headSha === pull.headSha &&
      contextFor(other.baseRef, defaultBranch) === context.name,
  );
  for (const other of sharing) {
    let theirs: Verdict;
    try {
      theirs = await judgePull(upstream, settings, await upstream.getPullRequest(other.number), rules);
    } catch (error) {
      throw new GateRefusal(
        `pull request #${other.number} has the same head ${pull.headSha.slice(0, 7)} and could not be judged: ${(error as Error).message}`,
      );
    }
    if (STRICTNESS[theirs.state] > STRICTNESS[verdict.state])
      verdict = {
        ...theirs,
        notes: [
          `${pull.headSha.slice(0, 7)} is the head of pull requests #${pull.number} and #${other.number}: its receipt is the stricter verdict, #${other.number}'s`,
          ...theirs.notes,
        ],
      };
  }
  return conclude(upstream, { ...settings, receiptBy: 'post' }, verdict, {
    context: context.name,
    shas: [pull.headSha],
    evidence: {
      config: { file: settings.config, ref: defaultBranch, blobSha: config.sha },
      ledger: null,
    },
  });
}

const STRICTNESS: Record<Verdict['state'], number> = { success: 0, error: 1, failure: 2 };

/** One open pull request of this repository judged by perimeters.yml on the default branch. */
async function judgePull(
  upstream: RepoCoordinates & RepoReads & Receipts & PullRequests,
  settings: GateSettings,
  pull: PullRequestInfo,
  { config, defaultBranch }: { config: { text: string; sha: string }; defaultBranch: string },
): Promise<Verdict> {
  const repository = `${settings.owner}/${settings.repo}`;
  if (pull.state !== 'open')
    throw new GateRefusal(
      `pull request #${pull.number} is ${pull.state}: only open pull requests are judged`,
    );
  if (pull.headRepository?.toLowerCase() !== repository.toLowerCase())
    throw new GateRefusal(
      `pull request #${pull.number} comes from ${pull.headRepository ?? 'a deleted repository'}, not from a branch of ${repository}: the gate judges pull requests from this repository's branches only`,
    );
  const specs = parseConfig(config.text, settings.config).perimeters;
  const assignment = assignPullRequest(specs, { author: pull.author, headBranch: pull.headRef });
  if (assignment.kind === 'ambiguous') throw new GateRefusal(assignment.reason);
  const perimeters = specs.map((spec) => compilePerimeter(spec, settings.config));
  const assigned =
    assignment.kind === 'assigned' ? perimeters.find((p) => p.name === assignment.spec.name)! : null;
  core.info(
    assigned === null
      ? `pull request #${pull.number} by ${pull.author} from "${pull.headRef}": no perimeter assigned to it (${assignment.kind === 'none' ? assignment.reason : ''}); each commit is judged by its maker's`
      : `pull request #${pull.number} by ${pull.author} from "${pull.headRef}": perimeter "${assigned.name}" (${assignment.kind === 'assigned' ? assignment.rule : ''})`,
  );

  const commits =
    pull.commits > PULL_REQUEST_COMMIT_LIMIT ? [] : await upstream.listPullRequestCommits(pull.number);
  // Each commit by the maker GitHub vouches for (a verified signature), never by its author or committer lines.
  const attribution = attributePullCommits(perimeters, commits, assigned);
  const judging = [
    ...new Set([
      ...(assigned ? [assigned] : []),
      ...[...attribution.values()].flatMap((j) => (j.kind === 'perimeter' ? [j.perimeter] : [])),
    ]),
  ];
  // Judged as a named ref, as apply judges it, not as main judges an absent config-ref (which refuses only the
  // bound branch): the gate always reads the default branch, and a perimeter whose branches list lets agents be
  // bound to that branch would be judged by a file its own agents may have written. Written refs/heads/..., the
  // ref is never read as a commit SHA, so no heads are needed.
  await checkConfigRef(
    upstream,
    {
      configRef: `refs/heads/${defaultBranch}`,
      defaultBranch,
      branch: pull.headRef,
      perimeters: judging,
      heads: {},
    },
    (message) =>
      new GateRefusal(
        `${settings.config} on the default branch cannot judge pull request #${pull.number}: ${message}`,
      ),
  );
  for (const [sha, judge] of attribution)
    core.info(
      `commit ${sha.slice(0, 7)}: ${judge.kind === 'perimeter' ? `perimeter "${judge.perimeter.name}", ${judge.by}` : judge.kind === 'person' ? `${judge.login}'s own, not judged` : judge.reason}`,
    );
  // a person's commit that changes a protected path needs another person's approval (GitHub's reviews)
  const people = [...attribution.values()].some((judge) => judge.kind === 'person');
  return verifyPullRequest({
    upstream,
    pull,
    commits,
    baseHead: await upstream.getBranchHead(pull.baseRef),
    perimeter: assigned,
    assignedBy: assignment.kind === 'assigned' ? assignment.rule : null,
    attribution,
    reviews: people ? await upstream.listPullRequestReviews(pull.number) : [],
    configFile: settings.config,
  });
}
