import * as core from '@actions/core';
import { createOctokitUpstream, type Upstream } from '../github/index.js';
import { makeScrubber } from '../safety/secret-forms.js';
import type { StepBasics } from './inputs.js';

/** What a step runs with once the frame has read its settings. */
export interface StepContext<S> {
  settings: S;
  /** GitHub, with the step's token */
  upstream: Upstream;
  /** takes the token and the step's other secrets out of a message */
  scrub: (text: string) => string;
}

export interface Step<S extends Pick<StepBasics, 'token' | 'owner' | 'repo' | 'apiUrl'>> {
  /** the settings from the step's inputs and the runner; throws on a bad input */
  read(): S;
  /** secrets to mask besides the token */
  secrets?(settings: S): string[];
  /** a bad input: by default the step fails saying `nothing was <done>` and why */
  badInput?(message: string): void;
  /** what the step is for, in the failure message of a bad input: "verified", "applied" */
  done: string;
  run(context: StepContext<S>): Promise<void>;
  /**
   * The step could not finish: `message` is the error's, scrubbed. Say so where a reviewer looks (an error
   * receipt, best effort) and fail the step.
   */
  failed(context: StepContext<S>, error: unknown, message: string): Promise<void>;
}

/**
 * The frame every Perimeter step runs in: the settings read (a bad input fails the step, saying which), the
 * token and the other secrets masked in the log and scrubbed from every message, one upstream, and any error
 * handed to `failed` with its message scrubbed. A step is an entry over this.
 */
export async function runStep<S extends Pick<StepBasics, 'token' | 'owner' | 'repo' | 'apiUrl'>>(
  step: Step<S>,
): Promise<void> {
  let settings: S;
  try {
    settings = step.read();
  } catch (error) {
    const message = (error as Error).message;
    if (step.badInput) step.badInput(message);
    else core.setFailed(`nothing was ${step.done}: ${message}`);
    return;
  }
  const secrets = [settings.token, ...(step.secrets?.(settings) ?? [])].filter(Boolean);
  for (const secret of secrets) core.setSecret(secret);
  const scrub = makeScrubber(secrets);
  const upstream = createOctokitUpstream({
    token: settings.token,
    owner: settings.owner,
    repo: settings.repo,
    baseUrl: settings.apiUrl,
    // a step judging a branch reads its commits and trees from a partial copy of its history, fetched over
    // git into the runner's temporary directory (src/github/git-history.ts), and asks GitHub the rest
    ...historyOf(settings),
  });
  const context = { settings, upstream, scrub };
  try {
    await step.run(context);
  } catch (error) {
    await step.failed(context, error, scrub(error instanceof Error ? error.message : String(error)));
  }
}

/**
 * The history copy for a step with a temporary directory: fetched only when a question needs it (a compare, an
 * ancestry), never at a ref check, so a step that asks none (main) fetches nothing.
 */
function historyOf(settings: object): { history?: { dir: string } } {
  const { tempDir } = settings as { tempDir?: unknown };
  return typeof tempDir === 'string' && tempDir !== '' ? { history: { dir: tempDir } } : {};
}

/**
 * A judged verdict as the step's outcome: a receipt that could not be published as asked fails the step; a
 * verdict other than success fails it too, or only warns with fail-on-violation off.
 */
export function judgedOutcome(
  judged: { state: string; headline: string; unpublished: string | null },
  failOnViolation: boolean,
): void {
  if (judged.unpublished !== null) core.setFailed(`Perimeter: ${judged.unpublished}`);
  else if (judged.state === 'success') core.info(`Perimeter: ${judged.headline}`);
  else if (failOnViolation) core.setFailed(`Perimeter: ${judged.headline}`);
  else core.warning(`Perimeter: ${judged.headline}`);
}
