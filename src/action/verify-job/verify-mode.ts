import * as core from '@actions/core';
import { VerifyInputs } from '../constants.js';
import { isPullRequestEvent } from './pull-request-event.js';
import { runPullRequestGate } from './pull-request-step.js';
import { runVerify } from './verify-step.js';

/**
 * perimeter/verify has two modes, chosen by the workflow file alone: with `agent-job`, it verifies that job
 * of this run; without it on a pull request event, it is the pull-request gate (without it on any other
 * event, the verify job says `agent-job` is missing).
 */
export async function runVerifyAction(env: Record<string, string | undefined> = process.env): Promise<void> {
  if (core.getInput(VerifyInputs.AgentJob) === '' && isPullRequestEvent(env.GITHUB_EVENT_NAME)) {
    core.info(`no ${VerifyInputs.AgentJob} on a ${env.GITHUB_EVENT_NAME} event: the pull-request gate`);
    return runPullRequestGate();
  }
  return runVerify();
}
