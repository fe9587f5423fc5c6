import type { ApplyMode } from '../../apply/apply-changes.js';
import { RECORD_FILES, type JudgingRules } from '../../verify/index.js';
import { Inputs, VerifyInputs } from '../constants.js';
import {
  defaultRead,
  InputError,
  readJudgingRules,
  readStepBasics,
  type Env,
  type ReadInput,
  runFacts,
  type RunFacts,
  type StepBasics,
} from '../inputs.js';

/** The change set's file name inside the job's record artifact and in a `change-set` directory. */
export const STAGED_FILE = RECORD_FILES.staged;

/**
 * What decides where and by which rules the changes land comes from this step's inputs (the workflow file),
 * read by the main action's names and parsers: `branch` (the same default as main's: the pull request's
 * head branch in this repository, else the run's branch), `config`, `config-ref`, `perimeters` (required:
 * what the agent job exposed), `status-context`. The change set decides none of them.
 */
export interface ApplySettings
  extends
    StepBasics,
    Pick<
      JudgingRules,
      'branch' | 'configFile' | 'configRef' | 'perimeters' | 'statusContext' | 'eventName' | 'event'
    > {
  /** the workflow artifact holding the change set (the agent job's record) */
  record: string;
  /**
   * the agent job's name in the workflow file (`agent-job`), required with `record`: GitHub's record of its
   * steps says whether its post step uploaded the artifact; null with `change-set`
   */
  agentJob: string | null;
  /** this run (the artifact and the agent job are looked up in it) */
  run: RunFacts;
  /** a file or directory holding the change set instead of the artifact; null when not given */
  changeSet: string | null;
  mode: ApplyMode;
  /**
   * `review-token`: a second identity's token (a person's or a machine user's, never this job's), used only
   * to post the review that requests changes on a pull request of changes sent to review; null when not
   * given (the review is then a comment, as GitHub refuses REQUEST_CHANGES on one's own pull request).
   */
  reviewToken: string | null;
}

/** The inputs of apply/action.yml. */
export function readApplySettings(env: Env = process.env, read: ReadInput = defaultRead): ApplySettings {
  const record = read('record').trim();
  const changeSet = read('change-set').trim() || null;
  if (!record && changeSet === null)
    throw new InputError(
      "record: required (the agent job's record artifact), unless change-set names a file",
    );
  const agentJob = read(VerifyInputs.AgentJob).trim() || null;
  // The artifact is evidence only as GitHub records its upload: by the post step of the job named here.
  if (changeSet === null && agentJob === null)
    throw new InputError(
      `${VerifyInputs.AgentJob}: required with record: the agent job's name as the run shows it (its name:, else its key under jobs:), whose post step uploads the record`,
    );
  // Never "every perimeter" by omission: a change set may use only what the agent job was given.
  if (read(Inputs.Perimeters).trim() === '')
    throw new InputError(
      `${Inputs.Perimeters}: required: the perimeters the agent job exposed, as its main step's input (\`all\` for every one); the change set may use no other`,
    );
  const judged = readJudgingRules(env, read);
  return {
    ...readStepBasics(env, read),
    branch: judged.branch,
    configFile: judged.configFile,
    configRef: judged.configRef,
    perimeters: judged.perimeters,
    statusContext: judged.statusContext,
    eventName: judged.eventName,
    event: judged.event,
    record,
    agentJob,
    run: runFacts(env),
    changeSet,
    mode: applyMode(env, read),
    reviewToken: read('review-token').trim() || null,
  };
}

/** `mode`: push to the bound branch, or a draft pull request from a new branch (`pull-request-*` inputs). */
function applyMode(env: Env, read: ReadInput): ApplyMode {
  const mode = read('mode').trim() || 'push';
  if (mode === 'push') return { kind: 'push' };
  if (mode !== 'pull-request')
    throw new InputError(`mode: expected "push" or "pull-request", got ${JSON.stringify(mode)}`);
  const run = `${env.GITHUB_RUN_ID ?? 'local'}-${env.GITHUB_RUN_ATTEMPT ?? '1'}`;
  const branch = read('pull-request-branch').trim() || `perimeter/staged/${run}`;
  if (!/^[A-Za-z0-9._/-]+$/.test(branch) || branch.includes('..') || branch.endsWith('/'))
    throw new InputError(
      `pull-request-branch: ${JSON.stringify(branch)} is not a branch name this action creates`,
    );
  return {
    kind: 'pull-request',
    branch,
    title: read('pull-request-title').trim() || `Staged changes from run ${run}`,
    body: read('pull-request-body'),
    labels: read('pull-request-labels')
      .split(/[\s,]+/)
      .filter(Boolean),
  };
}
