import { EXIT_USAGE, type CliIo } from './io.js';

// Placeholder: the gateway engineer replaces this module with the real `perimeter serve`.
export async function run(_args: string[], io: CliIo): Promise<number> {
  io.stderr('perimeter serve: not available yet\n');
  return EXIT_USAGE;
}
