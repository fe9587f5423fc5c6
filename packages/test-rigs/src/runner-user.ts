/**
 * A user like a GitHub-hosted runner's `runner`, for jobs whose steps run as it (`RunnerOptions.runAs`):
 * password-less sudo, and a member of the group of a stand-in Docker socket. Made by tests that run as root
 * (CI does); `runnerUserMissing()` says why a machine cannot.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import type { RunnerOptions } from './runner.js';

/** Names of this test process's own, so runs on one machine at once (two worktrees) do not meet. */
export const RUNNER_USER = `ptest-runner-${process.pid}`;
export const DOCKER_GROUP = `ptest-docker-${process.pid}`;
/** the stand-in Docker socket: main takes it away with isolation (PERIMETER_DOCKER_SOCKET) */
export const DOCKER_SOCKET = `/run/perimeter-test-docker-${process.pid}.sock`;
const HOME_ROOT = `/tmp/perimeter-test-runner-home-${process.pid}`;
const SUDOERS = `/etc/sudoers.d/${RUNNER_USER}`;
/** what main adds to deny the runner's user sudo (src/action/agent-job/isolation.ts) */
const DENY = `/etc/sudoers.d/zzzz-perimeter-isolation-${RUNNER_USER}`;

const sh = (script: string): string => execFileSync('sh', ['-c', script], { encoding: 'utf8' });

function has(tool: string): boolean {
  try {
    sh(`command -v ${tool}`);
    return true;
  } catch {
    return false;
  }
}

/** Why this machine cannot make the user, or null when it can. */
export function runnerUserMissing(): string | null {
  if (userInfo().uid !== 0) return 'the tests do not run as root (they create a user and give it sudo)';
  const tool = ['useradd', 'setpriv', 'sudo'].find((name) => !has(name));
  return tool ? `no ${tool} on this machine` : null;
}

/** Creates the user (once) and returns it as `runAs`. */
export function createRunnerUser(): NonNullable<RunnerOptions['runAs']> {
  const home = `${HOME_ROOT}/${RUNNER_USER}`;
  if (!existsSync(HOME_ROOT)) mkdirSync(HOME_ROOT);
  chmodSync(HOME_ROOT, 0o755);
  sh(`getent group ${DOCKER_GROUP} >/dev/null || groupadd ${DOCKER_GROUP}`);
  sh(
    `id -u ${RUNNER_USER} >/dev/null 2>&1 || useradd --create-home --home-dir ${home} --user-group ` +
      `--groups ${DOCKER_GROUP} --shell /bin/bash ${RUNNER_USER}`,
  );
  return {
    user: RUNNER_USER,
    uid: Number(sh(`id -u ${RUNNER_USER}`)),
    gid: Number(sh(`id -g ${RUNNER_USER}`)),
    home,
  };
}

/**
 * The runner as GitHub hands it out, before each job: password-less sudo for the user (and no denial a
 * previous job's isolation left), the stand-in Docker socket its group's (when it exists). `sudo: false`: a
 * self-hosted runner whose user has no sudo.
 */
export function freshRunner({ sudo = true }: { sudo?: boolean } = {}): void {
  rmSync(DENY, { force: true });
  rmSync(SUDOERS, { force: true });
  if (sudo) sh(`printf '%s ALL=(ALL) NOPASSWD:ALL\\n' ${RUNNER_USER} > ${SUDOERS} && chmod 0440 ${SUDOERS}`);
  if (existsSync(DOCKER_SOCKET))
    sh(`chown root:${DOCKER_GROUP} ${DOCKER_SOCKET} && chmod 0660 ${DOCKER_SOCKET}`);
}

/** Removes the user, its group, its sudo rules, and the gateway user and directories isolation made. */
export function removeRunnerUser(): void {
  rmSync(SUDOERS, { force: true });
  rmSync(DENY, { force: true });
  sh(`userdel --remove ${RUNNER_USER} 2>/dev/null || true; groupdel ${DOCKER_GROUP} 2>/dev/null || true`);
  // the gateway's user and directories are the machine's: gone once no gateway of another run uses them
  sh(
    'pgrep -u perimeter >/dev/null 2>&1 || { userdel perimeter 2>/dev/null; rm -rf /var/lib/perimeter; } || true',
  );
  // the agents' user, and the packet filter main gave it (a chain of its own, for its uid)
  sh(
    'id -u perimeter-agent >/dev/null 2>&1 && ! pgrep -u perimeter-agent >/dev/null 2>&1 && { ' +
      'for t in iptables ip6tables; do command -v $t >/dev/null || continue; ' +
      '$t -w -D OUTPUT -m owner --uid-owner "$(id -u perimeter-agent)" -j PERIMETER_AGENT 2>/dev/null; ' +
      '$t -w -F PERIMETER_AGENT 2>/dev/null; $t -w -X PERIMETER_AGENT 2>/dev/null; done; ' +
      'userdel perimeter-agent 2>/dev/null; } || true',
  );
  rmSync(HOME_ROOT, { recursive: true, force: true });
}

/**
 * The action as a runner downloads it: action.yml and the bundles copied from `built` into the user's work
 * directory (`_actions/octo/perimeter/<ref>`), the user's files, as isolation finds them on GitHub's runners.
 */
export function downloadAction(runAs: NonNullable<RunnerOptions['runAs']>, built: string): string {
  const dir = join(runAs.home, 'work', '_actions', 'octo', 'perimeter', `v1-${randomUUID().slice(0, 8)}`);
  mkdirSync(join(dir, 'dist'), { recursive: true });
  cpSync(join(built, 'action.yml'), join(dir, 'action.yml'));
  for (const entry of readdirSync(join(built, 'dist'))) {
    cpSync(join(built, 'dist', entry), join(dir, 'dist', entry), { recursive: true });
  }
  sh(`chown -R ${runAs.user}: '${runAs.home}/work'`);
  return dir;
}
