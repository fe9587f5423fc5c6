import { isMap, isSeq, parseDocument, type YAMLMap } from 'yaml';
import { parseConfig } from './config.js';
import { globProblem } from './glob.js';

/** At most this many request_scope calls are recorded per job (all perimeters together). */
export const MAX_SCOPE_REQUESTS = 10;
/** A reason longer than this is refused: the summary shows each one whole. */
export const MAX_SCOPE_REASON = 500;

/** Why a request_scope call cannot be recorded, or null. Pure: the caller counts the calls. */
export function scopeRequestProblem(glob: string, reason: string, recorded: number): string | null {
  if (recorded >= MAX_SCOPE_REQUESTS)
    return `this job already recorded ${MAX_SCOPE_REQUESTS} scope requests, the most it records`;
  const problem = globProblem(glob);
  if (problem !== null) return `${JSON.stringify(glob)} is not a perimeters.yml glob: ${problem}`;
  if (reason.trim() === '') return 'give a reason: the owner decides by it';
  if (reason.length > MAX_SCOPE_REASON)
    return `the reason has ${reason.length} characters, at most ${MAX_SCOPE_REASON} are recorded`;
  return null;
}

/**
 * perimeters.yml with each requested glob added to its perimeter's `write` list (a list written in flow style
 * stays so; comments stay), or null when the result would not pass parseConfig (so what the summary shows
 * is always a file `perimeter check` accepts). Requests for a perimeter the file does not define, and globs
 * already listed, are left out.
 */
export function proposeScope(
  text: string,
  file: string,
  requests: ReadonlyArray<{ perimeter: string; glob: string }>,
): string | null {
  const doc = parseDocument(text);
  const perimeters = doc.get('perimeters');
  if (!isMap(perimeters)) return null;
  let changed = false;
  for (const { perimeter, glob } of requests) {
    const entry = perimeters.get(perimeter);
    if (!isMap(entry)) continue;
    const write = (entry as YAMLMap).get('write');
    if (write === undefined) {
      (entry as YAMLMap).set('write', doc.createNode([glob], { flow: true }));
      changed = true;
    } else if (isSeq(write)) {
      if (write.items.some((item) => String((item as { value?: unknown }).value ?? item) === glob)) continue;
      write.items.push(doc.createNode(glob));
      changed = true;
    }
  }
  if (!changed) return null;
  const proposed = doc.toString();
  try {
    parseConfig(proposed, file);
  } catch {
    return null;
  }
  return proposed;
}
