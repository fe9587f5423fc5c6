import {
  DEFAULT_TOOLS,
  TOOL_NAMES,
  validatePath,
  type Perimeter,
  type PullRequestRule,
} from '../policy/index.js';
import { parseCommandArgs, renderHelp, type Flags } from './args.js';
import { listTrackedFiles } from './git.js';
import { EXIT_OK, type CliIo } from './io.js';
import { loadConfig, type LoadedConfig } from './load-config.js';
import { outsiderWorkflows } from './workflows.js';

export const CHECK_USAGE = 'perimeter check [--config perimeters.yml] [--json]';

export const CHECK_FLAGS = {
  config: { type: 'string', value: 'FILE', help: 'the perimeters file (default perimeters.yml)' },
  json: {
    type: 'boolean',
    default: false,
    help: 'print the coverage, or the problems, as JSON',
  },
} satisfies Flags;

export const CHECK_HELP = renderHelp({
  usage: CHECK_USAGE,
  about:
    'Validates perimeters.yml and, in a git checkout, counts what each perimeter can read and write, lists files more than one perimeter can write and tracked files no perimeter can read, and warns about workflow jobs that start an agent with Perimeter on events anyone can trigger, without a `trust` rule.',
  flags: CHECK_FLAGS,
  exits: '0 valid; 1 invalid (each problem with its line); 2 bad usage.',
});

export interface Coverage {
  total: number;
  counts: Map<string, { read: number; write: number }>;
  /** Files writable by more than one perimeter, with their writers. */
  overlapping: Array<{ path: string; writers: string[] }>;
  unreadable: string[];
  /** Tracked names that are not valid paths: nothing can read or write them through the gateway. */
  invalid: Array<{ path: string; reason: string }>;
}

export function coverage(perimeters: Perimeter[], files: string[]): Coverage {
  const counts = new Map(perimeters.map((p) => [p.name, { read: 0, write: 0 }]));
  const result: Coverage = { total: files.length, counts, overlapping: [], unreadable: [], invalid: [] };
  for (const path of files) {
    const check = validatePath(path);
    if (!check.ok) {
      result.invalid.push({ path, reason: check.reason });
      continue;
    }
    const writers: string[] = [];
    let readable = false;
    for (const perimeter of perimeters) {
      const count = counts.get(perimeter.name)!;
      if (perimeter.canRead(path).allowed) {
        count.read++;
        readable = true;
      }
      if (perimeter.canWrite(path).allowed) {
        count.write++;
        writers.push(perimeter.name);
      }
    }
    if (writers.length > 1) result.overlapping.push({ path, writers });
    if (!readable) result.unreadable.push(path);
  }
  return result;
}

function describePerimeter(p: Perimeter): string {
  const tools =
    p.tools.size === TOOL_NAMES.length
      ? 'all tools'
      : p.tools.size === DEFAULT_TOOLS.length && DEFAULT_TOOLS.every((t) => p.tools.has(t))
        ? 'all tools but the conversation ones'
        : `tools: ${[...p.tools].join(', ')}`;
  const branches = p.spec.branches === null ? 'any branch' : `branches: ${p.spec.branches.join(', ')}`;
  const unused =
    p.spec.write.length > 0 && !p.tools.has('push_files')
      ? ' (no push_files: its gateway endpoint cannot write)'
      : '';
  const extras = [
    ...(p.spec.deny?.length ? [`deny: ${p.spec.deny.join(', ')}`] : []),
    ...(p.spec.ownerDeny?.length ? [`top-level deny: ${p.spec.ownerDeny.join(', ')}`] : []),
    ...(p.spec.protect?.length ? [`protects: ${p.spec.protect.join(', ')}`] : []),
    ...(p.spec.untrustedTriggers ? ['exposed to untrusted triggers'] : []),
    ...(p.spec.pullRequests ? [`judges pull requests ${pullRequestRule(p.spec.pullRequests)}`] : []),
  ];
  return [`${tools}${unused}`, branches, ...extras].join('; ');
}

function pullRequestRule({ authors, branches }: PullRequestRule): string {
  const by = authors.length > 0 ? [`by ${authors.join(', ')}`] : [];
  const from = branches.length > 0 ? [`from ${branches.join(', ')}`] : [];
  return [...by, ...from].join(' ');
}

function section(title: string, lines: string[]): string {
  if (lines.length === 0) return `${title}: none\n`;
  return `${title} (${lines.length}):\n${lines.map((line) => `  ${line}\n`).join('')}`;
}

/** `check --json`: the same facts as the text, as data. */
function checkJson({ config, perimeters, root }: LoadedConfig) {
  const warnings =
    root === null || config.trust
      ? []
      : outsiderWorkflows(root).map((w) => ({
          workflow: w.file,
          job: w.job,
          events: w.events,
          problem: 'no trust rule',
        }));
  const result = root === null ? null : coverage(perimeters, listTrackedFiles(root));
  return {
    file: config.file,
    valid: true,
    version: config.version,
    perimeters: perimeters.map((p) => ({
      name: p.name,
      tools: [...p.tools],
      branches: p.spec.branches,
      pullRequests: p.spec.pullRequests ?? null,
      ...(result === null ? {} : result.counts.get(p.name)),
    })),
    tracked: result?.total ?? null,
    overlapping: result?.overlapping ?? [],
    unreadable: result?.unreadable ?? [],
    invalid: result?.invalid ?? [],
    warnings,
  };
}

export async function run(args: string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs(args, CHECK_FLAGS, false);
  const loaded = loadConfig(values.config, io.cwd);
  const { config, perimeters } = loaded;
  if (values.json) {
    io.stdout(`${JSON.stringify(checkJson(loaded))}\n`);
    return EXIT_OK;
  }
  const plural = perimeters.length === 1 ? 'perimeter' : 'perimeters';
  let out = `${config.file}: valid (version ${config.version}, ${perimeters.length} ${plural})\n`;

  if (loaded.root === null) {
    for (const p of perimeters) out += `  ${p.name}: ${describePerimeter(p)}\n`;
    io.stdout(`${out}Not in a git checkout: tracked-file counts skipped.\n`);
    return EXIT_OK;
  }

  if (!config.trust) {
    for (const w of outsiderWorkflows(loaded.root)) {
      out +=
        `warning: ${w.file}: job "${w.job}" starts an agent with Perimeter on ${w.events.join(', ')}, ` +
        `which people without write access can trigger, and ${config.file} has no trust rule: add "trust:" ` +
        'so untrusted triggers get only the perimeters marked "untrusted-triggers: true"\n';
    }
  }
  const files = listTrackedFiles(loaded.root);
  const result = coverage(perimeters, files);
  out += `\nTracked files: ${result.total}\n`;
  const width = Math.max(...perimeters.map((p) => p.name.length));
  for (const p of perimeters) {
    const { read, write } = result.counts.get(p.name)!;
    out += `  ${p.name.padEnd(width)}  reads ${read}, writes ${write}; ${describePerimeter(p)}\n`;
  }
  out += '\n';
  out += section(
    'Writable by more than one perimeter',
    result.overlapping.map((o) => `${o.path}: ${o.writers.join(', ')}`),
  );
  out += section('Readable by no perimeter', result.unreadable);
  if (result.invalid.length > 0) {
    out += section(
      'Not valid paths, never readable or writable',
      result.invalid.map((i) => `${JSON.stringify(i.path)}: ${i.reason}`),
    );
  }
  io.stdout(out);
  return EXIT_OK;
}
