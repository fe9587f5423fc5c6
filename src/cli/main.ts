import { ConfigError } from '../policy/index.js';
import { COMMANDS } from './commands.js';
import { EXIT_ERRORS, EXIT_OK, EXIT_USAGE, processIo, UsageError, type CliIo } from './io.js';
import { ConfigFileError } from './load-config.js';
import { VERSION } from '../version.js';

function usage(): string {
  const lines = Object.values(COMMANDS).map((c) => `  ${c.usage}\n      ${c.summary}`);
  return `Usage:\n${lines.join('\n')}\n  perimeter --version\n      print the version\n\n'perimeter COMMAND --help' explains each argument and option.\n`;
}

async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [name, ...args] = argv;
  if (name === '--version' || name === '-V') {
    io.stdout(`${VERSION}\n`);
    return EXIT_OK;
  }
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    (name === undefined ? io.stderr : io.stdout)(usage());
    return name === undefined ? EXIT_USAGE : EXIT_OK;
  }
  const command = COMMANDS[name];
  if (command === undefined) {
    io.stderr(`perimeter: unknown command ${JSON.stringify(name)}\n${usage()}`);
    return EXIT_USAGE;
  }
  const options = args.includes('--') ? args.slice(0, args.indexOf('--')) : args;
  if (options.includes('--help') || options.includes('-h')) {
    io.stdout(command.help);
    return EXIT_OK;
  }
  try {
    return await command.run(args, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(
        `perimeter ${name}: ${error.message}\nUsage: ${command.usage}\n(perimeter ${name} --help explains each option)\n`,
      );
      return EXIT_USAGE;
    }
    if (error instanceof ConfigError && options.includes('--json')) {
      io.stdout(`${JSON.stringify({ valid: false, problems: error.problems })}\n`);
      return EXIT_ERRORS;
    }
    if (error instanceof ConfigError) {
      io.stderr(
        `${error.message}\n${error.problems.length} problem${error.problems.length === 1 ? '' : 's'} found.\n`,
      );
      return EXIT_ERRORS;
    }
    if (error instanceof ConfigFileError) {
      io.stderr(`perimeter ${name}: ${error.message}\n`);
      return EXIT_ERRORS;
    }
    io.stderr(`perimeter ${name}: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT_ERRORS;
  }
}

void runCli(process.argv.slice(2), processIo()).then((code) => {
  process.exitCode = code;
});
