import { validatePath, type Perimeter } from '../policy/index.js';
import { parseCommandArgs } from './args.js';
import { EXIT_OK, UsageError, type CliIo } from './io.js';
import { loadConfig } from './load-config.js';

export const EXPLAIN_USAGE = 'perimeter explain [--config FILE] [--json] PATH...';

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

export async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    args,
    { config: { type: 'string' }, json: { type: 'boolean', default: false } },
    true,
  );
  if (positionals.length === 0) throw new UsageError('explain needs at least one PATH');
  const { perimeters } = loadConfig(values.config, io.cwd);
  const explanations = positionals.map((input) => explainPath(input, perimeters));
  io.stdout(
    values.json ? `${JSON.stringify({ paths: explanations })}\n` : renderText(explanations, perimeters),
  );
  return EXIT_OK;
}
