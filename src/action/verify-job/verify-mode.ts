import * as core from '@actions/core';
import { VerifyInputs } from '../constants.js';
import { isPullRequestEvent } from './pull-request-event.js';
import { runPullRequestGate } from './pull-request-step.js';
import { runVerify } from './verify-step.js';

/**
 * perimeter/verify has two modes: with a `handoff`, it verifies an agent job of this run (without one on any
 * other event, that job's verification says the handoff is missing); without one on a pull request event, it
 * is the pull-request gate.
 */
export async function runVerifyAction(env: Record<string, string | undefined> = process.env): Promise<void> {
  if (core.getInput(VerifyInputs.Handoff) === '' && isPullRequestEvent(env.GITHUB_EVENT_NAME)) {
    core.info(`no ${VerifyInputs.Handoff} on a ${env.GITHUB_EVENT_NAME} event: the pull-request gate`);
    return runPullRequestGate();
  }
  return runVerify();
}
