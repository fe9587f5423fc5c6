import { configRefNeedsRulesets, judgeConfigRef, type ConfigRefFacts } from '../policy/index.js';
import type { RepoReads } from '../github/index.js';
import { ActionError } from './config-loader.js';

/**
 * judgeConfigRef for a step, with the repository's rulesets read from GitHub when the ref needs them (a ref
 * that is neither the default branch nor a commit SHA is trusted only when a ruleset locks it): a refusal
 * throws (an ActionError unless the step names the error its failure path reports as it is); returns the
 * warning to show, or null.
 */
export async function checkConfigRef(
  upstream: Pick<RepoReads, 'listRulesets'>,
  facts: Omit<ConfigRefFacts, 'rulesets'>,
  refusal: (message: string) => Error = (message) => new ActionError(message),
): Promise<string | null> {
  const rulesets = configRefNeedsRulesets(facts.configRef, facts.defaultBranch)
    ? await upstream.listRulesets()
    : [];
  const verdict = judgeConfigRef({ ...facts, rulesets });
  if (verdict.kind === 'refused') throw refusal(verdict.message);
  return verdict.kind === 'warning' ? verdict.message : null;
}
