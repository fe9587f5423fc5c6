import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { verifyLedger } from '../ledger/index.js';
import { parseCommandArgs } from './args.js';
import { EXIT_ERRORS, EXIT_OK, UsageError, type CliIo } from './io.js';

export const VERIFY_LEDGER_USAGE = 'perimeter verify-ledger --key-file FILE [--json] LEDGER';

/** `perimeter verify-ledger`: checks the HMAC chain; exit 1 and the first broken record when it fails. */
export async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    args,
    { 'key-file': { type: 'string' }, json: { type: 'boolean', default: false } },
    true,
  );
  if (!values['key-file']) throw new UsageError('--key-file FILE is required');
  if (positionals.length !== 1) throw new UsageError(`expected one ledger file, got ${positionals.length}`);
  const why = (error: unknown) =>
    (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
  const ledger = positionals[0]!;
  let key: string;
  try {
    key = (await readFile(resolve(io.cwd, values['key-file']), 'utf8')).trim();
  } catch (error) {
    throw new Error(`cannot read the key file ${values['key-file']}: ${why(error)}`, { cause: error });
  }
  // Probed only: verifyLedger reads it (once).
  const info = await stat(resolve(io.cwd, ledger)).catch((error: unknown) => {
    throw new Error(`cannot read the ledger ${ledger}: ${why(error)}`, { cause: error });
  });
  if (!info.isFile()) throw new Error(`cannot read the ledger ${ledger}: not a regular file`);
  const verdict = await verifyLedger(resolve(io.cwd, ledger), key);
  if (values.json) {
    io.stdout(`${JSON.stringify({ ledger, ...verdict })}\n`);
    return verdict.ok ? EXIT_OK : EXIT_ERRORS;
  }
  if (verdict.ok) {
    io.stdout(`${ledger}: ok, ${verdict.records} records, chain intact\n`);
    return EXIT_OK;
  }
  io.stdout(`${ledger}: BROKEN at record ${verdict.brokenAt} of ${verdict.records}: ${verdict.problem}\n`);
  return EXIT_ERRORS;
}
