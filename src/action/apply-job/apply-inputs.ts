import type { ApplyMode } from '../../apply/apply-changes.js';
import { DEFAULT_CONFIG_FILE } from '../../policy/index.js';
import { RECORD_FILES } from '../../verify/index.js';
import {
  configFile,
  defaultRead,
  InputError,
  perimeterList,
  readStepBasics,
  statusContext,
  type Env,
  type ReadInput,
  type StepBasics,
} from '../inputs.js';

/** The change set's file name inside the job's record artifact and in a `change-set` directory. */
export const STAGED_FILE = RECORD_FILES.staged;

export interface ApplySettings extends StepBasics {
  config: string;
  /** null: the repository's default branch */
  configRef: string | null;
  /** null: every perimeter the exposure rule allows on the branch */
  perimeters: string[] | null;
  /** the workflow artifact holding the change set (the agent job's record) */
  record: string;
  /** a file or directory holding the change set instead of the artifact; null when not given */
  changeSet: string | null;
  statusContext: string;
  mode: ApplyMode;
}

/** The inputs of apply/action.yml. */
export function readApplySettings(env: Env = process.env, read: ReadInput = defaultRead): ApplySettings {
  const record = read('record').trim();
  const changeSet = read('change-set').trim() || null;
  if (!record && changeSet === null)
    throw new InputError(
      "record: required (the agent job's record artifact), unless change-set names a file",
    );
  return {
    ...readStepBasics(env, read),
    config: configFile(read('config') || DEFAULT_CONFIG_FILE),
    configRef: read('config-ref').trim() || null,
    perimeters: perimeterList(read('perimeters')),
    record,
    changeSet,
    statusContext: statusContext(read('status-context')),
    mode: applyMode(env, read),
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
