import { isScalar, LineCounter, parseDocument } from 'yaml';
import { ConfigError } from './config-error.js';
import { branchGlobProblem, globProblem } from './glob.js';
import { DEFAULT_CONFIG_FILE, isOptionalFamily, OPTIONAL_FAMILY_NAMES } from './protected.js';
import { loginProblem } from './pull-requests/rules.js';
import { ASSOCIATIONS, type Association, type TrustRule } from './establish/trust.js';
import {
  DEFAULT_LIMITS,
  defaultPerimeterSpec,
  MAX_BYTES_PER_FILE,
  perimeterNameProblem,
  type Config,
  type Limits,
  type PerimeterSpec,
  type PullRequestRule,
} from './spec.js';
import { isToolName, TOOL_NAMES, type ToolName } from './tools.js';
import { parseConversation } from './conversation/parse.js';
import {
  booleanValue,
  Checker,
  describe,
  join,
  positiveInteger,
  valueAt,
  type Entry,
} from './yaml-checker.js';

const TOP_KEYS = ['version', 'protect', 'deny', 'trust', 'perimeters'] as const;
const PERIMETER_KEYS = [
  'description',
  'tools',
  'read',
  'write',
  'review',
  'branches',
  'allow-protected',
  'allow-credential-files',
  'allow-secrets-in',
  'deny',
  'protect',
  'untrusted-triggers',
  'instructions',
  'limits',
  'pull-requests',
  'conversation',
] as const;
const GLOB_FIELDS = {
  read: 'read',
  write: 'write',
  review: 'review',
  'allow-protected': 'allowProtected',
  'allow-credential-files': 'allowCredentialFiles',
  'allow-secrets-in': 'allowSecretsIn',
  deny: 'deny',
} as const;
type GlobField = (typeof GLOB_FIELDS)[keyof typeof GLOB_FIELDS];

function familyProblem(name: string): string | null {
  return isOptionalFamily(name)
    ? null
    : `unknown family; expected one of ${OPTIONAL_FAMILY_NAMES.join(', ')}`;
}

function parseTrust(c: Checker, entry: Entry): TrustRule | null {
  if (!c.expectMap(entry.value, entry.keyNode, 'trust')) return null;
  const rule: TrustRule = { associations: [], users: [] };
  let ok = true;
  for (const item of c.entries(entry.value, 'trust')) {
    if (item.key === 'associations') {
      const list = c.stringList(item, 'trust', (value) =>
        (ASSOCIATIONS as readonly string[]).includes(value)
          ? null
          : `unknown association; expected one of ${ASSOCIATIONS.join(', ')}`,
      );
      if (list === null) ok = false;
      else rule.associations = list as Association[];
    } else if (item.key === 'users') {
      const list = c.stringList(item, 'trust', loginProblem);
      if (list === null) ok = false;
      else rule.users = list;
    } else {
      c.report(item.keyNode, join('trust', item.key), 'unknown key; expected one of associations, users');
      ok = false;
    }
  }
  if (ok && rule.associations.length === 0 && rule.users.length === 0) {
    c.report(
      entry.value,
      'trust',
      'trusts nobody; list associations (e.g. [OWNER, MEMBER, COLLABORATOR]) or users',
    );
    ok = false;
  }
  return ok ? rule : null;
}
const PULL_REQUEST_KEYS = ['authors', 'branches'] as const;

function parsePullRequests(c: Checker, entry: Entry, where: string): PullRequestRule | null {
  const key = join(where, 'pull-requests');
  if (!c.expectMap(entry.value, entry.keyNode, key)) return null;
  const rule: PullRequestRule = { authors: [], branches: [] };
  let ok = true;
  for (const item of c.entries(entry.value, key)) {
    const list =
      item.key === 'authors'
        ? c.stringList(item, key, loginProblem)
        : item.key === 'branches'
          ? c.stringList(item, key, branchGlobProblem)
          : undefined;
    if (list === undefined)
      c.report(
        item.keyNode,
        join(key, item.key),
        `unknown key; expected one of ${PULL_REQUEST_KEYS.join(', ')}`,
      );
    if (list === null || list === undefined) ok = false;
    else rule[item.key as (typeof PULL_REQUEST_KEYS)[number]] = list;
  }
  if (ok && rule.authors.length === 0 && rule.branches.length === 0) {
    c.report(
      entry.value,
      key,
      'matches no pull request; list authors (e.g. [Copilot]) or head branches (e.g. ["copilot/**"])',
    );
    ok = false;
  }
  return ok ? rule : null;
}

