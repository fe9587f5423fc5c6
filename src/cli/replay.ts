import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { compilePerimeter, parseConfig, type Perimeter } from '../policy/index.js';
import { visible, type Change } from '../verify/index.js';
import { parseCommandArgs } from './args.js';
import { blobSizes, listCommitChanges, rangeBranch, tryShowFile } from './git.js';
import { EXIT_CHANGES, EXIT_ERRORS, EXIT_OK, UsageError, type CliIo } from './io.js';
import { compareCalls, parseLedgerCalls, type CallChange } from './ledger-replay.js';
import { loadConfig, type LoadedConfig } from './load-config.js';
import {
  compareReplays,
  replayCommits,
  WHOLE_COMMIT,
  type ReplayChange,
  type ReplayRow,
} from './replay-judge.js';

export const REPLAY_USAGE =
  'perimeter replay [--config FILE] [--base REF | --no-base] [--json] (RANGE [--max-count N] [--branch NAME] | --ledger FILE)';

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

function renderChange(change: ReplayChange): string {
  const head = `  ${change.sha.slice(0, 7)} ${change.perimeter}: ${change.before} -> ${change.after}`;
  const refused = change.newlyRefused.map((r) => `${visible(r.path ?? WHOLE_COMMIT)}: ${visible(r.rule)}`);
  const allowed = change.newlyAllowed.map((path) => visible(path));
  const parts = [
    ...(refused.length > 0 ? [`now refused: ${refused.join(', ')}`] : []),
    ...(allowed.length > 0 ? [`now allowed: ${allowed.join(', ')}`] : []),
  ];
  return `${head}${parts.length > 0 ? `; ${parts.join('; ')}` : ''}\n`;
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

/**
 * `perimeter replay RANGE`: judges each non-merge commit of RANGE, as pushed to the branch RANGE ends on
 * (`--branch` to name another), by the receipt's rule against the proposed perimeters.yml
 * (which perimeter could have made it), and against the base version of the same file (by default the one
 * committed at HEAD) to list what the proposal changes. `--ledger FILE` does the same for the calls a run
 * recorded. Exit 3 when anything changes, so a workflow can gate pull requests that touch perimeters.yml.
 */
export async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    args,
    {
      config: { type: 'string' },
      base: { type: 'string' },
      'no-base': { type: 'boolean', default: false },
      ledger: { type: 'string' },
      'max-count': { type: 'string' },
      branch: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
    true,
  );
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
  const sizes = blobSizes(loaded.root, arrivingBlobs(commits.flatMap((c) => c.changes)));
  const sizeOf = (sha: string) => sizes.get(sha) ?? 0;
  const rows = replayCommits(commits, branch, loaded.perimeters, sizeOf);
  const baseRows = base === null ? null : replayCommits(commits, branch, base.perimeters, sizeOf);
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
    out += rows.length > 0 ? renderTable(rows, loaded.perimeters) : 'No commits in the range.\n';
    out += `("ok": that perimeter could have pushed it to "${branch}", judged as the receipt judges; "-N": N refusals, a path it could not have written or the commit over its limits)\n`;
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
