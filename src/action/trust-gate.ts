import { judgeTrigger, type Config, type Perimeter } from '../policy/index.js';
import { ActionError } from './config-loader.js';

export interface TrustOutcome {
  /** the perimeters to expose */
  exposed: Perimeter[];
  /** what was decided and why, for the log; null when perimeters.yml has no trust rule */
  note: string | null;
}

const names = (perimeters: Perimeter[]): string => perimeters.map((p) => `"${p.name}"`).join(', ');

/**
 * Applies perimeters.yml's `trust` rule to the run's trigger: a trusted trigger gets every selected perimeter;
 * an untrusted one only those marked `untrusted-triggers: true`, and main refuses to start when none is.
 * Without a rule, nothing changes.
 */
export function applyTrust(
  config: Config,
  selected: Perimeter[],
  eventName: string,
  payload: unknown,
): TrustOutcome {
  if (!config.trust) return { exposed: selected, note: null };
  const verdict = judgeTrigger(config.trust, eventName, payload);
  if (verdict.trusted) return { exposed: selected, note: `trusted trigger: ${verdict.reason}` };
  const safe = selected.filter((p) => p.spec.untrustedTriggers === true);
  const withheld = selected.filter((p) => p.spec.untrustedTriggers !== true);
  if (safe.length === 0) {
    throw new ActionError(
      `untrusted trigger: ${verdict.reason}; no selected perimeter (${names(selected)}) is marked ` +
        `"untrusted-triggers: true" in ${config.file}, so none is exposed`,
    );
  }
  const note =
    `untrusted trigger: ${verdict.reason}; exposing only ${names(safe)} (untrusted-triggers: true)` +
    (withheld.length > 0 ? `, withholding ${names(withheld)}` : '');
  return { exposed: safe, note };
}
