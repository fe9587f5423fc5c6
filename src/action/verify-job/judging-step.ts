import * as core from '@actions/core';
import { VerifyInputs } from '../constants.js';
import {
  booleanInput,
  readRunner,
  receiptAs,
  tokenInput,
  type Env,
  type ReceiptAs,
  type Settings,
} from '../inputs.js';

/** What perimeter/verify reads in both of its modes: the verify job and the pull-request gate. */
export interface VerifyBasics extends Pick<
  Settings,
  'token' | 'owner' | 'repo' | 'apiUrl' | 'runUrl' | 'repositoryUrl'
> {
  failOnViolation: boolean;
  receiptAs: ReceiptAs;
}

export function readVerifyBasics(env: Env): VerifyBasics {
  return {
    token: tokenInput(core.getInput(VerifyInputs.GithubToken)),
    ...readRunner(env),
    failOnViolation: booleanInput(
      VerifyInputs.FailOnViolation,
      core.getInput(VerifyInputs.FailOnViolation),
      true,
    ),
    receiptAs: receiptAs(VerifyInputs.ReceiptAs, core.getInput(VerifyInputs.ReceiptAs)),
  };
}
