import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseCommandArgs, renderHelp, type Flags } from './args.js';
import { UsageError, type CliIo } from './io.js';

/**
 * `perimeter run-agent`: what the action's `run-agent` output runs (a root-owned script main wrote with
 * `isolation: user`, src/action/agent-job/agent-user.ts, that names this command with the agent user and its
 * directory). It runs the agent's command as the agent's own user through the one sudo rule main left the
 * runner's user, with the step's environment less what belongs to the runner, and when the command ends ends
 * every process of that user, so nothing of the agent's lives into the next step or post.
 */
export const RUN_AGENT_USAGE = 'perimeter run-agent --user USER --dir DIR -- COMMAND [ARG...]';

export const RUN_AGENT_FLAGS = {
  user: { type: 'string', value: 'USER', help: "the agent's user, as main made it" },
  dir: {
    type: 'string',
    value: 'DIR',
    help: "the agent's directory main made (root's): its home, its temporary directory, its helpers",
  },
} satisfies Flags;

export const RUN_AGENT_HELP = renderHelp({
  usage: RUN_AGENT_USAGE,
  about:
    "Runs COMMAND as the agent's user (isolation: user), with this step's environment less the runner's own variables, in this directory when the agent may enter it (else its home), and ends every process of that user when COMMAND ends. The exit code and the output are COMMAND's.",
  args: { COMMAND: 'the agent command, found on the step PATH' },
  flags: RUN_AGENT_FLAGS,
  exits:
    "0 COMMAND succeeded; else COMMAND's exit code (128 + the signal when a signal ended it); 125 a process of the agent's user outlived the ending; 75 another run-agent of this job is running (COMMAND did not run: one at a time, since the ending ends every process of the agent's user); 2 bad usage (before COMMAND ran).",
});

/** The absolute sudo main checked is root's (a bare name would be looked up on a PATH the step sets). */
const SUDO = '/usr/bin/sudo';
/** The helpers main wrote into the agent's directory; the sudo rule names exactly these. */
export const AS_AGENT = 'as-agent';
export const END_AGENT = 'end-agent';
/** The egress proxy's URL main wrote (src/action/agent-job/agent-user.ts, PROXY_FILE). */
const PROXY_FILE = 'proxy';

/**
 * run-agent's lock: a file in the directory main made the runner's user's (RUN_LOCK_DIR in
 * src/action/agent-job/agent-user.ts), holding the pid of the run-agent that runs.
 */
const LOCK_FILE = join('lock', 'run-agent.pid');
/** The exit code when another run-agent holds the lock (sysexits' EX_TEMPFAIL: try again later). */
export const EXIT_BUSY = 75;

/**
 * Takes run-agent's lock at `path`: null when this process now holds it, else the pid of the run-agent that
 * does. The agent's user is one per job and the ending ends every process of it, so two agent commands at once
 * would end each other. A lock whose run-agent is gone (killed before it could remove it) is taken over.
 */
export function tryLock(path: string, pid: number = process.pid): number | null {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, String(pid), { flag: 'wx', mode: 0o600 });
      return null;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = Number(tryRead(path));
    if (Number.isInteger(holder) && holder > 0 && running(holder)) return holder;
    rmSync(path, { force: true });
  }
  return Number(tryRead(path)) || -1;
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function tryRead(path: string): string | null {
  try {
    return readFileSync(path, 'utf8').trim() || null;
  } catch {
    return null;
  }
}

/**
 * The runner's own variables: the command files (an agent that writes GITHUB_ENV sets variables for post),
 * the runtime token and results URL (they replace post's record artifact), the action's inputs and main's
 * state, and sudo's. Everything else the step sets is the agent's, as the workflow wrote it.
 */
const RUNNER_VARIABLE =
  /^(GITHUB_(ENV|PATH|OUTPUT|STATE|STEP_SUMMARY)|ACTIONS_.*|INPUT_.*|STATE_.*|SUDO_.*|RUNNER_TRACKING_ID)$/i;