const LIMIT_KEYS = {
  'files-per-push': 'filesPerPush',
  'bytes-per-file': 'bytesPerFile',
  'bytes-per-push': 'bytesPerPush',
} as const;

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
  const spec = defaultPerimeterSpec(entry.key);
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
        c.report(item.value, key, 'empty list; omit the key to allow every tool but the conversation ones');
      if (tools === null || tools.length === 0) ok = false;
      else spec.tools = tools as ToolName[];
    } else if (item.key === 'branches') {
      const branches = c.stringList(item, where, branchGlobProblem);
      if (branches !== null && branches.length === 0)
        c.report(item.value, key, 'empty list; omit the key to allow any branch');
      if (branches === null || branches.length === 0) ok = false;
      else spec.branches = branches;
    } else if (item.key === 'protect') {
      const families = c.stringList(item, where, familyProblem);
      if (families === null) ok = false;
      else spec.protect = families;
    } else if (item.key === 'untrusted-triggers') {
      const value = booleanValue(c, item, key);
      if (value === null) ok = false;
      else spec.untrustedTriggers = value;
    } else if (item.key === 'instructions') {
      const value = isScalar(item.value) ? item.value.value : undefined;
      if (value === 'config-ref' || value === 'branch') spec.instructions = value;
      else {
        c.report(
          valueAt(item.value, item.keyNode),
          key,
          `expected config-ref or branch, got ${describe(item.value)}`,
        );
        ok = false;
      }
    } else if (item.key === 'pull-requests') {
      const rule = parsePullRequests(c, item, where);
      if (rule === null) ok = false;
      else spec.pullRequests = rule;
    } else if (item.key === 'conversation') {
      const rule = parseConversation(c, item, where);
      if (rule === null) ok = false;
      else spec.conversation = rule;
    } else if (item.key === 'limits') {
      const limits = parseLimits(c, item, where);
      if (limits === null) ok = false;
      else spec.limits = limits;
    } else {
      const hint =
        item.key === '<<' ? ' (YAML merge keys are not supported; repeat the lists or use aliases)' : '';
      c.report(item.keyNode, key, `unknown key${hint}; expected one of ${PERIMETER_KEYS.join(', ')}`);
      ok = false;
    }
  }
  return ok ? spec : null;
}

/** Far above any real perimeters.yml; bounds the time and memory a hostile or mistaken file can cost. */
export const MAX_CONFIG_BYTES = 256 * 1024;

/** Parses and validates perimeters.yml text; reports every problem at once. Throws ConfigError. */
export function parseConfig(text: string, file: string = DEFAULT_CONFIG_FILE): Config {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_CONFIG_BYTES) {
    const message = `the file is ${bytes} bytes; at most ${MAX_CONFIG_BYTES} are read (use fewer, broader globs)`;
    throw new ConfigError([{ file, line: 1, column: 1, key: '(document)', message }]);
  }
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
  let protect: string[] = [];
  let deny: string[] = [];
  let trust: TrustRule | null = null;
  for (const entry of entries) {
    if (entry.key === 'version') version = entry;
    else if (entry.key === 'perimeters') perimetersEntry = entry;
    else if (entry.key === 'protect') protect = c.stringList(entry, '', familyProblem) ?? [];
    else if (entry.key === 'deny') deny = c.stringList(entry, '', globProblem) ?? [];
    else if (entry.key === 'trust') trust = parseTrust(c, entry);
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
  for (const spec of perimeters) {
    if (deny.length > 0) spec.ownerDeny = deny;
    const families = [...new Set([...protect, ...(spec.protect ?? [])])];
    if (families.length > 0) spec.protect = families;
  }
  return { version: 1, file, perimeters, trust };
}
