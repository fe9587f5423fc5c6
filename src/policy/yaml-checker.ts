import { isAlias, isMap, isScalar, isSeq, type Document, type LineCounter, type Node } from 'yaml';
import type { ConfigProblem } from './config-error.js';

/** One key of a YAML mapping, aliases resolved. */
export type Entry = { key: string; keyNode: Node | null; value: Node | null };

/** Walks a parsed YAML document and collects positioned problems. */
export class Checker {
  readonly problems: ConfigProblem[] = [];
  constructor(
    private readonly file: string,
    private readonly doc: Document,
    private readonly lines: LineCounter,
  ) {}

  report(at: Node | number | null | undefined, key: string, message: string): void {
    const offset = typeof at === 'number' ? at : (at?.range?.[0] ?? 0);
    const { line, col } = this.lines.linePos(offset);
    this.problems.push({ file: this.file, line, column: col, key, message });
  }

  resolve(node: unknown): Node | null {
    if (node === null || node === undefined) return null;
    if (isAlias(node)) return (node.resolve(this.doc) as Node | undefined) ?? null;
    return node as Node;
  }

  /** The entries of a mapping, reporting duplicate, empty and non-scalar keys. */
  entries(map: Node, where: string): Entry[] {
    if (!isMap(map)) return [];
    const seen = new Set<string>();
    const entries: Entry[] = [];
    for (const pair of map.items) {
      if (isAlias(pair.key)) {
        // `*k : [...]` reads as nothing in a review, and becomes whatever `&k` anchored (`write`, say).
        const source = (pair.key as { source: string }).source;
        this.report(
          pair.key as Node,
          where || '(document)',
          `alias *${source} used as a key: write the key out`,
        );
        continue;
      }
      const keyNode = this.resolve(pair.key);
      const at = keyNode ?? map;
      if (
        !isScalar(keyNode) ||
        keyNode.value === null ||
        keyNode.value === '' ||
        typeof keyNode.value === 'object'
      ) {
        this.report(at, where || '(document)', 'expected a plain key');
        continue;
      }
      const key = String(keyNode.value);
      const path = join(where, key);
      if (seen.has(key)) {
        this.report(keyNode, path, 'duplicate key');
        continue;
      }
      seen.add(key);
      entries.push({ key, keyNode, value: this.resolve(pair.value) });
    }
    return entries;
  }

  expectMap(node: Node | null, at: Node | null, key: string): node is Node {
    if (isMap(node)) return true;
    this.report(valueAt(node, at), key, `expected a mapping, got ${describe(node)}`);
    return false;
  }

  stringList(entry: Entry, where: string, check: (item: string) => string | null): string[] | null {
    const key = join(where, entry.key);
    const node = entry.value;
    if (!isSeq(node)) {
      const hint =
        isScalar(node) && typeof node.value === 'string'
          ? `; write it as a list: [${JSON.stringify(node.value)}]`
          : '';
      this.report(valueAt(node, entry.keyNode), key, `expected a list, got ${describe(node)}${hint}`);
      return null;
    }
    const values: string[] = [];
    let ok = true;
    node.items.forEach((raw, index) => {
      const item = this.resolve(raw);
      const itemKey = `${key}[${index}]`;
      if (item === null && isAlias(raw)) {
        const glob = JSON.stringify(`*${raw.source}`);
        this.report(raw, itemKey, `unknown alias *${raw.source}; quote a glob that starts with "*": ${glob}`);
        ok = false;
        return;
      }
      if (!isScalar(item) || typeof item.value !== 'string') {
        this.report(valueAt(item, node), itemKey, `expected a string, got ${describe(item)}`);
        ok = false;
        return;
      }
      const problem = check(item.value);
      if (problem !== null) {
        this.report(item, itemKey, `${JSON.stringify(item.value)}: ${problem}`);
        ok = false;
      } else if (values.includes(item.value)) {
        this.report(item, itemKey, `${JSON.stringify(item.value)}: listed twice`);
        ok = false;
      }
      values.push(item.value);
    });
    return ok ? values : null;
  }
}

export function join(where: string, key: string): string {
  return where === '' ? key : `${where}.${key}`;
}

export function valueAt(node: Node | null, fallback: Node | null): Node | null {
  return node?.range ? node : fallback;
}

export function describe(node: Node | null): string {
  if (node === null) return 'nothing';
  if (isMap(node)) return 'a mapping';
  if (isSeq(node)) return 'a list';
  if (isScalar(node)) {
    const value = node.value;
    if (value === null) return 'null';
    if (typeof value === 'string') return `string ${JSON.stringify(value)}`;
    return `${typeof value} ${String(value)}`;
  }
  return 'an unsupported node';
}

/** A positive integer at most `max`, or null with the problem reported. */
export function positiveInteger(c: Checker, entry: Entry, key: string, max: number): number | null {
  const node = entry.value;
  const value = isScalar(node) ? node.value : undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    c.report(valueAt(node, entry.keyNode), key, `expected a positive integer, got ${describe(node)}`);
    return null;
  }
  if (value > max) {
    c.report(node, key, `${value} is above the maximum of ${max}`);
    return null;
  }
  return value;
}

/** true or false, or null with the problem reported. */
export function booleanValue(c: Checker, entry: Entry, key: string): boolean | null {
  if (isScalar(entry.value) && typeof entry.value.value === 'boolean') return entry.value.value;
  c.report(valueAt(entry.value, entry.keyNode), key, `expected true or false, got ${describe(entry.value)}`);
  return null;
}
