import { parseConfig } from '../config.js';
import type { Perimeter } from '../perimeter.js';
import type { Config } from '../spec.js';
import { judgeConfigRef } from './config-ref.js';
import { selectPerimeters } from './exposure.js';
import type { RefRuleset } from './ref-rules.js';
import { judgeTrigger } from './trust.js';

/**
 * Everything the decision of which perimeters judge a job rests on. Where each comes from is the caller's
 * duty, and none of it may come from the agent's side: the file as GitHub has it at the trusted ref, the
 * workflow's own inputs, the run's event, GitHub's ref heads and rulesets.
 */
export interface EstablishFacts {
  /** the perimeters file's path (for messages) and its text at the config ref */
  file: string;
  text: string;
  /** the `perimeters` input: the names to expose, or null for every one */
  names: readonly string[] | null;
  /** the `config-ref` input; null when not given (the default branch was read) */
  configRef: string | null;
  /** the bound branch */
  branch: string;
  defaultBranch: string;
  /** the event that started the run, for the file's `trust` rule */
  eventName: string;
  event: unknown;
  /** branch and tag heads at the start of the job */
  heads: Record<string, string>;
  /** the repository's rulesets, when the config ref needs them (configRefNeedsRulesets) */
  rulesets: readonly RefRuleset[];
}

export interface Established {
  config: Config;
  /** the perimeters that judge (and, in main, are exposed) */
  perimeters: Perimeter[];
  /** what the trust rule decided and why; null when the file has none */
  trust: string | null;
  /** a config ref that is allowed and still worth a warning; null when none */
  warning: string | null;
}

/** A decision refused by a rule of the trusted file or of the config ref (ConfigError and ExposureError aside). */
export class EstablishRefusal extends Error {
  override name = 'EstablishRefusal';
  constructor(
    readonly rule: 'trust' | 'config-ref',
    message: string,
  ) {
    super(message);
  }
}

const quoted = (perimeters: Perimeter[]): string => perimeters.map((p) => `"${p.name}"`).join(', ');

/**
 * Which perimeters judge the job: the file parsed (ConfigError), the named perimeters that may be bound to
 * the branch (ExposureError), narrowed by the file's trust rule for the run's trigger, from a config ref the
 * job could not have chosen (EstablishRefusal). Main, the verify job and apply all decide so, with this one
 * function; only where they read the facts differs.
 */
export function establish(facts: EstablishFacts): Established {
  const config = parseConfig(facts.text, facts.file);
  const selected = selectPerimeters(config, facts.names, facts.branch, facts.defaultBranch);
  const { perimeters, trust } = narrowByTrigger(config, selected, facts.eventName, facts.event);
  const ref = judgeConfigRef({
    configRef: facts.configRef,
    defaultBranch: facts.defaultBranch,
    branch: facts.branch,
    perimeters,
    heads: facts.heads,
    rulesets: facts.rulesets,
  });
  if (ref.kind === 'refused') throw new EstablishRefusal('config-ref', ref.message);
  return { config, perimeters, trust, warning: ref.kind === 'warning' ? ref.message : null };
}

/**
 * The file's `trust` rule on the run's trigger: a trusted trigger keeps every selected perimeter; an
 * untrusted one only those marked `untrusted-triggers: true`, and is refused when none is. No rule: no change.
 */
function narrowByTrigger(
  config: Config,
  selected: Perimeter[],
  eventName: string,
  payload: unknown,
): { perimeters: Perimeter[]; trust: string | null } {
  if (!config.trust) return { perimeters: selected, trust: null };
  const verdict = judgeTrigger(config.trust, eventName, payload);
  if (verdict.trusted) return { perimeters: selected, trust: `trusted trigger: ${verdict.reason}` };
  const safe = selected.filter((p) => p.spec.untrustedTriggers === true);
  const withheld = selected.filter((p) => p.spec.untrustedTriggers !== true);
  if (safe.length === 0)
    throw new EstablishRefusal(
      'trust',
      `untrusted trigger: ${verdict.reason}; no selected perimeter (${quoted(selected)}) is marked ` +
        `"untrusted-triggers: true" in ${config.file}, so none is exposed`,
    );
  return {
    perimeters: safe,
    trust:
      `untrusted trigger: ${verdict.reason}; exposing only ${quoted(safe)} (untrusted-triggers: true)` +
      (withheld.length > 0 ? `, withholding ${quoted(withheld)}` : ''),
  };
}
