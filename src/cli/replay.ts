import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { compilePerimeter, parseConfig, type Perimeter } from '../policy/index.js';
import { blobFactsOf, visible, type BlobFacts, type Change } from '../verify/index.js';
import { parseCommandArgs, renderHelp, wrap, type Flags } from './args.js';
import { blobContents, listCommitChanges, rangeBranch, tryDefaultBranch, tryShowFile } from './git.js';
import { createSecretFilter } from '../safety/index.js';
import { EXIT_CHANGES, EXIT_ERRORS, EXIT_OK, UsageError, type CliIo } from './io.js';
import { compareCalls, parseLedgerCalls, type CallChange } from './ledger-replay.js';
import { loadConfig, type LoadedConfig } from './load-config.js';
import {
  compareReplays,
  okMeaning,
  replayCommits,
  WHOLE_COMMIT,
  type ReplayChange,
  type ReplayRow,
} from './replay-judge.js';

export const REPLAY_USAGE =
  'perimeter replay [--config FILE] [--base REF | --no-base] [--json] (RANGE [--max-count N] [--branch NAME] | --ledger FILE)';

export const REPLAY_FLAGS = {
  config: {
    type: 'string',
    value: 'FILE',
    help: 'the proposed perimeters file, as in the working tree (default perimeters.yml)',
  },
  base: {
    type: 'string',
    value: 'REF',
    help: 'compare with the file as committed at REF (default HEAD); every commit whose verdict or refused paths change is listed',
  },
  'no-base': {
    type: 'boolean',
    default: false,
    help: 'judge with the proposed file only, compare with nothing',
  },
  ledger: {
    type: 'string',
    value: 'FILE',
    help: "judge the calls a run's gateway ledger recorded instead of commits",
  },
  'max-count': { type: 'string', value: 'N', help: 'at most the N newest commits of RANGE' },
  branch: {
    type: 'string',
    value: 'NAME',
    help: 'the branch the commits are judged as pushed to (default: the branch RANGE ends on)',
  },
  json: { type: 'boolean', default: false, help: 'print the rows and the changes as JSON' },
} satisfies Flags;

export const REPLAY_HELP = renderHelp({
  usage: REPLAY_USAGE,
  about:
    "Judges real commits (or a run's recorded calls) by the receipt's own rules under the proposed perimeters.yml and the committed one, and leads with what would change: the commits newly refused or newly allowed, and their paths. Merges are counted, not judged (their commits are).",
  args: { RANGE: 'a git revision range or a ref, e.g. main~50..main or main with --max-count' },
  flags: REPLAY_FLAGS,
  exits: '0 no verdict changes; 3 verdicts change; 1 git, ledger or config error; 2 bad usage.',
});

const SUBJECT = 60;

/**
 * Text from the repository or a ledger (subjects, paths, tool and perimeter names) as it may reach a terminal
 * or a job summary's code block: one line, every escape sequence and line break shown as `\uXXXX`.
 */
function shorten(text: string, max: number): string {
  const shown = visible(text);
  return shown.length <= max ? shown : `${shown.slice(0, max - 1)}…`;
}

function renderTable(rows: ReplayRow[], perimeters: Perimeter[]): string {
  const names = perimeters.map((p) => p.name);
  const widths = names.map((name) => Math.max(name.length, 2));
  const cells = (values: string[]) => values.map((value, i) => value.padEnd(widths[i]!)).join('  ');
  let out = `commit   ${cells(names)}  subject\n`;
  for (const row of rows) {
    const marks = names.map((name) => {
      const verdict = row.verdicts[name]!;
      return verdict.allowed ? 'ok' : `-${verdict.refused.length}`;
    });
    out += `${row.sha.slice(0, 7)}  ${cells(marks)}  ${shorten(row.subject, SUBJECT)}\n`;
  }
  const totals = names.map((name) => `${name} ${rows.filter((r) => r.verdicts[name]!.allowed).length}`);
  return `${out}\nCommits each perimeter could have made (of ${rows.length}): ${totals.join(', ')}\n`;
}

