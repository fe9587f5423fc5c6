import { EXIT_USAGE, type CliIo } from './io.js';

// Placeholder: the gateway engineer replaces this module with the real `perimeter verify-ledger`.
export async function run(_args: string[], io: CliIo): Promise<number> {
  io.stderr('perimeter verify-ledger: not available yet\n');
  return EXIT_USAGE;
}
