import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, readSync, fstatSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChildConfig } from '../../gateway/child.js';
import { makeScrubber } from '../../safety/secret-forms.js';

export interface SpawnOptions {
  /** path of dist/gateway/index.js */
  script: string;
  logPath: string;
  /**
   * isolation: what starts the gateway as its own user (src/action/agent-job/isolation.ts). The launcher exits
   * once the gateway runs on its own, reparented; the gateway's pid comes from the ready file, its log is the
   * gateway user's (readLog reads it), and kill ends it with killPid.
   */
  launcher?: { command: string; args: string[]; readLog: () => string; killPid: (pid: number) => void };
}

export interface LaunchOptions extends SpawnOptions {
  /** what the child reads on stdin (src/gateway/child.ts) */
  config: ChildConfig;
  timeoutMs: number;
  /** values to replace with *** (in every form: src/safety/secret-forms.ts) in anything quoted from the log */
  secrets: string[];
}

export class GatewayStartError extends Error {
  override name = 'GatewayStartError';
}

/** Variables the child may inherit: nothing that carries a credential (INPUT_GITHUB-TOKEN, ACTIONS_*). */
const INHERITED = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TMPDIR', 'TEMP', 'TMP', 'SYSTEMROOT', 'RUNNER_TEMP'];

/**
 * A gateway process that is loading its code and waits on stdin for its configuration. Main spawns it
 * first, so the child's start-up runs beside main's reads of GitHub; `configure` hands the configuration
 * over and waits for the ready file, `kill` ends a child main no longer needs.
 */
export interface PendingGateway {
  configure(
    config: ChildConfig,
    options: { timeoutMs: number; secrets: string[] },
  ): Promise<{ pid: number; port: number; controlPort?: number; egressPort?: number }>;
  kill(): void;
}

/**
 * Starts the gateway detached; it does nothing until `configure` writes its configuration.
 * The child's output goes to a file: a child holding the step's pipes would make the runner wait.
 */
export function spawnGateway(options: SpawnOptions): PendingGateway {
  const env: Record<string, string> = {};
  for (const name of INHERITED) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  const launcher = options.launcher;
  const log = launcher ? 'ignore' : openSync(options.logPath, 'a', 0o600);
  const child = spawn(launcher?.command ?? process.execPath, launcher?.args ?? [options.script], {
    detached: true,
    stdio: ['pipe', log, launcher ? 'pipe' : log],
    env,
    windowsHide: true,
  });
  if (typeof log === 'number') closeSync(log);

  let exited: string | null = null;
  let spawnError: Error | null = null;
  let launcherErrors = '';
  let readyPid: number | null = null;
  child.stderr?.setEncoding('utf8').on('data', (text: string) => (launcherErrors += text));
  child.once('exit', (code, signal) => {
    // a launcher that handed the gateway over exits 0: only its failure is the gateway's
    if (launcher && code === 0) return;
    exited = signal ? `signal ${signal}` : `exit code ${code}`;
    if (launcherErrors.trim()) exited += `: ${launcherErrors.trim()}`;
  });
  child.once('error', (error) => (spawnError = error));
  child.stdin?.on('error', () => undefined);

  const kill = (): void => {
    if (launcher) {
      child.stdin?.destroy();
      if (readyPid !== null) launcher.killPid(readyPid);
      return;
    }
    if (child.pid !== undefined && exited === null) {
      try {
        process.kill(child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  };

  const configure: PendingGateway['configure'] = async (config, { timeoutMs, secrets }) => {
    // one line: a launcher reads it with the shell's `read` (JSON.stringify escapes every newline)
    child.stdin?.end(`${JSON.stringify(config)}\n`);
    const fail = (reason: string): never => {
      kill();
      const tail = launcher ? makeScrubber(secrets)(launcher.readLog()) : logTail(options.logPath, secrets);
      throw new GatewayStartError(
        tail ? `${reason}; its log ends with:\n${tail}` : `${reason}; its log is empty`,
      );
    };
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (spawnError) fail(`the gateway could not be started: ${(spawnError as Error).message}`);
      const ready = tryReadReady(config.readyFile);
      if (ready) {
        child.unref();
        readyPid = ready.pid;
        return {
          pid: launcher ? ready.pid : (child.pid ?? ready.pid),
          port: ready.port,
          ...(ready.controlPort !== undefined && { controlPort: ready.controlPort }),
          ...(ready.egressPort !== undefined && { egressPort: ready.egressPort }),
        };
      }
      if (exited !== null) fail(`the gateway stopped before it was ready (${exited})`);
      if (Date.now() > deadline) fail(`the gateway was not ready within ${timeoutMs / 1000} s`);
      await sleep(10);
    }
  };
  return { configure, kill };
}

/**
 * Starts the gateway detached, hands it its configuration on stdin and waits for the ready file.
 * On any failure the child is killed before this throws: no half-started gateway is left behind.
 */
export async function launchGateway(options: LaunchOptions): Promise<{ pid: number; port: number }> {
  return spawnGateway(options).configure(options.config, options);
}

function tryReadReady(
  file: string,
): { port: number; pid: number; controlPort?: number; egressPort?: number } | null {
  if (!existsSync(file)) return null;
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as {
      port?: unknown;
      pid?: unknown;
      controlPort?: unknown;
      egressPort?: unknown;
    };
    if (typeof value.port === 'number' && typeof value.pid === 'number')
      return {
        port: value.port,
        pid: value.pid,
        ...(typeof value.controlPort === 'number' && { controlPort: value.controlPort }),
        ...(typeof value.egressPort === 'number' && { egressPort: value.egressPort }),
      };
  } catch {
    // written atomically by the gateway; a partial file means a foreign writer: keep waiting
  }
  return null;
}

/** The last lines of a log file with every form of every secret replaced by ***. */
export function logTail(path: string, secrets: string[], bytes = 4096): string {
  let text: string;
  try {
    const fd = openSync(path, 'r');
    try {
      const size = fstatSync(fd).size;
      const start = Math.max(0, size - bytes);
      const buffer = Buffer.alloc(size - start);
      readSync(fd, buffer, 0, buffer.length, start);
      text = buffer.toString('utf8');
      if (start > 0) text = text.slice(text.indexOf('\n') + 1);
    } finally {
      closeSync(fd);
    }
  } catch {
    return '';
  }
  return makeScrubber(secrets)(text).trimEnd().split('\n').slice(-20).join('\n');
}

/**
 * Whether `pid` is still our gateway. On Linux a zombie or a process that reused the pid does not count.
 */
export function isGatewayRunning(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (existsSync('/proc/self/stat')) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (state === 'Z' || state === 'X') return false;
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      return cmdline.includes('gateway');
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export type StopResult = 'not-running' | 'stopped' | 'killed';

/** SIGTERM, a grace period, then SIGKILL. */
export async function stopGateway(pid: number, graceMs: number): Promise<StopResult> {
  if (!isGatewayRunning(pid)) return 'not-running';
  signal(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    await sleep(25);
    if (!isGatewayRunning(pid)) return 'stopped';
  }
  signal(pid, 'SIGKILL');
  for (let i = 0; i < 40 && isGatewayRunning(pid); i++) await sleep(25);
  return 'killed';
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // exited in between
  }
}
