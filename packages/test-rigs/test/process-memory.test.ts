/**
 * memoryRoute, against the kernel: a process of root's holds a token it read on stdin; root reads it directly,
 * a runner-like user with password-less sudo gets it through sudo, and the same user without sudo does not.
 * Needs root, useradd, setpriv and sudo (CI has them); anywhere else it says why and skips.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createRunnerUser,
  freshRunner,
  memoryRoute,
  processUid,
  removeRunnerUser,
  runnerUserMissing,
  type RunnerOptions,
} from '@perimeter/test-rigs';

const missing = runnerUserMissing();
if (missing !== null) console.log(`process-memory.test.ts skipped: ${missing}`);

const token = `ghs_${randomBytes(18).toString('hex')}`;
/** keeps what it read on stdin, says so, and waits */
const HOLDER = `let t = ""; process.stdin.on("data", (d) => (t += d)).on("end", () => {
  globalThis.kept = t.trim(); console.log("ready"); setInterval(() => {}, 1e6); });`;

describe.skipIf(missing !== null)('memoryRoute', () => {
  let holder: ChildProcess;
  let runner: NonNullable<RunnerOptions['runAs']>;
  let pid = 0;

  beforeAll(async () => {
    runner = createRunnerUser();
    holder = spawn(process.execPath, ['-e', HOLDER], { stdio: ['pipe', 'pipe', 'inherit'] });
    holder.stdin!.end(`${token}\n`);
    await once(holder.stdout!, 'data');
    pid = holder.pid!;
  }, 60_000);

  afterAll(() => {
    holder?.kill('SIGKILL');
    if (missing === null) removeRunnerUser();
  });

  it("reads the token directly as the process's own user", async () => {
    expect(processUid(pid)).toBe(0);
    expect(await memoryRoute(pid, [token])).toBe('directly');
  });

  it('finds nothing that is not there', async () => {
    expect(await memoryRoute(pid, [`ghs_${randomBytes(18).toString('hex')}`])).toBeNull();
  });

  describe('when another user has password-less sudo', () => {
    it('is refused directly and reads the token through sudo', async () => {
      freshRunner();
      expect(await memoryRoute(pid, [token], runner)).toBe('through sudo');
    });
  });

  describe('when that user has no sudo', () => {
    it('does not read it', async () => {
      freshRunner({ sudo: false });
      expect(await memoryRoute(pid, [token], runner)).toBeNull();
    });
  });

  describe('when the process is gone', () => {
    it('is null, and so is its uid', async () => {
      const gone = spawn(process.execPath, ['-e', '']);
      await once(gone, 'exit');
      expect(await memoryRoute(gone.pid!, [token])).toBeNull();
      expect(processUid(gone.pid!)).toBeNull();
    });
  });
});
