/**
 * The agent as a user of its own (`isolation: user`, the `run-agent` output), against the routes of issue #41
 * and their variations, on a job the way a GitHub-hosted runner runs it: the runner-like user with passwordless
 * sudo, a stand-in Docker socket its group reaches, and /usr/local/bin writable by its group. Every attack runs
 * as the agent, through run-agent, from the runner's step; each case says what it tried and ends without the
 * token in the agent's hands, and the job's receipt is `failure` (the out-of-scope change) or `error` (post's
 * state tampered with). Needs root, useradd and sudo (CI has them); anywhere else it says why and skips.
 */
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  actionDir,
  createRunnerUser,
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
if (missing !== null) console.log(`agent-user.test.ts skipped: ${missing}`);

const AGENT_USER = 'perimeter-agent';
const sh = (script: string): string => execFileSync('sh', ['-c', script], { encoding: 'utf8' });
/** The agent's scripts (world-readable) and what its attacks leave for the test to look at (world-writable). */
const SCRIPTS = `/tmp/ptest-agent-scripts-${process.pid}`;
const LOOT = `/tmp/ptest-agent-loot-${process.pid}`;
/** A git planted where sudo's secure_path looks first: it records who ran it, then is git. */
const PLANTED_GIT = '/usr/local/bin/git';
const PLANTED_RECORD = `/tmp/ptest-planted-git-${process.pid}.env`;
/** A host the agent may reach through its proxy (this machine's network answers on it) and one it may not. */
const REACHABLE = '1.1.1.1';
const UNLISTED = 'exfiltrate.example.com';
let runner: NonNullable<RunnerOptions['runAs']>;
let dockerSocket: Server | null = null;
let localBin = '';

beforeAll(async () => {
  if (missing !== null) return;
  runner = createRunnerUser();
  rmSync(DOCKER_SOCKET, { force: true });
  dockerSocket = createServer((socket) => socket.on('error', () => undefined).end('docker\n'));
  await new Promise<void>((resolve) => dockerSocket?.listen(DOCKER_SOCKET, resolve));
  for (const dir of [SCRIPTS, LOOT]) mkdirSync(dir, { recursive: true });
  chmodSync(SCRIPTS, 0o755);
  chmodSync(LOOT, 0o1777);
  // as GitHub's images have it: /usr/local/bin writable by the runner's group (sudo's secure_path has it first)
  localBin = sh("stat -c '%U:%G %a' /usr/local/bin").trim();
  sh(`chgrp ${runner.gid} /usr/local/bin && chmod g+w /usr/local/bin`);
}, 60_000);

afterAll(() => {
  if (missing !== null) return;
  const [owner = 'root:root', mode = '755'] = localBin.split(' ');
  sh(`chown ${owner} /usr/local/bin && chmod ${mode} /usr/local/bin`);
  if (existsSync(PLANTED_GIT) && readFileSync(PLANTED_GIT, 'utf8').includes(PLANTED_RECORD))
    rmSync(PLANTED_GIT, { force: true });
  dockerSocket?.close();
  for (const path of [DOCKER_SOCKET, SCRIPTS, LOOT, PLANTED_RECORD])
    rmSync(path, { recursive: true, force: true });
  removeRunnerUser();
});

/** A job of the runner-like user with isolation: user, main run. */
async function isolatedJob(
  inputs: Record<string, string> = {},
): Promise<{ job: Job; main: StepResult; action: string }> {
  freshRunner();
  const action = downloadAction(runner, await actionDir());
  const job = await Job.create({
    files: FILES,
    actionDir: action,
    inputs: { perimeters: 'implementer', isolation: 'user', ...inputs },
    runner: {
      runAs: runner,
      env: { PERIMETER_DOCKER_SOCKET: DOCKER_SOCKET, RUNNER_ENVIRONMENT: 'github-hosted' },
    },
  });
  chmodSync(job.dir, 0o711);
  chownSync(job.runner.workspace, runner.uid, runner.gid);
  const main = await job.main();
  return { job, main, action };
}

