import { compilePerimeter, parseConfig, type Perimeter } from '../policy/index.js';
import { parseCommandArgs } from './args.js';
import { listCommitChanges, tryShowFile } from './git.js';
import { EXIT_CHANGES, EXIT_ERRORS, EXIT_OK, UsageError, type CliIo } from './io.js';
import { loadConfig } from './load-config.js';
import { compareReplays, replayCommits, type ReplayChange, type ReplayRow } from './replay-judge.js';

export const REPLAY_USAGE = 'perimeter replay [--config FILE] [--base REF | --no-base] [--json] RANGE';

const SUBJECT = 60;

function shorten(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
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
  const refused = change.newlyRefused.map((r) => `${r.path} (${r.rule})`);
  const parts = [
    ...(refused.length > 0 ? [`now refused: ${refused.join(', ')}`] : []),
    ...(change.newlyAllowed.length > 0 ? [`now allowed: ${change.newlyAllowed.join(', ')}`] : []),
  ];
  return `${head}${parts.length > 0 ? `; ${parts.join('; ')}` : ''}\n`;
}

/**
 * `perimeter replay RANGE`: judges each non-merge commit of RANGE against the proposed perimeters.yml
 * (which perimeter could have made it), and against the base version of the same file (by default the one
 * committed at HEAD) to list what the proposal changes. Exit 3 when anything changes, so a workflow can
 * gate pull requests that touch perimeters.yml on it.
 */
export async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    args,
    {
      config: { type: 'string' },
      base: { type: 'string' },
      'no-base': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
    true,
  );
  if (positionals.length !== 1)
    throw new UsageError(`expected one RANGE (such as main~50..main), got ${positionals.length}`);
  if (values.base !== undefined && values['no-base'])
    throw new UsageError('--base and --no-base exclude each other');
  const range = positionals[0]!;
  const loaded = loadConfig(values.config, io.cwd);
  if (loaded.root === null) {
    io.stderr('perimeter replay: the config is not in a git checkout: replay reads its history\n');
    return EXIT_ERRORS;
  }
  const { commits, merges } = listCommitChanges(loaded.root, range);
  const rows = replayCommits(commits, loaded.perimeters);

  let base: { ref: string; rows: ReplayRow[] } | null = null;
  if (!values['no-base']) {
    const ref = values.base ?? 'HEAD';
    const text = tryShowFile(loaded.root, ref, loaded.configInRepo);
    if (text !== null) {
      const label = `${ref}:${loaded.configInRepo}`;
      const config = parseConfig(text, label);
      const perimeters = config.perimeters.map((spec) => compilePerimeter(spec, loaded.configInRepo));
      base = { ref: label, rows: replayCommits(commits, perimeters) };
    } else if (values.base !== undefined) {
      io.stderr(`perimeter replay: ${values.base} has no ${loaded.configInRepo}; nothing to compare with\n`);
    }
  }
  const changes = base === null ? [] : compareReplays(base.rows, rows);

  if (values.json) {
    io.stdout(
      `${JSON.stringify({
        config: loaded.config.file,
        range,
        merges,
        base: base?.ref ?? null,
        commits: rows,
        changes,
      })}\n`,
    );
  } else {
    const against = base === null ? 'no base to compare with' : `base ${base.ref}`;
    let out =
      `Replaying ${loaded.config.file} against ${range}: ${rows.length} commit${rows.length === 1 ? '' : 's'}` +
      `${merges > 0 ? ` (and ${merges} merge${merges === 1 ? '' : 's'}, not judged)` : ''}; ${against}\n\n`;
    out += rows.length > 0 ? renderTable(rows, loaded.perimeters) : 'No commits in the range.\n';
    out += '("ok": every path writable by that perimeter; "-N": N paths it could not have written)\n';
    if (base !== null) {
      out +=
        changes.length === 0
          ? `\nNo changes from ${base.ref}.\n`
          : `\nChanges from ${base.ref} (${changes.length}):\n${changes.map(renderChange).join('')}`;
    }
    io.stdout(out);
  }
  return changes.length > 0 ? EXIT_CHANGES : EXIT_OK;
}
