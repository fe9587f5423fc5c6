/**
 * `isolation: user` against an agent that runs as the runner's user, the way a GitHub-hosted runner runs a job:
 * a `runner`-like user made here, with passwordless sudo and a Docker socket (a stand-in, root:docker 660) it
 * reaches through its group, runs main, then the agent's steps, then post. Each attack is its own case, with
 * isolation on (it fails) and off (it succeeds, so the case can fail when the protection goes).
 * Needs root and useradd (CI runs as root); anywhere else it says why and skips.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  actionDir,
  createRunnerUser,
  DOCKER_GROUP,
  DOCKER_SOCKET,
  downloadAction,
  FILES,
  freshRunner,
  Job,
  READ_MEMORY,
  removeRunnerUser,
  RUNNER_USER,
  runnerUserMissing,
  type RunnerOptions,
  type StepResult,
} from '@perimeter/test-rigs';

const missing = runnerUserMissing();
if (missing !== null) console.log(`isolation.test.ts skipped: ${missing}`);

const sh = (script: string): string => execFileSync('sh', ['-c', script], { encoding: 'utf8' });
let runner: NonNullable<RunnerOptions['runAs']>;
let dockerSocket: Server | null = null;

beforeAll(async () => {
  if (missing !== null) return;
  runner = createRunnerUser();
  rmSync(DOCKER_SOCKET, { force: true });
  dockerSocket = createServer((socket) => socket.on('error', () => undefined).end('docker\n'));
  await new Promise<void>((resolve) => dockerSocket?.listen(DOCKER_SOCKET, resolve));
}, 60_000);

afterAll(() => {
  if (missing !== null) return;
  dockerSocket?.close();
  rmSync(DOCKER_SOCKET, { force: true });
  removeRunnerUser();
});

describe.skipIf(missing !== null).each([
  { isolation: 'user', attacks: 'fail' },
  { isolation: 'none', attacks: 'succeed' },
])(
  'with isolation: $isolation, the agent step (the runner user) tries and its attacks $attacks',
  ({ isolation }) => {
    const on = isolation === 'user';
    let job: Job;
    let action = '';
    let main: StepResult;
    let pid = 0;

    beforeAll(async () => {
      freshRunner();
      action = downloadAction(runner, await actionDir());
      job = await Job.create({
        files: FILES,
        actionDir: action,
        inputs: { perimeters: 'implementer', isolation },
        runner: {
          runAs: runner,
          env: { PERIMETER_DOCKER_SOCKET: DOCKER_SOCKET, RUNNER_ENVIRONMENT: 'github-hosted' },
        },
      });
      chmodSync(job.dir, 0o711);
      chownSync(job.runner.workspace, runner.uid, runner.gid);
      main = await job.main();
      expect(main.exitCode, main.log + main.stderr).toBe(0);
      pid = job.gatewayPid();
      // the figure SECURITY.md quotes: how long main took to serve, with and without isolation
      console.log(`isolation ${isolation}: ${/gateway ready \(pid \d+\) \d+ ms/.exec(main.log)?.[0] ?? '?'}`);
    }, 600_000);

    afterAll(async () => {
      const leftover = join(runner.home, 'leftover.pid');
      if (existsSync(leftover)) {
        try {
          process.kill(Number(readFileSync(leftover, 'utf8')), 'SIGKILL');
        } catch {
          // it ended by itself
        }
      }
      rmSync(leftover, { force: true });
      rmSync(join(runner.home, 'read-from-post'), { force: true });
      await job?.close();
    });

    /** One step of the agent's job as the runner's user: true when the attack worked (exit code 0). */
    const attack = async (script: string): Promise<boolean> => {
      const step = await job.runner.runShell(script, {
        GATEWAY_PID: String(pid),
        ACTION: action,
        LEDGER: main.state.ledgerPath ?? '',
        START_REFS: main.state.startRefsPath ?? '',
        NEEDLE: job.token,
        SOCKET: DOCKER_SOCKET,
      });
      return step.exitCode === 0;
    };
    const expected = !on;

    it('says in the log and the job summary what isolation removed', () => {
      if (on) {
        expect(main.log).toMatch(/Perimeter isolation:/);
        expect(main.log).toContain(`sudo for ${RUNNER_USER}: denied`);
        expect(main.summary).toContain(`the Docker socket ${DOCKER_SOCKET} (was root:${DOCKER_GROUP} 660)`);
      } else {
        expect(main.log).not.toMatch(/Perimeter isolation/);
      }
      // a GitHub-hosted runner is made anew for each job: no warning that the changes outlive it
      expect(main.annotations.filter((a) => a.title === 'Perimeter isolation')).toEqual([]);
    });

    it('reads the gateway process environment (/proc/<pid>/environ)', async () => {
      expect(await attack('tr "\\0" "\\n" < /proc/$GATEWAY_PID/environ | grep -q "^PATH="')).toBe(expected);
      // never the token, in either mode: it reaches the gateway on stdin
      expect(await attack('tr "\\0" "\\n" < /proc/$GATEWAY_PID/environ | grep -qF "$NEEDLE"')).toBe(false);
    });

    it('reads the token from the gateway memory (/proc/<pid>/mem)', async () => {
      expect(await attack(`printf '%s\\n' "$NEEDLE" | node -e '${READ_MEMORY}' "$GATEWAY_PID"`)).toBe(
        expected,
      );
    });

    it('never finds the token in the command line (/proc/<pid>/cmdline, world-readable)', async () => {
      expect(await attack('tr "\\0" " " < /proc/$GATEWAY_PID/cmdline | grep -q gateway')).toBe(true);
      expect(await attack('tr "\\0" " " < /proc/$GATEWAY_PID/cmdline | grep -qF "$NEEDLE"')).toBe(false);
    });

    it('opens the gateway open files (/proc/<pid>/fd)', async () => {
      // fd 2 is the gateway's log
      expect(
        await attack('ls /proc/$GATEWAY_PID/fd >/dev/null && head -c 1 /proc/$GATEWAY_PID/fd/2 >/dev/null'),
      ).toBe(expected);
    });

    it('reads the ledger and the state main saved for post', async () => {
      expect(await attack('test -n "$LEDGER" && cat "$LEDGER" >/dev/null')).toBe(expected);
      expect(await attack('cat "$START_REFS" >/dev/null')).toBe(expected);
    });

    it('rewrites dist/post in place', async () => {
      expect(await attack('echo "// rewritten by the agent" >> "$ACTION/dist/post/index.js"')).toBe(expected);
    });

    it('swaps the action directory for its own copy', async () => {
      const swap =
        'cp -R "$ACTION" "$ACTION.evil" && echo "// swapped by the agent" >> "$ACTION.evil/dist/post/index.js" && ' +
        'mv "$ACTION" "$ACTION.old" && mv "$ACTION.evil" "$ACTION"';
      expect(await attack(swap)).toBe(expected);
      expect(
        readFileSync(join(action, 'dist', 'post', 'index.js'), 'utf8').includes('swapped by the agent'),
      ).toBe(expected);
    });

    it('runs anything with sudo', async () => {
      expect(await attack('sudo -n true')).toBe(expected);
    });

    it('reaches the Docker socket', async () => {
      expect(await attack(`node -e '${CONNECT}' "$SOCKET"`)).toBe(expected);
    });

    it("the agent's work through the endpoint lands", async () => {
      const agent = await job.agent('implementer');
      const pushed = await agent.callTool({
        name: 'push_files',
        arguments: {
          message: 'work',
          files: [{ path: 'src/count.ts', content: 'export const count = 1;\n' }],
        },
      });
      expect(pushed.isError).toBeFalsy();
    });

    it('kills the gateway', async () => {
      expect(
        await attack(
          'kill -TERM "$GATEWAY_PID" && sleep 1 && ! grep -qE "^State:\\s+[RSD]" /proc/$GATEWAY_PID/status',
        ),
      ).toBe(expected);
    });

    // What isolation does not stop (SECURITY.md says so): post runs as the runner's user again, and the runner
    // ends leftover processes only after every post step.
    it('leaves a process behind, to read post environment (the token) as post runs', async () => {
      const leftover =
        `setsid sh -c 'echo $$ > "$HOME/leftover.pid"; for i in $(seq 600); do ` +
        `for p in /proc/[0-9]*; do tr "\\0" "\\n" < $p/environ 2>/dev/null | ` +
        `sed -n "s/^INPUT_GITHUB-TOKEN=//p" > "$HOME/read.tmp"; ` +
        `[ -s "$HOME/read.tmp" ] && { mv "$HOME/read.tmp" "$HOME/read-from-post"; exit 0; }; done; ` +
        `sleep 0.05; done' </dev/null >/dev/null 2>&1 &`;
      expect(await attack(leftover)).toBe(true);
    });

    it(`post verifies: ${on ? 'success' : 'error, the gateway was killed'}`, async () => {
      const post = await job.post();
      const [status] = await job.statuses(await job.head());
      expect(status?.state, post.log + post.stderr).toBe(on ? 'success' : 'error');
      if (!on) expect(post.log).toMatch(/gateway was not running/);
    }, 300_000);

    it('the process left behind read the token from post environment, in either mode', async () => {
      const read = join(runner.home, 'read-from-post');
      for (let i = 0; i < 100 && !existsSync(read); i++) await sleep(50);
      expect(existsSync(read) && readFileSync(read, 'utf8').trim() === job.token).toBe(true);
    });

    if (on) {
      it('left the action directory root-owned, and the gateway files its user', () => {
        expect(sh(`stat -c %U ${action}/dist/post/index.js`).trim()).toBe('root');
        expect(existsSync(`${action}.old`)).toBe(false);
      });
    }
  },
);

