import { ConfigError } from '../policy/index.js';
import { AUDIT_HELP, AUDIT_USAGE, run as audit } from './record/audit.js';
import { CHECK_HELP, CHECK_USAGE, run as check } from './check.js';
import { EXPLAIN_HELP, EXPLAIN_USAGE, run as explain } from './explain.js';
import { INIT_HELP, INIT_USAGE, run as init } from './init.js';
import {
  EXIT_ERRORS,
  EXIT_OK,
  EXIT_USAGE,
  processIo,
  UsageError,
  type CliIo,
  type CommandRun,
} from './io.js';
import { ConfigFileError } from './load-config.js';
import { REPLAY_HELP, REPLAY_USAGE, run as replay } from './replay.js';
import { run as serve, SERVE_HELP, SERVE_USAGE } from './serve.js';
import { run as verifyLedger, VERIFY_LEDGER_HELP, VERIFY_LEDGER_USAGE } from './verify-ledger.js';
import { run as workspace, WORKSPACE_HELP, WORKSPACE_USAGE } from './workspace.js';
import { VERSION } from '../version.js';

/** `perimeter <command>`: every command is a module exporting `run(args, io)`. */
const COMMANDS: Record<string, { run: CommandRun; usage: string; help: string; summary: string }> = {
  init: {
    run: init,
    usage: INIT_USAGE,
    help: INIT_HELP,
    summary: "propose a commented perimeters.yml from the checkout's layout (never overwrites)",
  },
  check: {
    run: check,
    usage: CHECK_USAGE,
    help: CHECK_HELP,
    summary: 'validate perimeters.yml and show what each perimeter covers',
  },
  explain: {
    run: explain,
    usage: EXPLAIN_USAGE,
    help: EXPLAIN_HELP,
    summary: 'show who may read and write each path, and why',
  },
  replay: {
    run: replay,
    usage: REPLAY_USAGE,
    help: REPLAY_HELP,
    summary: 'judge a proposed perimeters.yml against real commits; exit 3 when verdicts change',
  },
  audit: {
    run: audit,
    usage: AUDIT_USAGE,
    help: AUDIT_HELP,
    summary: "re-check a run's record (ledger chain, receipt) against GitHub; exit 3 when they disagree",
  },
  serve: { run: serve, usage: SERVE_USAGE, help: SERVE_HELP, summary: 'run the MCP gateway locally' },
  'verify-ledger': {
    run: verifyLedger,
    usage: VERIFY_LEDGER_USAGE,
    help: VERIFY_LEDGER_HELP,
    summary: "check a gateway ledger's hash chain",
  },
  workspace: {
    run: workspace,
    usage: WORKSPACE_USAGE,
    help: WORKSPACE_HELP,
    summary: "push what changed in a perimeter's workspace through its gateway endpoint, as one push_files",
  },
};

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
