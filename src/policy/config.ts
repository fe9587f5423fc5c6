import {
  isAlias,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  parseDocument,
  type Document,
  type Node,
  type Pair,
} from 'yaml';
import { ConfigError, type ConfigProblem } from './config-error.js';
import { branchGlobProblem, globProblem } from './glob.js';
import { DEFAULT_CONFIG_FILE } from './protected.js';
import {
  DEFAULT_LIMITS,
  MAX_BYTES_PER_FILE,
  perimeterNameProblem,
  type Config,
  type Limits,
  type PerimeterSpec,
} from './spec.js';
import { isToolName, TOOL_NAMES, type ToolName } from './tools.js';

const TOP_KEYS = ['version', 'perimeters'] as const;
const PERIMETER_KEYS = [
  'description',
  'tools',
  'read',
  'write',
  'branches',
  'allow-protected',
  'allow-credential-files',
  'allow-secrets-in',
  'limits',
] as const;
const GLOB_FIELDS = {
  read: 'read',
  write: 'write',
  'allow-protected': 'allowProtected',
  'allow-credential-files': 'allowCredentialFiles',
  'allow-secrets-in': 'allowSecretsIn',
} as const;
type GlobField = (typeof GLOB_FIELDS)[keyof typeof GLOB_FIELDS];
const LIMIT_KEYS = {
  'files-per-push': 'filesPerPush',
  'bytes-per-file': 'bytesPerFile',
  'bytes-per-push': 'bytesPerPush',
} as const;

type Entry = { key: string; keyNode: Node | null; value: Node | null; pair: Pair };