/** Connects to a unix socket: exit 0 if it accepted. */
const CONNECT = `require("net").connect(process.argv[1]).on("connect", () => process.exit(0)).on("error", (e) => { console.error(e.code); process.exit(1); })`;

describe('with isolation: user where it cannot work (here: the tests run as root, or without sudo)', () => {
  it('fails main saying why, and post posts an error receipt rather than start soft', async () => {
    const job = await Job.create({
      files: FILES,
      actionDir: await actionDir(),
      inputs: { perimeters: 'implementer', isolation: 'user' },
    });
    try {
      const main = await job.main();
      expect(main.exitCode).toBe(1);
      expect(main.log).toMatch(/isolation: user cannot work here: .*; set isolation: none to run without it/);
      expect(job.gatewayPid()).toBe(0);
      await job.post();
      const [status] = await job.statuses(await job.head());
      expect(status?.state).toBe('error');
      expect(status?.description).toMatch(/main step failed/);
    } finally {
      await job.close();
    }
  }, 300_000);
});

describe.skipIf(missing !== null)(
  'with isolation: user on a runner whose user has no sudo (self-hosted)',
  () => {
    it('fails main saying why, changes nothing, and post posts an error receipt', async () => {
      freshRunner({ sudo: false });
      const job = await Job.create({
        files: FILES,
        actionDir: downloadAction(runner, await actionDir()),
        inputs: { perimeters: 'implementer', isolation: 'user' },
        runner: { runAs: runner, env: { PERIMETER_DOCKER_SOCKET: DOCKER_SOCKET } },
      });
      try {
        chmodSync(job.dir, 0o711);
        const main = await job.main();
        expect(main.exitCode).toBe(1);
        expect(main.log).toContain(`the runner's user ${RUNNER_USER} has no passwordless sudo`);
        expect(job.gatewayPid()).toBe(0);
        expect(sh(`stat -c '%G %a' ${DOCKER_SOCKET}`).trim()).toBe(`${DOCKER_GROUP} 660`);
        await job.post();
        const [status] = await job.statuses(await job.head());
        expect(status?.state).toBe('error');
      } finally {
        await job.close();
      }
    }, 300_000);
  },
);