describe.skipIf(missing !== null)('with isolation: user, an agent run through run-agent', () => {
  let job: Job;
  let main: StepResult;
  let action = '';
  let runAgent = '';
  let scripts = 0;

  beforeAll(async () => {
    ({ job, main, action } = await isolatedJob({ 'agent-egress': `anthropic, ${REACHABLE}` }));
    expect(main.exitCode, main.log + main.stderr).toBe(0);
    runAgent = main.outputs['run-agent'] ?? '';
  }, 600_000);

  afterAll(async () => {
    await job?.close();
  });

  /**
   * One agent step: `run-agent /bin/sh SCRIPT` from a step of the runner's user, with `env` in the step's
   * environment (run-agent hands the agent what is not the runner's).
   */
  const agentStep = async (script: string, env: Record<string, string> = {}): Promise<StepResult> => {
    const file = join(SCRIPTS, `attack-${++scripts}.sh`);
    writeFileSync(file, `set -u\n${script}\n`, { mode: 0o644 });
    return job.runner.runShell('"$RUN_AGENT" /bin/sh "$SCRIPT"', {
      RUN_AGENT: runAgent,
      SCRIPT: file,
      GATEWAY_PID: String(job.gatewayPid()),
      ACTION: action,
      LOOT,
      SOCKET: DOCKER_SOCKET,
      ...env,
    });
  };
  /** true when the attack (exit 0 = it worked) worked */
  const worked = async (script: string, env: Record<string, string> = {}): Promise<boolean> =>
    (await agentStep(script, env)).exitCode === 0;

  it("hands out run-agent: root's, in a directory of root's, writable by no one else", () => {
    expect(runAgent).toMatch(/^\/var\/lib\/perimeter\/run-\w+\.agent\/run-agent$/);
    for (const path of [runAgent, join(runAgent, '..')]) {
      const stat = statSync(path);
      expect(stat.uid).toBe(0);
      expect(stat.mode & 0o022).toBe(0);
    }
    expect(main.log).toContain(`agents run as user ${AGENT_USER} through ${runAgent}`);
  });

  it("runs the command as the agent's user, its exit code, output and error output unchanged", async () => {
    const step = await agentStep('id -un; echo "to stderr" >&2; printf "%s" "$HOME" >&2; exit 7');
    expect(step.exitCode).toBe(7);
    expect(step.stdout).toBe(`${AGENT_USER}\n`);
    expect(step.stderr).toBe(`to stderr\n${join(runAgent, '..', 'home')}`);
  });

  it("hands the agent the step's variables and none of the runner's", async () => {
    const step = await agentStep('env', {
      TASK: 'count the widgets',
      ACTIONS_RUNTIME_TOKEN: 'runtime-token',
      ACTIONS_RESULTS_URL: 'http://results',
      'INPUT_GITHUB-TOKEN': job.token,
      STATE_stagePath: '/tmp/x',
    });
    expect(step.exitCode).toBe(0);
    const names = step.stdout.split('\n').map((line) => line.split('=')[0]);
    expect(names).toContain('TASK');
    for (const name of [
      'GITHUB_ENV',
      'GITHUB_PATH',
      'GITHUB_OUTPUT',
      'GITHUB_STATE',
      'GITHUB_STEP_SUMMARY',
      'ACTIONS_RUNTIME_TOKEN',
      'ACTIONS_RESULTS_URL',
      'INPUT_GITHUB-TOKEN',
      'STATE_stagePath',
      'SUDO_USER',
    ])
      expect(names).not.toContain(name);
    expect(step.stdout).not.toContain(job.token);
  });

  it('reads the MCP config it is handed, and nothing of main', () => {
    const config = main.outputs['mcp-config-implementer'] ?? '';
    expect(config.startsWith(join(runAgent, '..', 'config'))).toBe(true);
    expect(statSync(config).uid).toBe(Number(sh(`id -u ${AGENT_USER}`)));
  });

  describe('the agent cannot', () => {
    it('use sudo (no rule; and run-agent runs it with no_new_privs)', async () => {
      expect(await worked('sudo -n true')).toBe(false);
      expect(await worked('grep -q "^NoNewPrivs:\\s*1" /proc/self/status')).toBe(true);
    });

    it('reach the Docker socket', async () => {
      expect(await worked(`node -e '${CONNECT}' "$SOCKET"`)).toBe(false);
    });

    it("read the gateway's environment, memory or files", async () => {
      expect(await worked('cat /proc/$GATEWAY_PID/environ >/dev/null')).toBe(false);
      expect(await worked(`printf 'x\\n' | node -e '${READ_MEMORY}' "$GATEWAY_PID"; [ $? -ne 2 ]`)).toBe(
        false,
      );
      expect(await worked('ls /proc/$GATEWAY_PID/fd >/dev/null')).toBe(false);
    });

    it("read the environment of the runner's processes (route 1: what post's environment holds)", async () => {
      // the step's own shell and run-agent are the runner's user's, and hold the step's environment
      const script =
        `for p in /proc/[0-9]*; do [ "$(stat -c %U $p)" = ${RUNNER_USER} ] || continue; ` +
        'tr "\\0" "\\n" < $p/environ >/dev/null 2>&1 && exit 0; done; exit 1';
      expect(await worked(script)).toBe(false);
    });

    it('write GITHUB_ENV or GITHUB_PATH (routes 2 and 7: LD_PRELOAD, STATE_ for post)', async () => {
      // it is given no path to them; told the runner's, it still cannot write there
      const env = { THE_ENV_FILE: join(job.runner.root, 'step-1', 'env') };
      expect(await worked('printf "LD_PRELOAD=/tmp/x.so\\n" >> "$THE_ENV_FILE"', env)).toBe(false);
      expect(await worked('[ -n "${GITHUB_ENV:-}" ]')).toBe(false);
    });

    it("replace the runner's node, the action's files or anything in the runner's home (route 3)", async () => {
      const externals = join(runner.home, 'externals', 'node20', 'bin');
      mkdirSync(externals, { recursive: true });
      writeFileSync(join(externals, 'node'), '#!/bin/sh\n', { mode: 0o755 });
      sh(`chown -R ${runner.uid}:${runner.gid} ${join(runner.home, 'externals')}`);
      expect(await worked(`echo evil > ${join(externals, 'node')}`)).toBe(false);
      expect(await worked(`mv ${externals} ${externals}.old`)).toBe(false);
      expect(await worked('echo "// agent" >> "$ACTION/dist/post/index.js"')).toBe(false);
      expect(await worked(`touch ${runner.home}/.bashrc-agent`)).toBe(false);
    });

    it('plant a program where sudo or a trusted process looks first (/usr/local/bin, route 4)', async () => {
      expect(await worked('printf "#!/bin/sh\\n" > /usr/local/bin/git')).toBe(false);
    });

    it('leave a process behind (route 1): every process of its user ends with the command', async () => {
      const leftover =
        `setsid sh -c 'echo $$ > "$LOOT/leftover.pid"; while :; do ` +
        'for p in /proc/[0-9]*; do tr "\\0" "\\n" < $p/environ 2>/dev/null | ' +
        `sed -n "s/^INPUT_GITHUB-TOKEN=//p" > "$LOOT/read.tmp" 2>/dev/null; ` +
        `[ -s "$LOOT/read.tmp" ] && mv "$LOOT/read.tmp" "$LOOT/read-from-post"; done; sleep 0.05; done' ` +
        '</dev/null >/dev/null 2>&1 &\nnohup sleep 600 >/dev/null 2>&1 &\nsleep 0.5';
      expect(await worked(leftover)).toBe(true);
      expect(existsSync(join(LOOT, 'leftover.pid'))).toBe(true);
      expect(living(AGENT_USER)).toEqual([]);
    });
  });

  it('a git planted in /usr/local/bin (sudo secure_path puts it first) never runs for the gateway (route 4)', async () => {
    writeFileSync(PLANTED_RECORD, '', { mode: 0o666 });
    chmodSync(PLANTED_RECORD, 0o666);
    writeFileSync(
      `${PLANTED_GIT}.tmp`,
      `#!/bin/sh\n[ "$(id -un)" = perimeter ] && env >> ${PLANTED_RECORD}\nexec /usr/bin/git "$@"\n`,
      { mode: 0o755 },
    );
    sh(`mv ${PLANTED_GIT}.tmp ${PLANTED_GIT}`);
    try {
      const agent = await job.agent('implementer');
      const read = await agent.callTool({ name: 'get_file', arguments: { path: 'src/count.ts' } });
      expect(read.isError).toBeFalsy();
      expect(readFileSync(PLANTED_RECORD, 'utf8')).not.toContain(job.token.slice(4));
      expect(readFileSync(PLANTED_RECORD, 'utf8')).toBe('');
    } finally {
      rmSync(PLANTED_GIT, { force: true });
    }
  });

  it('runs one agent command at a time: a second run-agent while one runs is refused, and ends nothing', async () => {
    // the agent's user is one per job and run-agent's ending ends every process of it: a second command at once
    // would end the first's processes (and the first's ending the second's)
    const marks = join(LOOT, 'one-at-a-time');
    mkdirSync(marks, { recursive: true, mode: 0o777 });
    chmodSync(marks, 0o777);
    const first = join(SCRIPTS, 'first.sh');
    writeFileSync(
      first,
      `touch "${marks}/first-started"\nwhile [ ! -e "${marks}/release" ]; do sleep 0.1; done\necho first-done\n`,
      { mode: 0o644 },
    );
    // (the step's shell is bash -e, as a runner's: a failing command ends it, so each exit code is caught)
    const step = await job.runner
      .runShell(
        [
          '"$RUN_AGENT" /bin/sh "$FIRST" > "$MARKS/first.out" 2>&1 &',
          'while [ ! -e "$MARKS/first-started" ]; do sleep 0.1; done',
          'first=$!',
          'code=0; "$RUN_AGENT" /bin/sh -c "echo second-ran" > "$MARKS/second.out" 2>&1 || code=$?',
          'echo "second: $code"',
          'touch "$MARKS/release"',
          'code=0; wait $first || code=$?',
          'echo "first: $code"',
        ].join('\n'),
        { RUN_AGENT: runAgent, FIRST: first, MARKS: marks },
      )
      .finally(() => writeFileSync(join(marks, 'release'), ''));
    const report = `${step.stdout}${step.stderr}\n${['first.out', 'second.out']
      .filter((file) => existsSync(join(marks, file)))
      .map((file) => `${file}: ${readFileSync(join(marks, file), 'utf8')}`)
      .join('\n')}`;
    expect(step.stdout, report).toBe('second: 75\nfirst: 0\n');
    expect(readFileSync(join(marks, 'first.out'), 'utf8')).toBe('first-done\n');
    expect(readFileSync(join(marks, 'second.out'), 'utf8')).toMatch(
      /^perimeter run-agent: another agent command of this job runs as perimeter-agent \(run-agent pid \d+\): run-agent runs one at a time/,
    );
    // the lock went with the first: the next command runs
    expect((await agentStep('echo next')).stdout).toBe('next\n');
  });

  describe('egress', () => {
    it('reaches no host directly', async () => {
      // as root (this test) the host answers: only the agent's user is refused
      expect(await tcpConnect(REACHABLE, 443)).toBe('connected');
      const step = await agentStep(`node -e '${CONNECT_TCP}' ${REACHABLE} 443`);
      expect(step.stdout.trim()).toBe('ECONNREFUSED');
    });

    it('reaches the gateway and its egress proxy on loopback, and no other port there', async () => {
      // a service on loopback (the GitHub stand-in, a server of the runner's or of a test, a model server the
      // workflow runs) is the agent's only through the proxy, as a host agent-egress names
      const other = createServer((socket) => socket.end());
      await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
      const otherPort = (other.address() as { port: number }).port;
      try {
        expect(await tcpConnect('127.0.0.1', otherPort)).toBe('connected');
        const ports = [
          new URL(main.outputs.url ?? '').port,
          '"${HTTPS_PROXY##*:}"',
          String(otherPort),
          new URL(job.gh.url).port,
        ];
        const step = await agentStep(
          ports.map((port) => `node -e '${CONNECT_TCP}' 127.0.0.1 ${port}`).join('\n'),
        );
        expect(step.stdout.trim().split('\n')).toEqual([
          'connected',
          'connected',
          'ECONNREFUSED',
          'ECONNREFUSED',
        ]);
      } finally {
        other.close();
      }
    });

    it('reaches no resolver, even on loopback (a DNS query is a way out too)', async () => {
      const resolver = createServer((socket) => socket.end());
      await new Promise<void>((resolve, reject) => {
        resolver.once('error', reject);
        resolver.listen(53, '127.0.0.1', resolve);
      });
      try {
        expect(await tcpConnect('127.0.0.1', 53)).toBe('connected');
        expect((await agentStep(`node -e '${CONNECT_TCP}' 127.0.0.1 53`)).stdout.trim()).toBe('ECONNREFUSED');
      } finally {
        resolver.close();
      }
    });

    it('reaches a host agent-egress names through HTTPS_PROXY, and is refused any other', async () => {
      const step = await agentStep(
        `echo "$HTTPS_PROXY"; node -e '${PROXY_CONNECT}' "$HTTPS_PROXY" ${REACHABLE}:443 ${UNLISTED}:443 ${REACHABLE}:22`,
      );
      const [proxy, ...answers] = step.stdout.trim().split('\n');
      expect(proxy).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(answers).toEqual([`${REACHABLE}:443 200`, `${UNLISTED}:443 403`, `${REACHABLE}:22 403`]);
    });

    it('says in the log what the agent may reach', () => {
      expect(main.log).toMatch(
        /the agent's user reaches the gateway and its egress proxy only \(iptables owner match on uid \d+\)/,
      );
      expect(main.log).toContain(`the agent's egress proxy lets through: api.anthropic.com, ${REACHABLE}`);
    });
  });

  it('post sees the out-of-scope push and says failure; nothing of the agent forges a later success', async () => {
    const agent = await job.agent('implementer');
    const pushed = await agent.callTool({
      name: 'push_files',
      arguments: { message: 'work', files: [{ path: 'src/count.ts', content: 'export const count = 1;\n' }] },
    });
    expect(pushed.isError).toBeFalsy();
    // a route around the gateway the post check must see (a credential the agent should never have had)
    await job.push({ 'docs/roadmap.md': '# mine\n' });
    const post = await job.post();
    expect(post.exitCode).toBe(1);
    await sleep(500);
    const statuses = await job.statuses(await job.head());
    expect(statuses[0]?.state, post.log).toBe('failure');
    expect(statuses.filter((s) => s.state === 'success')).toEqual([]);
    expect(existsSync(join(LOOT, 'read-from-post'))).toBe(false);
    // every host the agent asked for, in the receipt's summary
    expect(post.summary).toContain("### The agent's egress");
    expect(post.summary).toContain(`| ${UNLISTED} | 443 | 0 | 1 |`);
    expect(post.summary).toMatch(
      new RegExp(`\\| ${REACHABLE.replace(/\./g, '\\.')} \\| 443 \\| 1 \\| 0 \\|`),
    );
  }, 300_000);
});

