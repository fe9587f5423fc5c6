import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './io.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/** node:util parseArgs, with its errors turned into a UsageError. */
export function parseCommandArgs<O extends Options>(args: string[], options: O, positionals: boolean) {
  try {
    return parseArgs({ args, options, allowPositionals: positionals, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}