class Checker {
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
      entries.push({ key, keyNode, value: this.resolve(pair.value), pair: pair as Pair });
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

function join(where: string, key: string): string {
  return where === '' ? key : `${where}.${key}`;
}

function valueAt(node: Node | null, fallback: Node | null): Node | null {
  return node?.range ? node : fallback;
}

function describe(node: Node | null): string {
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

function positiveInteger(c: Checker, entry: Entry, key: string, max: number): number | null {
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

function parseLimits(c: Checker, entry: Entry, where: string): Limits | null {
  const key = join(where, 'limits');
  if (!c.expectMap(entry.value, entry.keyNode, key)) return null;
  const limits: Limits = { ...DEFAULT_LIMITS };
  let ok = true;
  for (const item of c.entries(entry.value, key)) {
    const field = (LIMIT_KEYS as Record<string, keyof Limits>)[item.key];
    if (field === undefined) {
      c.report(
        item.keyNode,
        join(key, item.key),
        `unknown key; expected one of ${Object.keys(LIMIT_KEYS).join(', ')}`,
      );
      ok = false;
      continue;
    }
    const max = field === 'bytesPerFile' ? MAX_BYTES_PER_FILE : Number.MAX_SAFE_INTEGER;
    const value = positiveInteger(c, item, join(key, item.key), max);
    if (value === null) ok = false;
    else limits[field] = value;
  }
  return ok ? limits : null;
}

function parsePerimeter(c: Checker, entry: Entry): PerimeterSpec | null {
  const where = `perimeters.${entry.key}`;
  let ok = true;
  const nameProblem = perimeterNameProblem(entry.key);
  if (nameProblem) {
    c.report(entry.keyNode, where, nameProblem);
    ok = false;
  }
  if (!c.expectMap(entry.value, entry.keyNode, where)) return null;
  const spec: PerimeterSpec = {
    name: entry.key,
    tools: [...TOOL_NAMES],
    read: [],
    write: [],
    branches: null,
    allowProtected: [],
    limits: { ...DEFAULT_LIMITS },
    allowCredentialFiles: [],
    allowSecretsIn: [],
  };
  for (const item of c.entries(entry.value, where)) {
    const key = join(where, item.key);
    const globField = (GLOB_FIELDS as Record<string, GlobField>)[item.key];
    if (globField !== undefined) {
      const globs = c.stringList(item, where, globProblem);
      if (globs === null) ok = false;
      else spec[globField] = globs;
    } else if (item.key === 'description') {
      if (isScalar(item.value) && typeof item.value.value === 'string') spec.description = item.value.value;
      else {
        c.report(valueAt(item.value, item.keyNode), key, `expected a string, got ${describe(item.value)}`);
        ok = false;
      }
    } else if (item.key === 'tools') {
      const tools = c.stringList(item, where, (tool) =>
        isToolName(tool) ? null : `unknown tool; expected one of ${TOOL_NAMES.join(', ')}`,
      );
      if (tools !== null && tools.length === 0)
        c.report(item.value, key, 'empty list; omit the key to allow every tool');
      if (tools === null || tools.length === 0) ok = false;
      else spec.tools = tools as ToolName[];
    } else if (item.key === 'branches') {
      const branches = c.stringList(item, where, branchGlobProblem);
      if (branches !== null && branches.length === 0)
        c.report(item.value, key, 'empty list; omit the key to allow any branch');
      if (branches === null || branches.length === 0) ok = false;
      else spec.branches = branches;
    } else if (item.key === 'limits') {
      const limits = parseLimits(c, item, where);
      if (limits === null) ok = false;
      else spec.limits = limits;
    } else {
      c.report(item.keyNode, key, `unknown key; expected one of ${PERIMETER_KEYS.join(', ')}`);
      ok = false;
    }
  }
  return ok ? spec : null;
}

/** Parses and validates perimeters.yml text; reports every problem at once. Throws ConfigError. */
export function parseConfig(text: string, file: string = DEFAULT_CONFIG_FILE): Config {
  const lines = new LineCounter();
  const doc = parseDocument(text, {
    lineCounter: lines,
    uniqueKeys: false,
    prettyErrors: false,
    strict: true,
  });
  const c = new Checker(file, doc, lines);
  for (const issue of [...doc.errors, ...doc.warnings]) {
    c.report(issue.pos[0], 'yaml', issue.message.split('\n')[0]!);
  }
  if (c.problems.length > 0) throw new ConfigError(c.problems);

  const root = c.resolve(doc.contents);
  if (root === null || (isScalar(root) && root.value === null)) {
    c.report(0, 'version', 'missing; the file is empty (start with "version: 1")');
    throw new ConfigError(c.problems);
  }
  if (!c.expectMap(root, null, '(document)')) throw new ConfigError(c.problems);

  const entries = c.entries(root, '');
  const perimeters: PerimeterSpec[] = [];
  let version: Entry | undefined;
  let perimetersEntry: Entry | undefined;
  for (const entry of entries) {
    if (entry.key === 'version') version = entry;
    else if (entry.key === 'perimeters') perimetersEntry = entry;
    else c.report(entry.keyNode, entry.key, `unknown key; expected one of ${TOP_KEYS.join(', ')}`);
  }
  if (version === undefined) {
    c.report(root, 'version', 'missing; add "version: 1"');
  } else {
    const value = isScalar(version.value) ? version.value.value : undefined;
    if (typeof value !== 'number') {
      c.report(
        valueAt(version.value, version.keyNode),
        'version',
        `expected the number 1, got ${describe(version.value)}`,
      );
    } else if (value !== 1) {
      c.report(version.value, 'version', `unsupported version ${value}; this Perimeter reads version 1`);
    }
  }
  if (perimetersEntry === undefined) {
    c.report(root, 'perimeters', 'missing; define at least one perimeter');
  } else if (c.expectMap(perimetersEntry.value, perimetersEntry.keyNode, 'perimeters')) {
    const items = c.entries(perimetersEntry.value, 'perimeters');
    if (items.length === 0 && c.problems.length === 0) {
      c.report(perimetersEntry.value, 'perimeters', 'empty; define at least one perimeter');
    }
    for (const item of items) {
      const spec = parsePerimeter(c, item);
      if (spec !== null) perimeters.push(spec);
    }
  }
  if (c.problems.length > 0) {
    c.problems.sort((a, b) => a.line - b.line || a.column - b.column);
    throw new ConfigError(c.problems);
  }
  return { version: 1, file, perimeters };
}
