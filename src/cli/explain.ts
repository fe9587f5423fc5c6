import {
  ASSOCIATIONS,
  assignPullRequest,
  judgeTrigger,
  validatePath,
  type Config,
  type Perimeter,
} from '../policy/index.js';
import { parseCommandArgs, renderHelp, type Flags } from './args.js';
import { EXIT_OK, UsageError, type CliIo } from './io.js';
import { loadConfig } from './load-config.js';

export const EXPLAIN_USAGE =
  'perimeter explain [--config FILE] [--json] [--association NAME | --user LOGIN | --pr-author LOGIN --pr-branch BRANCH] PATH...';

export const EXPLAIN_FLAGS = {
  config: { type: 'string', value: 'FILE', help: 'the perimeters file (default perimeters.yml)' },
  json: { type: 'boolean', default: false, help: 'print the decisions as JSON' },
  association: {
    type: 'string',
    value: 'NAME',
    help: "only the perimeters a run triggered by someone of this author association (OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, NONE...) would expose under the file's `trust` rules",
  },
  user: {
    type: 'string',
    value: 'LOGIN',
    help: 'only the perimeters a run triggered by this login would expose under the `trust` rules',
  },
  'pr-author': {
    type: 'string',
    value: 'LOGIN',
    help: "with --pr-branch: the perimeter the pull-request gate would judge such a pull request by, from the file's `pull-requests` assignments",
  },
  'pr-branch': { type: 'string', value: 'BRANCH', help: "the pull request's head branch, with --pr-author" },
} satisfies Flags;

export const EXPLAIN_HELP = renderHelp({
  usage: EXPLAIN_USAGE,
  about: 'Shows, for each path and perimeter, whether it may be read and written, and the rule that decides.',
  args: {
    'PATH...': 'repository paths as perimeters.yml globs see them, e.g. src/app.ts (they need not exist)',
  },
  flags: EXPLAIN_FLAGS,
  exits: '0 explained; 1 the perimeters file is invalid; 2 bad usage.',
});

export interface PerimeterVerdict {
  read: boolean;
  write: boolean;
  reason: string;
}

export interface PathExplanation {
  input: string;
  path: string | null;
  error: string | null;
  perimeters: Record<string, PerimeterVerdict>;
}

export function explainPath(input: string, perimeters: Perimeter[]): PathExplanation {
  const check = validatePath(input);
  const verdicts: Record<string, PerimeterVerdict> = {};
  for (const perimeter of perimeters) {
    const read = perimeter.canRead(input);
    const write = perimeter.canWrite(input);
    const reason = check.ok ? `read: ${read.rule}; write: ${write.rule}` : read.rule;
    verdicts[perimeter.name] = { read: read.allowed, write: write.allowed, reason };
  }
  return check.ok
    ? { input, path: check.path, error: null, perimeters: verdicts }
    : { input, path: null, error: check.reason, perimeters: verdicts };
}

function renderText(explanations: PathExplanation[], perimeters: Perimeter[]): string {
  const width = Math.max(...perimeters.map((p) => p.name.length));
  const yesNo = (allowed: boolean) => (allowed ? 'yes' : 'no');
  let out = '';
  for (const e of explanations) {
    if (e.path === null) {
      out += `${JSON.stringify(e.input)}: rejected: ${e.error}\n`;
      continue;
    }
    out += `${e.path}\n`;
    for (const p of perimeters) {
      const name = p.name;
      const read = p.canRead(e.path);
      const write = p.canWrite(e.path);
      out += `  ${name.padEnd(width)}  read ${yesNo(read.allowed)} (${read.rule}); write ${yesNo(write.allowed)} (${write.rule})\n`;
    }
  }
  return out;
}

/**
 * With --association or --user: the perimeters a run triggered by a comment from that person would expose
 * under the file's trust rule, and a line saying why.
 */
function exposedTo(
  config: Config,
  perimeters: Perimeter[],
  association: string | undefined,
  user: string | undefined,
): { perimeters: Perimeter[]; trigger: string | null } {
  if (association === undefined && user === undefined) return { perimeters, trigger: null };
  if (association !== undefined && !(ASSOCIATIONS as readonly string[]).includes(association))
    throw new UsageError(
      `--association: expected one of ${ASSOCIATIONS.join(', ')}, got ${JSON.stringify(association)}`,
    );
  const who = user ?? 'someone';
  if (!config.trust)
    return { perimeters, trigger: `trigger: a comment by ${who}: no trust rule, every perimeter is exposed` };
  const payload = {
    comment: { user: { login: who }, author_association: association ?? 'NONE' },
    sender: { login: who },
  };
  const verdict = judgeTrigger(config.trust, 'issue_comment', payload);
  const exposed = verdict.trusted ? perimeters : perimeters.filter((p) => p.spec.untrustedTriggers === true);
  const names = exposed.map((p) => p.name).join(', ') || 'none (main refuses to start)';
  return {
    perimeters: exposed,
    trigger: `trigger: ${verdict.trusted ? 'trusted' : 'untrusted'} (${verdict.reason}); exposed: ${names}`,
  };
}

/**
 * With --pr-author and --pr-branch: the one perimeter the verify sub-action would judge such a pull request
 * by (perimeters.yml `pull-requests`), or none, and why.
 */
function assignedTo(
  perimeters: Perimeter[],
  author: string | undefined,
  branch: string | undefined,
): { perimeters: Perimeter[]; trigger: string } | null {
  if (author === undefined && branch === undefined) return null;
  if (author === undefined || branch === undefined)
    throw new UsageError('--pr-author and --pr-branch go together: a pull request has both');
  const assignment = assignPullRequest(
    perimeters.map((p) => p.spec),
    { author, headBranch: branch },
  );
  if (assignment.kind !== 'assigned')
    return { perimeters: [], trigger: `pull request: ${assignment.reason}` };
  return {
    perimeters: perimeters.filter((p) => p.name === assignment.spec.name),
    trigger: `pull request: judged by perimeter "${assignment.spec.name}" (${assignment.rule})`,
  };
}

export async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, EXPLAIN_FLAGS, true);
  if (positionals.length === 0) throw new UsageError('explain needs at least one PATH');
  const loaded = loadConfig(values.config, io.cwd);
  const pull = assignedTo(loaded.perimeters, values['pr-author'], values['pr-branch']);
  if (pull !== null && (values.association !== undefined || values.user !== undefined))
    throw new UsageError(
      '--pr-author/--pr-branch and --association/--user ask about different runs: give one',
    );
  const { perimeters, trigger } =
    pull ?? exposedTo(loaded.config, loaded.perimeters, values.association, values.user);
  const explanations = positionals.map((input) => explainPath(input, perimeters));
  if (values.json) {
    io.stdout(
      `${JSON.stringify(trigger === null ? { paths: explanations } : { trigger, paths: explanations })}\n`,
    );
  } else {
    const header = trigger === null ? '' : `${trigger}\n`;
    io.stdout(header + (perimeters.length > 0 ? renderText(explanations, perimeters) : ''));
  }
  return EXIT_OK;
}