describe.skipIf(missing !== null)('with isolation: user, a sudo rule left for a group of the runner', () => {
  const late = '/etc/sudoers.d/zzzzzz-ptest-late';
  it('fails main: sudo -n -l shows a rule after the denial (tee as root), not only sudo -n true', async () => {
    sh(`printf '%%%s ALL=(root) NOPASSWD: /usr/bin/tee\\n' ${RUNNER_USER} > ${late} && chmod 0440 ${late}`);
    try {
      const { job, main } = await isolatedJob();
      try {
        expect(main.exitCode).toBe(1);
        expect(main.log).toMatch(/can still run commands as another user after sudo was denied: .*tee/);
        await job.post();
        const [status] = await job.statuses(await job.head());
        expect(status?.state).toBe('error');
      } finally {
        await job.close();
      }
    } finally {
      rmSync(late, { force: true });
    }
  }, 600_000);
});

describe('when a step exports STATE_ variables for post (route 7)', () => {
  it("post rejects the state as not main's and the receipt is error", async () => {
    const job = await Job.create({
      files: FILES,
      actionDir: await actionDir(),
      inputs: { perimeters: 'implementer' },
    });
    try {
      const main = await job.main();
      expect(main.exitCode, main.log).toBe(0);
      // the agent's step (here without isolation: the runner's user) turns require-changes off, as it were
      const step = await job.runner.runShell('echo "STATE_stagePath=/tmp/nothing" >> "$GITHUB_ENV"');
      expect(step.exitCode).toBe(0);
      const post = await job.post();
      expect(post.exitCode).toBe(1);
      const [status] = await job.statuses(await job.head());
      expect(status?.state).toBe('error');
      expect(post.log).toMatch(
        /post's state is not what main saved \(a step set STATE_ variables: .*stagePath/,
      );
    } finally {
      await job.close();
    }
  }, 300_000);
});

