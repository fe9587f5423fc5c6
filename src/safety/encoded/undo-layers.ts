import { JOINING_LAYERS } from './joined-text.js';
import { DECODING_LAYERS, type Decoded, type Layer } from './layers.js';

/**
 * Every layer undone, nested up to four deep (base64 of hex, URL-encoded base64 of a split token...), with
 * the work bounded: the decoded texts together hold at most twice the text's characters (plus a little for
 * short texts), so scanning them costs at most about twice what scanning the text does. Layers are undone
 * breadth first, so a text that spends the budget loses its deepest layers first; and the texts of one
 * depth are scanned together, each layer once, so many small ones cost no more than one long one.
 */

/** One decoded text, and the span of the original it came from (its outermost layer's run). */
export interface Undone extends Decoded {
  depth: number;
}

export interface UndoStats {
  /** characters the layers read, over all texts: the work done */
  scanned: number;
  /** characters of decoded text produced */
  decoded: number;
  /** decoded texts left out because the budget was spent */
  skipped: number;
}

export const MAX_DEPTH = 4;
const BUDGET_RATIO = 2;
const BUDGET_FLOOR = 64 * 1024;
/** Decoded texts shorter than the shortest credential are neither scanned nor decoded further. */
const MIN_DECODED = 16;
/** Between the texts of one depth: ends every run, line and literal, so no layer joins two texts. */
const SEPARATOR = '\n\0\n';

export const ALL_LAYERS: readonly Layer[] = [...DECODING_LAYERS, ...JOINING_LAYERS];

/** The index of the last start at or before `at`. */
function owner(starts: number[], at: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (starts[middle]! <= at) low = middle;
    else high = middle - 1;
  }
  return low;
}

export function undoLayers(
  text: string,
  options: { maxDepth?: number; budget?: number; layers?: readonly Layer[] } = {},
): { undone: Undone[]; stats: UndoStats } {
  const { maxDepth = MAX_DEPTH, layers = ALL_LAYERS } = options;
  let budget = options.budget ?? BUDGET_RATIO * text.length + BUDGET_FLOOR;
  const stats: UndoStats = { scanned: 0, decoded: 0, skipped: 0 };
  const undone: Undone[] = [];
  // the texts of one depth, each with the item of the first depth it came from (none for the text itself)
  let level: Array<{ text: string; origin?: Undone }> = [{ text }];
  for (let depth = 1; depth <= maxDepth && level.length > 0; depth++) {
    const starts: number[] = [];
    let source = '';
    for (const item of level) {
      starts.push(source.length);
      source += item.text + SEPARATOR;
    }
    const next: typeof level = [];
    for (const layer of layers) {
      stats.scanned += source.length;
      for (const decoded of layer(source)) {
        const k = owner(starts, decoded.start);
        const offset = starts[k]!;
        const { text: within, origin } = level[k]!;
        if (decoded.end - offset > within.length || decoded.text.length < MIN_DECODED) continue;
        if (decoded.text.length > budget) {
          stats.skipped++;
          continue;
        }
        budget -= decoded.text.length;
        stats.decoded += decoded.text.length;
        // below the first layer, offsets no longer map to the original: the outermost run stands for all
        const item: Undone = origin
          ? { start: origin.start, end: origin.end, text: decoded.text, depth }
          : { ...decoded, depth };
        undone.push(item);
        next.push({ text: decoded.text, origin: origin ?? item });
      }
    }
    level = next;
  }
  return { undone, stats };
}
