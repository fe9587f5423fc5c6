import { judgeConfigRef, type ConfigRefFacts } from '../policy/index.js';
import { ActionError } from './config-loader.js';

/**
 * judgeConfigRef for a step: a refusal throws (an ActionError unless the step names the error its failure
 * path reports as it is); returns the warning to show, or null.
 */
export function checkConfigRef(
  facts: ConfigRefFacts,
  refusal: (message: string) => Error = (message) => new ActionError(message),
): string | null {
  const verdict = judgeConfigRef(facts);
  if (verdict.kind === 'refused') throw refusal(verdict.message);
  return verdict.kind === 'warning' ? verdict.message : null;
}