/** The processes of `user` that still run (a zombie is dead: only its parent has not collected it yet). */
function living(user: string): string[] {
  return sh(`ps -u ${user} -o pid=,stat=,args= || true`)
    .split('\n')
    .filter((line) => line.trim() !== '' && !/^\s*\d+\s+Z/.test(line));
}

/** A TCP connection to argv[1]:argv[2]: prints "connected" or the error's code. */
const CONNECT_TCP = `const s = require("net").connect(Number(process.argv[2]), process.argv[1]); s.setTimeout(5000, () => { console.log("timeout"); process.exit(1); }); s.on("connect", () => { console.log("connected"); process.exit(0); }).on("error", (e) => { console.log(e.code); process.exit(1); })`;

/** CONNECT through the proxy at argv[1] to each host:port after it: prints "host:port status" for each. */
const PROXY_CONNECT = `const http = require("http"); const proxy = new URL(process.argv[1]);
(async () => { for (const target of process.argv.slice(2)) {
  const code = await new Promise((resolve) => {
    const req = http.request({ host: proxy.hostname, port: proxy.port, method: "CONNECT", path: target });
    req.on("connect", (res, socket) => { socket.destroy(); resolve(res.statusCode); });
    req.on("error", (e) => resolve(e.code)); req.end(); });
  console.log(target + " " + code); } })();`.replace(/\n/g, ' ');

function tcpConnect(host: string, port: number): string {
  return execFileSync('node', ['-e', CONNECT_TCP, host, String(port)], { encoding: 'utf8' }).trim();
}

/** Connects to a unix socket: exit 0 if it accepted. */
const CONNECT = `require("net").connect(process.argv[1]).on("connect", () => process.exit(0)).on("error", (e) => { console.error(e.code); process.exit(1); })`;
