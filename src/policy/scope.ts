import { isAlias, isMap, isSeq, parseDocument, visit, type Document, type YAMLMap, type YAMLSeq } from 'yaml';
import { parseConfig } from './config.js';
import type { PerimeterSpec } from './spec.js';
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
 *
 * Only the asker's list grows. A `write` list shared through a YAML anchor and alias (`write: &code [...]`
 * in one perimeter, `write: *code` in another) is split first: the asker gets a list of its own, and every
 * alias of the anchor it held becomes a copy of the list as it was, so no other perimeter gains the glob
 * (one bound to the default branch, say). The result is checked against the original, perimeter by
 * perimeter: anything but the asker's `write` differing answers null.
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
    const write = ownWriteList(doc, entry as YAMLMap);
    if (write === undefined) {
      (entry as YAMLMap).set('write', doc.createNode([glob], { flow: true }));
      changed = true;
    } else if (write !== null) {
      if (write.items.some((item) => String((item as { value?: unknown }).value ?? item) === glob)) continue;
      write.items.push(doc.createNode(glob));
      changed = true;
    }
  }
  if (!changed) return null;
  const proposed = doc.toString();
  try {
    const before = parseConfig(text, file).perimeters;
    const after = parseConfig(proposed, file).perimeters;
    // every perimeter the same as before, but for the globs it asked for
    const unasked = (spec: PerimeterSpec) => ({
      ...spec,
      write: spec.write.filter((g) => !requests.some((r) => r.perimeter === spec.name && r.glob === g)),
    });
    if (after.length !== before.length) return null;
    for (const [i, spec] of before.entries())
      if (JSON.stringify(unasked(after[i]!)) !== JSON.stringify(unasked(spec))) return null;
  } catch {
    return null;
  }
  return proposed;
}

/**
 * The perimeter's `write` sequence, made its own: undefined when it has none, null when it is not a list.
 * An alias is replaced by a copy of the list it names; an anchored list that aliases elsewhere name is
 * left to the asker, and each of those aliases gets a copy of it instead.
 */
function ownWriteList(doc: Document, entry: YAMLMap): YAMLSeq | null | undefined {
  const write = entry.get('write', true) as unknown;
  if (write === undefined) return undefined;
  if (isAlias(write)) {
    const target = write.resolve(doc);
    if (!isSeq(target)) return null;
    const copy = copyOf(doc, target);
    entry.set('write', copy);
    return copy;
  }
  if (!isSeq(write)) return null;
  if (write.anchor !== undefined) {
    const anchor = write.anchor;
    visit(doc, {
      Alias(_key, node) {
        if (node.source === anchor) return copyOf(doc, write);
        return undefined;
      },
    });
    write.anchor = undefined;
  }
  return write;
}

/** A new sequence with the same items, in the same style, and no anchor. */
function copyOf(doc: Document, seq: YAMLSeq): YAMLSeq {
  const copy = doc.createNode(seq.toJSON(doc), { flow: seq.flow === true }) as YAMLSeq;
  return copy;
}
