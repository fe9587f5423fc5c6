import {
  ConfigError,
  configRefNeedsRulesets,
  establish,
  EstablishRefusal,
  ExposureError,
  judgeConfigRef,
  parseConfig,
  type ConfigRefFacts,
  type Established,
  type EstablishFacts,
} from '../policy/index.js';
import type { RepoReads } from '../github/index.js';
import { ActionError, annotated, explainConfigError, explainExposureError } from './config-loader.js';

/** Makes the error a config-ref refusal fails the step with (an ActionError unless the step names its own). */
export type RefusalError = (message: string) => Error;

const actionError: RefusalError = (message) => new ActionError(message);

/** The rulesets judgeConfigRef needs for this ref, read with the step's token; none when it needs none. */
async function rulesetsFor(
  upstream: Pick<RepoReads, 'listRulesets'>,
  configRef: string | null,
  defaultBranch: string,
) {
  return configRefNeedsRulesets(configRef, defaultBranch) ? upstream.listRulesets() : [];
}

/**
 * The establish step of main, the verify job and apply: the one decision (src/policy/establish/establish.ts)
 * on facts the step read, with the repository's rulesets read from GitHub when the config ref needs them. A
 * refusal throws: an invalid file or a refused selection as annotations on its lines and an ActionError, a
 * config ref the job could have moved as `refusal` makes it.
 */
export async function establishPerimeters(
  upstream: Pick<RepoReads, 'listRulesets'>,
  facts: Omit<EstablishFacts, 'rulesets'>,
  refusal: RefusalError = actionError,
): Promise<Established> {
  const rulesets = await rulesetsFor(upstream, facts.configRef, facts.defaultBranch);
  try {
    return establish({ ...facts, rulesets });
  } catch (error) {
    if (error instanceof ConfigError) throw annotated(explainConfigError(error, facts.file));
    if (error instanceof ExposureError)
      throw annotated(
        explainExposureError(error, parseConfig(facts.text, facts.file), facts.text, facts.branch),
      );
    if (error instanceof EstablishRefusal)
      throw error.rule === 'config-ref' ? refusal(error.message) : new ActionError(error.message);
    throw error;
  }
}

/**
 * judgeConfigRef alone, for the gate, which judges every perimeter of the default branch's file by each pull
 * request's assignment rather than a selection: a refusal throws as `refusal` makes it.
 */
export async function checkConfigRef(
  upstream: Pick<RepoReads, 'listRulesets'>,
  facts: Omit<ConfigRefFacts, 'rulesets'>,
  refusal: RefusalError = actionError,
): Promise<void> {
  const rulesets = await rulesetsFor(upstream, facts.configRef, facts.defaultBranch);
  const verdict = judgeConfigRef({ ...facts, rulesets });
  if (verdict.kind === 'refused') throw refusal(verdict.message);
}
