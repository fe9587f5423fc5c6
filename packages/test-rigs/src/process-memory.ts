/**
 * Reading another process's memory the way an agent step would: /proc/<pid>/maps for the regions, then
 * /proc/<pid>/mem, as a given user, directly or through `sudo -n`. The kernel decides (the ptrace access check
 * on opening mem): nothing here infers it from uids.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { RunnerOptions } from './runner.js';

/**
 * Node's `-e` script: argv[1] the pid, the needles on stdin one a line (never in argv, which is
 * world-readable). Scans the readable and writable mappings only (what the process wrote at run time, where a
 * token it was handed lives; its code and read-only data cannot hold one) in 4 MiB chunks that overlap by a
 * needle's length, and stops at the first hit. Exits 0 when found, 1 when read and not found, 2 when the
 * kernel refuses to open the memory.
 */
export const READ_MEMORY = `
const fs = require("fs"); const pid = process.argv[1];
const needles = fs.readFileSync(0, "utf8").split("\\n").filter(Boolean).map((n) => Buffer.from(n));
let mem; try { mem = fs.openSync("/proc/" + pid + "/mem", "r"); } catch (e) { console.error(e.code); process.exit(2); }
const overlap = Math.max(0, ...needles.map((n) => n.length - 1)); const chunk = 1 << 22;
const buffer = Buffer.alloc(chunk + overlap);
for (const line of fs.readFileSync("/proc/" + pid + "/maps", "utf8").split("\\n")) {
  const m = /^([0-9a-f]+)-([0-9a-f]+) rw/.exec(line); if (!m) continue;
  const start = parseInt(m[1], 16), end = parseInt(m[2], 16);
  for (let at = start; at < end; at += chunk) {
    let n; try { n = fs.readSync(mem, buffer, 0, Math.min(chunk + overlap, end - at), at); } catch { break; }
    const part = buffer.subarray(0, n);
    if (needles.some((needle) => part.includes(needle))) process.exit(0);
  }
}
process.exit(1);`.replace(/\n/g, ' ');

type User = NonNullable<RunnerOptions['runAs']>;

/** How the user got at the memory: directly (the kernel let it) or through `sudo -n`; null when it could not. */
export type MemoryRoute = 'directly' | 'through sudo' | null;

/**
 * Whether `as` (this process's user when undefined) can find any of `needles` in the memory of `pid`: first
 * directly, and when the kernel refuses that, through `sudo -n`, as an agent on a hosted runner would.
 */
export async function memoryRoute(pid: number, needles: string[], as?: User): Promise<MemoryRoute> {
  const node = process.execPath;
  const read = ['-e', READ_MEMORY, String(pid)];
  const direct = await runAs(as, [node, ...read], needles);
  if (direct === 0) return 'directly';
  if (direct !== 2) return null;
  return (await runAs(as, ['sudo', '-n', node, ...read], needles)) === 0 ? 'through sudo' : null;
}

/** The uid a process runs as (its real uid, from /proc/<pid>/status), or null when it is gone. */
export function processUid(pid: number): number | null {
  try {
    const line = /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return line ? Number(line[1]) : null;
  } catch {
    return null;
  }
}

function runAs(as: User | undefined, command: string[], needles: string[]): Promise<number | null> {
  const [file, ...args] = as
    ? ['setpriv', `--reuid=${as.uid}`, `--regid=${as.gid}`, '--init-groups', '--', ...command]
    : command;
  return new Promise((resolve) => {
    const child = spawn(file!, args, {
      cwd: '/',
      stdio: ['pipe', 'ignore', 'ignore'],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    });
    child.on('error', () => resolve(null));
    child.on('close', (code) => resolve(code));
    child.stdin.on('error', () => undefined);
    child.stdin.end(`${needles.join('\n')}\n`);
  });
}
