import type { Finding } from '../finding.js';
import { formatFindings } from '../format-rules.js';
import { keyMaterialFindings } from '../key-material.js';
import { normalizeForDetection } from '../normalize.js';
import { pemBodyFindings } from './pem-bodies.js';
import { secretFindings } from '../secret-forms.js';
import { secretlintFindings } from '../secretlint-detector.js';
import { secretShapeFindings } from '../secret-shapes.js';
import { undoLayers, type Undone } from './undo-layers.js';

/**
 * Credentials under layers of encoding, or cut in two: every layer undone (src/safety/undo-layers.ts),
 * the decoded texts go, in one batch, through the credential rules (provider formats, key blocks and
 * bodies, key material, URL passwords, secretlint's, the run's own secrets). A decoded run holding a
 * credential is hidden whole, under that credential's kind; a join only where the credential crosses a
 * seam (one within a piece is found in the text itself), and only those characters. Only credentials
 * and unambiguous secret shapes count: a setting or a word in prose is no proof once decoded.
 */

const hide = (start: number, end: number, { kind, credential, rank }: Finding): Finding => ({
  start,
  end,
  kind,
  credential,
  rank,
});

/** Between decoded texts in one batch: plain, so no rule joins two of them into one value. */
const SEPARATOR = '\n\n\n';

/**
 * The original span of a finding in a join, or null when the join is not what made it: when it lies within
 * one slice, or when its part before the last slice is a credential already and the last slice may be
 * something else: the finding ends inside it, or it starts a line that goes on (`TOKEN=ghp_...` then
 * `OTHER=1`, or `next_key: 1`: the rules on the text itself find the token, and the next line stays). A
 * token's second half fills its slice, alone on its line or in its string literal.
 */
function acrossSeam(
  item: Undone,
  start: number,
  end: number,
  startsWithCredential: (text: string) => boolean,
): [number, number] | null {
  const slices = item.slices!;
  const first = slices.findIndex((s) => start < s.from + s.length);
  const last = slices.findIndex((s) => end <= s.from + s.length);
  if (first === -1 || last === -1 || first === last) return null;
  const { from, length, at } = slices[last]!;
  if ((end < from + length || item.openEnd) && startsWithCredential(item.text.slice(start, from)))
    return null;
  return [slices[first]!.at + start - slices[first]!.from, at + end - from];
}

export async function encodedFindings(text: string, extra: RegExp | null = null): Promise<Finding[]> {
  const { undone } = undoLayers(text);
  if (undone.length === 0) return [];
  // each distinct text is scanned once, for every run it came from (a file repeats its lines)
  const batch: Array<{ at: number; items: Undone[] }> = [];
  const byText = new Map<string, Undone[]>();
  let joined = '';
  for (const item of undone) {
    const same = byText.get(item.text);
    if (same) {
      same.push(item);
      continue;
    }
    const items = [item];
    byText.set(item.text, items);
    batch.push({ at: joined.length, items });
    // a decoded text is read as a model would read it too (entities of zero-width characters, say)
    const decoded = item.slices ? item.text : (normalizeForDetection(item.text)?.text ?? item.text);
    joined += decoded + SEPARATOR;
  }
  const credentials = formatFindings(joined).concat(
    keyMaterialFindings(joined),
    pemBodyFindings(joined),
    secretFindings(joined, extra),
    await secretlintFindings(joined),
  );
  // and the shapes that need no context: not credentials, but hidden as they are in the text itself
  const inner = credentials.filter((f) => f.credential).concat(secretShapeFindings(joined));
  // one span per run, named by the first rule that found it (format rules before secretlint's)
  const found = new Map<string, Finding>();
  const add = (start: number, end: number, finding: Finding): void => {
    if (!found.has(`${start}:${end}`)) found.set(`${start}:${end}`, hide(start, end, finding));
  };
  const heads = new Map<string, boolean>();
  const startsWithCredential = (head: string): boolean => {
    let known = heads.get(head);
    if (known === undefined) {
      known = formatFindings(head)
        .concat(secretFindings(head, extra))
        .some((f) => f.start === 0);
      heads.set(head, known);
    }
    return known;
  };
  for (const finding of inner) {
    // the last batch entry starting at or before the finding holds it
    let low = 0;
    let high = batch.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (batch[middle]!.at <= finding.start) low = middle;
      else high = middle - 1;
    }
    const { at, items } = batch[low]!;
    for (const item of items) {
      if (item.slices) {
        const span = acrossSeam(
          item,
          finding.start - at,
          Math.min(finding.end - at, item.text.length),
          startsWithCredential,
        );
        if (span) add(span[0], span[1], finding);
      } else {
        add(item.start, item.end, finding);
      }
    }
  }
  return [...found.values()];
}