const WIDTH = 100;
const ITEM = 100;

/**
 * At most `max` items, each cut to ITEM characters, then how many more there are; folded between items so
 * lines stay within WIDTH columns (continuation lines indented by `indent`), where the first line already
 * holds `start` characters. One change never makes a line thousands of characters long.
 */
function some(items: string[], max: number, start: number, indent: number): string {
  const shown = items
    .slice(0, max)
    .map((item) => (item.length <= ITEM ? item : `${item.slice(0, ITEM - 1)}…`));
  const more = items.length - shown.length;
  const pieces = shown.map((item, i) =>
    i < shown.length - 1 ? `${item},` : more > 0 ? `${item} and ${more} more` : item,
  );
  let out = '';
  let column = start;
  pieces.forEach((piece, i) => {
    if (i > 0 && column + 1 + piece.length > WIDTH) {
      out += `\n${' '.repeat(indent)}`;
      column = indent;
    } else if (i > 0) {
      out += ' ';
      column += 1;
    }
    out += piece;
    column += piece.length;
  });
  return out;
}

const PATHS_PER_CHANGE = 10;
const PATHS_PER_PERIMETER = 8;

/** One commit whose verdict changes: a line of its own, then what it now refuses and allows, folded. */
function renderChange(change: ReplayChange): string {
  let out = `  ${change.sha.slice(0, 7)} ${visible(change.perimeter)}: ${change.before} -> ${change.after}\n`;
  const refused = change.newlyRefused.map((r) => `${visible(r.path ?? WHOLE_COMMIT)}: ${visible(r.rule)}`);
  const allowed = change.newlyAllowed.map((path) => visible(path));
  if (refused.length > 0) out += `    now refused: ${some(refused, PATHS_PER_CHANGE, 17, 6)}\n`;
  if (allowed.length > 0) out += `    now allowed: ${some(allowed, PATHS_PER_CHANGE, 17, 6)}\n`;
  return out;
}

/** Paths by how many changed commits name them, most first: `src/a.ts (5 commits)`. */
function pathCounts(paths: string[]): string[] {
  const counts = new Map<string, number>();
  for (const path of paths) counts.set(path, (counts.get(path) ?? 0) + 1);
  return [...counts]
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))
    .map(([path, n]) => `${visible(path)}${n > 1 ? ` (${n} commits)` : ''}`);
}

/** What the proposal changes, per perimeter, before any detail: the line a reviewer reads first. */
function renderVerdictSummary(changes: ReplayChange[], baseLabel: string): string {
  if (changes.length === 0) return `Against ${baseLabel}: no verdict changes.\n`;
  const commits = (from: ReplayChange['before'], to: ReplayChange['after']) =>
    new Set(changes.filter((c) => c.before === from && c.after === to).map((c) => c.sha)).size;
  const refusedCommits = commits('allowed', 'refused');
  let out = `Against ${baseLabel}: ${refusedCommits} commit${refusedCommits === 1 ? '' : 's'} newly refused, ${commits('refused', 'allowed')} newly allowed (${changes.length} change${changes.length === 1 ? '' : 's'} in all)\n`;
  for (const perimeter of [...new Set(changes.map((c) => c.perimeter))]) {
    const mine = changes.filter((c) => c.perimeter === perimeter);
    const refused = mine.filter((c) => c.before === 'allowed' && c.after === 'refused').length;
    const allowed = mine.filter((c) => c.before === 'refused' && c.after === 'allowed').length;
    const refusedPaths = pathCounts(mine.flatMap((c) => c.newlyRefused.map((r) => r.path ?? WHOLE_COMMIT)));
    const allowedPaths = pathCounts(mine.flatMap((c) => c.newlyAllowed));
    out += `  ${visible(perimeter)}: ${refused} newly refused, ${allowed} newly allowed\n`;
    for (const [what, paths] of [
      ['refused', refusedPaths],
      ['allowed', allowedPaths],
    ] as const) {
      const lead = `    paths now ${what} (${paths.length}): `;
      if (paths.length > 0) out += `${lead}${some(paths, PATHS_PER_PERIMETER, lead.length, 6)}\n`;
    }
  }
  return out;
}