/** The step's environment as the agent gets it: the runner's variables out, its own home and temp in. */
export function agentEnvironment(
  env: NodeJS.ProcessEnv,
  agent: { user: string; dir: string; cwd: string; proxy: string | null },
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env))
    if (value !== undefined && !RUNNER_VARIABLE.test(name)) out[name] = value;
  const home = join(agent.dir, 'home');
  const tmp = join(agent.dir, 'tmp');
  return {
    ...out,
    HOME: home,
    USER: agent.user,
    LOGNAME: agent.user,
    TMPDIR: tmp,
    // the agent's user reaches the gateway and the egress proxy only: every host goes through the proxy
    ...(agent.proxy && {
      HTTPS_PROXY: agent.proxy,
      https_proxy: agent.proxy,
      HTTP_PROXY: agent.proxy,
      http_proxy: agent.proxy,
      NO_PROXY: '127.0.0.1,localhost,::1',
      no_proxy: '127.0.0.1,localhost,::1',
    }),
    // sudo puts its secure_path in place of PATH; the helper puts the step's back (PATH is the agent's own)
    PERIMETER_AGENT_PATH: env.PATH ?? '/usr/bin:/bin',
    PERIMETER_AGENT_CWD: agent.cwd,
  };
}

/** The processes whose real user is `uid`, from /proc (the runner's user reads any process's status). */
export function processesOf(uid: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      const real = /^Uid:\s+(\d+)/m.exec(status)?.[1];
      // a zombie is dead already: its parent (of the same user) is what goes
      if (Number(real) === uid && !/^State:\s+Z/m.test(status)) pids.push(Number(entry));
    } catch {
      // it ended while we looked
    }
  }
  return pids;
}

/** Ends every process of the agent's user: `kill -KILL -1` as that user, until none is left. */
export function endAgentProcesses(user: string, dir: string, uid: number): number[] {
  for (let round = 0; round < 50; round++) {
    spawnSync(SUDO, ['-n', '-u', user, '--', join(dir, END_AGENT)], { stdio: 'ignore', env: {} });
    if (processesOf(uid).length === 0) return [];
  }
  return processesOf(uid);
}

export async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, RUN_AGENT_FLAGS, true);
  if (!values.user || !values.dir) throw new UsageError('--user USER and --dir DIR are required');
  if (positionals.length === 0) throw new UsageError('expected the agent command after --');
  const { user, dir } = values as { user: string; dir: string };
  const uid = Number(spawnSync('/usr/bin/id', ['-u', user], { encoding: 'utf8' }).stdout.trim());
  if (!Number.isInteger(uid) || uid <= 0) throw new UsageError(`no user ${JSON.stringify(user)} here`);
  const lock = join(dir, LOCK_FILE);
  let holder: number | null;
  try {
    holder = tryLock(lock);
  } catch (error) {
    io.stderr(`perimeter run-agent: cannot take the lock ${lock}: ${(error as Error).message}\n`);
    return 1;
  }
  if (holder !== null) {
    io.stderr(
      `perimeter run-agent: another agent command of this job runs as ${user} (run-agent pid ${holder}): run-agent ` +
        `runs one at a time, since its ending ends every process of ${user}; run agents one after another, or in ` +
        'jobs of their own\n',
    );
    return EXIT_BUSY;
  }
  try {
    return await runLocked(positionals, { user, dir, uid }, io);
  } finally {
    rmSync(lock, { force: true });
  }
}

/** Runs the command as the agent's user and ends every process of that user, holding run-agent's lock. */
async function runLocked(
  positionals: string[],
  { user, dir, uid }: { user: string; dir: string; uid: number },
  io: CliIo,
): Promise<number> {
  const proxy = tryRead(join(dir, PROXY_FILE));
  const env = agentEnvironment(process.env, { user, dir, cwd: io.cwd, proxy });
  const child = spawn(SUDO, ['-n', '-E', '-u', user, '--', join(dir, AS_AGENT), ...positionals], {
    stdio: 'inherit',
    env,
  });
  // the runner cancels a step with SIGINT then SIGTERM: they reach the agent, and the ending still runs
  const relay = (signal: NodeJS.Signals) => child.kill(signal);
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const signal of signals) process.on(signal, relay);
  const ended = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('error', (error) => {
      io.stderr(`perimeter run-agent: could not start sudo: ${error.message}\n`);
      resolve({ code: 127, signal: null });
    });
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
  const left = endAgentProcesses(user, dir, uid);
  for (const signal of signals) process.off(signal, relay);
  if (left.length > 0) {
    io.stderr(`perimeter run-agent: processes of ${user} outlived the ending: ${left.join(', ')}\n`);
    return 125;
  }
  if (ended.signal !== null) return 128 + (signalNumber(ended.signal) ?? 0);
  return ended.code ?? 1;
}

function signalNumber(signal: NodeJS.Signals): number | undefined {
  const numbers: Partial<Record<NodeJS.Signals, number>> = {
    SIGHUP: 1,
    SIGINT: 2,
    SIGQUIT: 3,
    SIGKILL: 9,
    SIGSEGV: 11,
    SIGPIPE: 13,
    SIGTERM: 15,
  };
  return numbers[signal];
}
