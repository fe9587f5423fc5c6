import { AUDIT_FLAGS, AUDIT_HELP, AUDIT_USAGE, run as audit } from './record/audit.js';
import type { Flags } from './args.js';
import { CHECK_FLAGS, CHECK_HELP, CHECK_USAGE, run as check } from './check.js';
import { EXPLAIN_FLAGS, EXPLAIN_HELP, EXPLAIN_USAGE, run as explain } from './explain.js';
import { INIT_FLAGS, INIT_HELP, INIT_USAGE, run as init } from './init/init.js';
import type { CommandRun } from './io.js';
import { REPLAY_FLAGS, REPLAY_HELP, REPLAY_USAGE, run as replay } from './replay.js';
import { run as runAgent, RUN_AGENT_FLAGS, RUN_AGENT_HELP, RUN_AGENT_USAGE } from './run-agent.js';
import { run as serve, SERVE_FLAGS, SERVE_HELP, SERVE_USAGE } from './serve.js';
import {
  run as verifyLedger,
  VERIFY_LEDGER_FLAGS,
  VERIFY_LEDGER_HELP,
  VERIFY_LEDGER_USAGE,
} from './verify-ledger.js';
import { run as workspace, WORKSPACE_FLAGS, WORKSPACE_HELP, WORKSPACE_USAGE } from './workspace.js';

/** One command: how it runs, its usage line, its `--help`, and the flags its parser accepts. */
export interface Command {
  run: CommandRun;
  usage: string;
  help: string;
  summary: string;
  flags: Flags;
}

/** `perimeter <command>`: every command is a module exporting `run(args, io)`. */
export const COMMANDS: Record<string, Command> = {
  init: {
    run: init,
    usage: INIT_USAGE,
    help: INIT_HELP,
    flags: INIT_FLAGS,
    summary: "propose a commented perimeters.yml from the checkout's layout (never overwrites)",
  },
  check: {
    run: check,
    usage: CHECK_USAGE,
    help: CHECK_HELP,
    flags: CHECK_FLAGS,
    summary: 'validate perimeters.yml and show what each perimeter covers',
  },
  explain: {
    run: explain,
    usage: EXPLAIN_USAGE,
    help: EXPLAIN_HELP,
    flags: EXPLAIN_FLAGS,
    summary: 'show who may read and write each path, and why',
  },
  replay: {
    run: replay,
    usage: REPLAY_USAGE,
    help: REPLAY_HELP,
    flags: REPLAY_FLAGS,
    summary: 'judge a proposed perimeters.yml against real commits; exit 3 when verdicts change',
  },
  audit: {
    run: audit,
    usage: AUDIT_USAGE,
    help: AUDIT_HELP,
    flags: AUDIT_FLAGS,
    summary: "re-check a run's record (ledger chain, receipt) against GitHub; exit 3 when they disagree",
  },
  serve: {
    run: serve,
    usage: SERVE_USAGE,
    help: SERVE_HELP,
    flags: SERVE_FLAGS,
    summary: 'run the MCP gateway locally',
  },
  'verify-ledger': {
    run: verifyLedger,
    usage: VERIFY_LEDGER_USAGE,
    help: VERIFY_LEDGER_HELP,
    flags: VERIFY_LEDGER_FLAGS,
    summary: "check a gateway ledger's hash chain",
  },
  workspace: {
    run: workspace,
    usage: WORKSPACE_USAGE,
    help: WORKSPACE_HELP,
    flags: WORKSPACE_FLAGS,
    summary: "push what changed in a perimeter's workspace through its gateway endpoint, as one push_files",
  },
  'run-agent': {
    run: runAgent,
    usage: RUN_AGENT_USAGE,
    help: RUN_AGENT_HELP,
    flags: RUN_AGENT_FLAGS,
    summary: "run an agent command as the agent's own user (isolation: user); what the run-agent output runs",
  },
};