interface Base {
  label: string;
  perimeters: Perimeter[];
}

/** The config as committed at `ref` (HEAD unless --base), or null when that commit has no such file. */
function loadBase(
  root: string,
  configInRepo: string,
  ref: string,
  io: CliIo,
  explicit: boolean,
): Base | null {
  const text = tryShowFile(root, ref, configInRepo);
  if (text === null) {
    if (explicit) io.stderr(`perimeter replay: ${ref} has no ${configInRepo}; nothing to compare with\n`);
    return null;
  }
  const label = `${ref}:${configInRepo}`;
  const config = parseConfig(text, label);
  return { label, perimeters: config.perimeters.map((spec) => compilePerimeter(spec, configInRepo)) };
}

function renderCallChange(change: CallChange): string {
  const verdict = (v: CallChange['before']) =>
    v.state === 'refused'
      ? `refused (${v.refused.map((r) => `${visible(String(r.path))}: ${visible(r.rule)}`).join(', ')})`
      : v.state;
  return `  #${change.seq} ${visible(change.perimeter)} ${visible(change.tool)} (recorded: ${visible(change.recorded)}): ${verdict(change.before)} -> ${verdict(change.after)}\n`;
}

async function replayLedger(file: string, loaded: LoadedConfig, base: Base | null, json: boolean, io: CliIo) {
  let text: string;
  try {
    text = await readFile(resolve(io.cwd, file), 'utf8');
  } catch (error) {
    throw new Error(
      `cannot read the ledger ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
      {
        cause: error,
      },
    );
  }
  const calls = parseLedgerCalls(text);
  const byName = (perimeters: Perimeter[]) => new Map(perimeters.map((p) => [p.name, p]));
  const changes =
    base === null ? [] : compareCalls(calls, byName(base.perimeters), byName(loaded.perimeters));
  if (json) {
    io.stdout(
      `${JSON.stringify({ config: loaded.config.file, ledger: file, base: base?.label ?? null, calls: calls.length, changes })}\n`,
    );
  } else {
    let out = `Replaying ${loaded.config.file} against the ledger ${file}: ${calls.length} call${calls.length === 1 ? '' : 's'}; ${base === null ? 'no base to compare with' : `base ${base.label}`}\n`;
    if (base !== null)
      out +=
        changes.length === 0
          ? `No call would be judged differently than under ${base.label}.\n`
          : `Calls judged differently than under ${base.label} (${changes.length}):\n${changes.map(renderCallChange).join('')}`;
    io.stdout(out);
  }
  return changes.length > 0 ? EXIT_CHANGES : EXIT_OK;
}

const SUBMODULE = '160000';

/** The blobs whose sizes the limits need: every arriving file's (a submodule's entry is a commit, no blob). */
function arrivingBlobs(changes: Change[]): string[] {
  return changes.flatMap((c) => (c.kind === 'deleted' || c.newMode === SUBMODULE ? [] : [c.newSha!]));
}

/** Each blob's size and the credentials in it, scanned as the gateway scans a push: the receipt's own rule. */
async function repositoryBlobFacts(root: string, shas: string[]): Promise<Map<string, BlobFacts>> {
  const filter = createSecretFilter();
  const facts = new Map<string, BlobFacts>();
  for (const [sha, bytes] of blobContents(root, shas)) facts.set(sha, await blobFactsOf(bytes, filter));
  return facts;
}

/**
 * `perimeter replay RANGE`: judges each non-merge commit of RANGE, as pushed to the branch RANGE ends on
 * (`--branch` to name another), by the receipt's rule against the proposed perimeters.yml
 * (which perimeter could have made it), and against the base version of the same file (by default the one
 * committed at HEAD) to list what the proposal changes. `--ledger FILE` does the same for the calls a run
 * recorded. Exit 3 when anything changes, so a workflow can gate pull requests that touch perimeters.yml.
 */
export async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, REPLAY_FLAGS, true);
  if (values.base !== undefined && values['no-base'])
    throw new UsageError('--base and --no-base exclude each other');
  if (values.ledger !== undefined && values.branch !== undefined)
    throw new UsageError('with --ledger, no --branch: the calls name their perimeters');
  if (values.ledger !== undefined ? positionals.length !== 0 : positionals.length !== 1)
    throw new UsageError(
      values.ledger !== undefined
        ? 'with --ledger, no RANGE'
        : `expected one RANGE (such as main~50..main) or --ledger FILE, got ${positionals.length} arguments`,
    );
  const loaded = loadConfig(values.config, io.cwd);
  if (loaded.root === null) {
    io.stderr('perimeter replay: the config is not in a git checkout: replay reads its history\n');
    return EXIT_ERRORS;
  }
  const base = values['no-base']
    ? null
    : loadBase(loaded.root, loaded.configInRepo, values.base ?? 'HEAD', io, values.base !== undefined);
  if (values.ledger !== undefined) return replayLedger(values.ledger, loaded, base, values.json, io);

  const range = positionals[0]!;
  const maxCount = values['max-count'] === undefined ? undefined : Number(values['max-count']);
  if (maxCount !== undefined && (!Number.isSafeInteger(maxCount) || maxCount < 1))
    throw new UsageError(
      `--max-count: expected a whole number above 0, got ${JSON.stringify(values['max-count'])}`,
    );
  const { commits, merges } = listCommitChanges(loaded.root, range, maxCount);
  const branch = values.branch ?? rangeBranch(loaded.root, range);
  if (branch === null)
    throw new UsageError(
      `${JSON.stringify(range)} does not end on a branch: name the branch its commits were made on with --branch`,
    );
  const blobs = await repositoryBlobFacts(loaded.root, arrivingBlobs(commits.flatMap((c) => c.changes)));
  const blob = (sha: string) => blobs.get(sha);
  const rows = replayCommits(commits, branch, loaded.perimeters, blob);
  const baseRows = base === null ? null : replayCommits(commits, branch, base.perimeters, blob);
  const changes = baseRows === null ? [] : compareReplays(baseRows, rows);

  if (values.json) {
    io.stdout(
      `${JSON.stringify({ config: loaded.config.file, range, branch, merges, base: base?.label ?? null, commits: rows, changes })}\n`,
    );
  } else {
    const against = base === null ? 'no base to compare with' : `base ${base.label}`;
    let out =
      `Replaying ${loaded.config.file} against ${range}${maxCount === undefined ? '' : ` (newest ${maxCount})`}: ${rows.length} commit${rows.length === 1 ? '' : 's'}` +
      `${merges > 0 ? ` (and ${merges} merge${merges === 1 ? '' : 's'}, not judged)` : ''}; ${against}\n\n`;
    if (base !== null) out += `${renderVerdictSummary(changes, base.label)}\n`;
    out += rows.length > 0 ? renderTable(rows, loaded.perimeters) : 'No commits in the range.\n';
    const ok = okMeaning(shorten(branch, 40), loaded.perimeters, tryDefaultBranch(loaded.root));
    out += `(${wrap(ok, 1)};\n "-N": N refusals, a path it could not have written or the commit over its limits)\n`;
    if (base !== null) {
      out +=
        changes.length === 0
          ? `\nNo changes from ${base.label}.\n`
          : `\nChanges from ${base.label} (${changes.length}):\n${changes.map(renderChange).join('')}`;
    }
    io.stdout(out);
  }
  return changes.length > 0 ? EXIT_CHANGES : EXIT_OK;
}
