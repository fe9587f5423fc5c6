import { judgeConfigRef, type ConfigRefFacts } from '../policy/index.js';
import { ActionError } from './config-loader.js';

/** judgeConfigRef for a step: a refusal throws ActionError; returns the warning to show, or null. */
export function checkConfigRef(facts: ConfigRefFacts): string | null {
  const verdict = judgeConfigRef(facts);
  if (verdict.kind === 'refused') throw new ActionError(verdict.message);
  return verdict.kind === 'warning' ? verdict.message : null;
}
