import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { checkChain, type LedgerVerdict } from '../ledger/index.js';
import { parseCommandArgs, renderHelp, type Flags } from './args.js';
import { EXIT_ERRORS, EXIT_OK, UsageError, type CliIo } from './io.js';
import { isRecord, readRecord } from './record/record-files.js';

export const VERIFY_LEDGER_USAGE = 'perimeter verify-ledger --key-file FILE [--json] LEDGER|RECORD';

export const VERIFY_LEDGER_FLAGS = {
  'key-file': {
    type: 'string',
    value: 'FILE',
    help: "the ledger's key (required: a record carries none; the key stays where the gateway ran)",
  },
  json: { type: 'boolean', default: false, help: 'print the verdict as JSON' },
} satisfies Flags;

export const VERIFY_LEDGER_HELP = renderHelp({
  usage: VERIFY_LEDGER_USAGE,
  about:
    "Checks a gateway ledger's HMAC chain: every record present, in order, unaltered. It proves the ledger is whole for whoever holds the key, not that the key is secret.",
  args: {
    'LEDGER|RECORD': "a ledger file (ledger.jsonl), or a run's record as a zip or a directory",
  },
  flags: VERIFY_LEDGER_FLAGS,
  exits: '0 chain intact; 1 broken or unreadable (the first broken record named); 2 bad usage.',
});

const why = (error: unknown) =>
  (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));

/**
 * The ledger text and its key, from --key-file only: a record (the run's workflow artifact, as a zip or
 * unpacked into a directory) carries no key, and a key found beside a ledger is never taken, since whoever
 * wrote one could have written the other.
 */
async function ledgerAndKey(target: string, keyFile: string | undefined, io: CliIo) {
  const key = keyFile
    ? await readFile(resolve(io.cwd, keyFile), 'utf8').catch((error: unknown) => {
        throw new Error(`cannot read the key file ${keyFile}: ${why(error)}`, { cause: error });
      })
    : null;
  if (await isRecord(target, io.cwd)) {
    const record = await readRecord(target, io.cwd);
    if (record.ledger === null) throw new Error(`${record.source} holds no ledger`);
    if (key === null)
      throw new UsageError(
        `--key-file FILE is required: a record carries no ledger key (the key never leaves the runner)`,
      );
    return { text: record.ledger, key: key.trim() };
  }
  if (key === null) throw new UsageError('--key-file FILE is required for a ledger file outside a record');
  const info = await stat(resolve(io.cwd, target)).catch((error: unknown) => {
    throw new Error(`cannot read the ledger ${target}: ${why(error)}`, { cause: error });
  });
  if (!info.isFile()) throw new Error(`cannot read the ledger ${target}: not a regular file`);
  return { text: await readFile(resolve(io.cwd, target), 'utf8'), key: key.trim() };
}

/** `perimeter verify-ledger`: checks the HMAC chain; exit 1 and the first broken record when it fails. */
export async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, VERIFY_LEDGER_FLAGS, true);
  if (positionals.length !== 1)
    throw new UsageError(`expected one ledger file or record, got ${positionals.length}`);
  const ledger = positionals[0]!;
  const { text, key } = await ledgerAndKey(ledger, values['key-file'], io);
  const { verified: _verified, ...verdict }: LedgerVerdict & { verified: unknown } = checkChain(text, key);
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
