import { spawnSync } from 'node:child_process';
import { userInfo } from 'node:os';
import { basename, join } from 'node:path';
import { ActionError } from '../config-loader.js';
import { Inputs } from '../constants.js';
import {
  AGENT_PORTS,
  AGENT_SETUP,
  AGENT_USER,
  agentHomeAt,
  agentSudoRules,
  checkNoRootLeft,
  TRUSTED_PATH,
  trustedBinary,
  type AgentHome,
} from './agent-user.js';

/**
 * `isolation: user`. Main runs as the runner's user, which on GitHub-hosted runners has passwordless sudo and
 * the Docker socket, and so does every agent step after it: as that user an agent reads the token from the
 * gateway's memory, stops it, or rewrites the post step. Before any agent step, main therefore (with the sudo it
 * still has) starts the gateway as a system user of its own, gives the gateway's files to that user, makes the
 * action's directory root's, and takes sudo and the Docker socket away from the runner's user for the rest of
 * the job. Post reaches the gateway through its control endpoint (src/gateway/control.ts).
 */

/** The system user the gateway runs as. */
export const GATEWAY_USER = 'perimeter';
/** Where the gateway's directories are made: root's, one per run, each the gateway user's. */
const GATEWAY_ROOT = '/var/lib/perimeter';
/** The Docker sockets whose access goes; PERIMETER_DOCKER_SOCKET adds one (the tests' stand-in). */
const DOCKER_SOCKETS = ['/var/run/docker.sock', '/run/docker.sock'];
/**
 * The denial for a user: sorts after every other file in /etc/sudoers.d, and the last matching rule is the one
 * sudo applies (sudo skips file names with a dot).
 */
export const sudoersDeny = (user: string): string =>
  `/etc/sudoers.d/zzzz-perimeter-isolation-${user.replace(/[^A-Za-z0-9_-]/g, '_')}`;

/** The gateway's directory and what it runs, as root made them. */
export interface GatewayHome {
  dir: string;
  logPath: string;
  node: string;
  script: string;
  /** the agent's user's directory for this run (src/action/agent-job/agent-user.ts) */
  agent: AgentHome;
}

/** sudo by its absolute path: a bare name is looked up on the step's PATH. */
const SUDO = '/usr/bin/sudo';

/**
 * Refuses (ActionError) where isolation cannot hold: not Linux, steps running as root (no other user hides
 * anything from root), no passwordless sudo to set it up with. Returns a warning where it holds but outlives
 * the job: a self-hosted runner keeps the sudo denial and the root-owned directories for its next jobs.
 */
export function checkIsolationSupport(
  platform: string = process.platform,
  env: NodeJS.ProcessEnv = process.env,
): string | null {
  const refuse = (why: string): never => {
    throw new ActionError(
      `${Inputs.Isolation}: user cannot work here: ${why}; set ${Inputs.Isolation}: none to run ` +
        'without it (every step then shares one user with the gateway: see SECURITY.md)',
    );
  };
  if (platform !== 'linux') refuse(`the runner is ${platform}, and isolation needs Linux`);
  if (userInfo().uid === 0) refuse('the job runs as root, and no user can hide the gateway from root');
  const sudo = spawnSync(SUDO, ['-n', 'true'], { stdio: 'ignore' });
  if (sudo.error || sudo.status !== 0)
    refuse(`the runner's user ${userInfo().username} has no passwordless sudo to set isolation up with`);
  return env.RUNNER_ENVIRONMENT === 'self-hosted'
    ? `${Inputs.Isolation}: user on a self-hosted runner: the runner's user keeps no sudo, and the action's ` +
        "directory and its parents stay root's, after this job too, unless the machine is made anew for each job"
    : null;
}

/**
 * Runs a script as root through sudo; its arguments are $1... (never secrets: argv is world-readable). The
 * script finds its tools on TRUSTED_PATH only: sudo's secure_path starts with /usr/local, which GitHub's images
 * make writable by everyone.
 */
function asRoot(what: string, script: string, args: string[]): string {
  const body = `set -eu\nPATH=${TRUSTED_PATH}; export PATH\n${script}`;
  const run = spawnSync(SUDO, ['-n', '/bin/sh', '-c', body, 'sh', ...args], { encoding: 'utf8' });
  if (run.error || run.status !== 0) {
    const detail = (run.stderr || run.error?.message || `exit code ${run.status}`).trim();
    throw new ActionError(`${Inputs.Isolation}: could not ${what}: ${detail}`);
  }
  return run.stdout;
}

const SETUP = `
user=$1 node=$2 script=$3 root=$4
for tool in useradd setpriv setsid; do command -v $tool >/dev/null || { echo "no $tool on this runner" >&2; exit 1; }; done
id -u "$user" >/dev/null 2>&1 || useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$user"
install -d -o root -g root -m 0755 "$root"
dir=$(mktemp -d "$root/run-XXXXXXXX")
chown "$user:$user" "$dir"; chmod 0711 "$dir"
install -o "$user" -g "$user" -m 0600 /dev/null "$dir/gateway.log"
# root's copies of node and the bundles: the runner's node and the action may sit in a home only the runner's
# user enters, and are that user's files (which the gateway, and run-agent's helper, then would run)
bundles=$(dirname "$(dirname "$script")")
install -d -o root -g root -m 0755 "$dir.runtime"
install -o root -g root -m 0755 "$node" "$dir.runtime/node"
cp -R "$bundles/gateway" "$dir.runtime/gateway"; cp -R "$bundles/cli" "$dir.runtime/cli"
chown -R root:root "$dir.runtime"; chmod -R go-w "$dir.runtime"
printf '%s\\n%s\\n%s\\n' "$dir" "$dir.runtime/node" "$dir.runtime/gateway/$(basename "$script")"
`;

/**
 * Creates the gateway's user and the agent's (once per machine), a directory of each for this run, and root's
 * copies of node and the bundles they run. Checks first that the programs trusted processes run are root's.
 */
export function prepareGatewayHome(node: string, script: string): GatewayHome {
  for (const tool of ['git', 'sudo', 'setpriv', 'setsid', 'env', 'sh', 'id', 'kill']) trustedBinary(tool);
  const [dir, runNode, runScript] = asRoot('prepare the gateway user', SETUP, [
    GATEWAY_USER,
    node,
    script,
    GATEWAY_ROOT,
  ]).split('\n') as [string, string, string];
  const agentSetup = asRoot("prepare the agent's user", AGENT_SETUP, [
    AGENT_USER,
    dir,
    `${dir}.runtime`,
    userInfo().username,
  ]);
  return {
    dir,
    logPath: join(dir, 'gateway.log'),
    node: runNode,
    script: runScript,
    agent: agentHomeAt(agentSetup),
  };
}

/**
 * Opens the agent's way to the gateway and to its egress proxy, and only these (AGENT_PORTS), and tells
 * run-agent where the proxy listens (a root-owned file in the agent's directory).
 */
export function openAgentPorts(agent: AgentHome, ports: { gateway: number; proxy: number }): void {
  asRoot("open the gateway and the egress proxy to the agent's user", AGENT_PORTS, [
    agent.dir,
    String(ports.gateway),
    String(ports.proxy),
  ]);
}

/**
 * Gives files and directories main made to the agent's user, moved into its directory (`into`); returns the
 * new paths. Files become 0600, directories keep their modes.
 */
export function giveToAgent(into: string, paths: string[]): string[] {
  const script = `user=$1 into=$2; shift 2
for p in "$@"; do
  to="$into/$(basename "$p")"
  if [ -d "$p" ]; then mv -T "$p" "$to"; chown -R -P "$user:$user" "$to"
  else install -o "$user" -g "$user" -m 0600 "$p" "$to"; fi
done`;
  asRoot("hand main's files to the agent's user", script, [AGENT_USER, into, ...paths]);
  return paths.map((path) => join(into, basename(path)));
}

/**
 * How main starts the gateway: as the gateway's user, with no supplementary group and no way to gain privileges,
 * in a session of its own and reparented (setsid -f), so no process of the runner's user is its parent (sudo
 * relays the signals its invoking user sends it). Its output goes to the log only that user can open. The
 * launcher first reads the configuration (one JSON line) and pipes it to the gateway with the shell's builtin
 * printf (no argv), so it exits only once the configuration is on its way: main's end of the pipe closes when
 * the launcher exits.
 */
export function gatewayLauncher(home: GatewayHome): { command: string; args: string[] } {
  return {
    command: SUDO,
    args: [
      '-n',
      '/usr/bin/setpriv',
      `--reuid=${GATEWAY_USER}`,
      `--regid=${GATEWAY_USER}`,
      '--clear-groups',
      '--no-new-privs',
      '--',
      // a fixed environment: the gateway finds git on TRUSTED_PATH, checked root's (prepareGatewayHome)
      '/usr/bin/env',
      '-i',
      `PATH=${TRUSTED_PATH}`,
      'HOME=/nonexistent',
      'LANG=C.UTF-8',
      '/bin/sh',
      '-c',
      'IFS= read -r config || [ -n "$config" ]; printf "%s" "$config" | setsid -f "$0" "$1" >>"$2" 2>&1',
      home.node,
      home.script,
      home.logPath,
    ],
  };
}

/** Moves files main wrote into the gateway's directory (the gateway's user's, 0600); returns their new paths. */
export function adoptFiles(home: GatewayHome, files: string[]): string[] {
  const script = `user=$1 dir=$2; shift 2
for f in "$@"; do install -o "$user" -g "$user" -m 0600 "$f" "$dir/$(basename "$f")"; rm -f "$f"; done`;
  asRoot("hand main's files to the gateway user", script, [GATEWAY_USER, home.dir, ...files]);
  return files.map((file) => join(home.dir, basename(file)));
}

/** Ends a gateway main started and no longer needs (main still has sudo then). */
export function killGateway(pid: number): void {
  spawnSync(SUDO, ['-n', '/bin/kill', '-KILL', String(pid)], { stdio: 'ignore' });
}

const LOCK_DOWN = `
runner=$1 action=$2 deny=$3 rules=$4; shift 4
# the action's directory, and every directory above it the runner's user owns (it could rename one and put
# another post step in its place): root's; sticky and group-writable, so the user still creates files there
chown -R root:root "$action"; chmod -R go-w "$action"
d=$(dirname "$action"); parents=0
while [ "$d" != / ] && [ "$(stat -c %U "$d")" = "$runner" ]; do
  chown root "$d"; chmod g+w,+t "$d"; parents=$((parents + 1)); d=$(dirname "$d")
done
echo "the action's directory $action and $parents directories above it: now root's"
for s in "$@"; do
  [ -S "$s" ] || continue
  was=$(stat -L -c '%U:%G %a' "$s"); chown root:root "$s"; chmod 0600 "$s"
  echo "the Docker socket $s (was $was): now root's only"
done
found=$(grep -lE "^[[:space:]]*$runner[[:space:]]" /etc/sudoers.d/* 2>/dev/null || true)
for f in $found; do rm -f "$f"; echo "sudo for $runner: $f removed"; done
umask 0337; printf '%s ALL=(ALL:ALL) !ALL\\n%s' "$runner" "$rules" > "$deny.tmp"
visudo -cf "$deny.tmp" >/dev/null; mv "$deny.tmp" "$deny"
echo "sudo for $runner: denied by $deny, after every other rule, but for running run-agent's helpers as the agent's user"
`;

/**
 * The last thing main does with sudo: the action's directory becomes root's, the Docker sockets root's only,
 * and the runner's user loses sudo for the rest of the job. Checks that sudo is gone; returns what it removed.
 */
export function lockDown(
  actionDir: string,
  agent: AgentHome,
  env: NodeJS.ProcessEnv = process.env,
): string[] {
  const sockets = [...DOCKER_SOCKETS, ...(env.PERIMETER_DOCKER_SOCKET ? [env.PERIMETER_DOCKER_SOCKET] : [])];
  const runner = userInfo().username;
  const done = asRoot("take sudo and Docker away from the runner's user", LOCK_DOWN, [
    runner,
    actionDir,
    sudoersDeny(runner),
    agentSudoRules(runner, agent),
    ...sockets,
  ]);
  const sudo = spawnSync(SUDO, ['-n', 'true'], { stdio: 'ignore' });
  if (!sudo.error && sudo.status === 0)
    throw new ActionError(`${Inputs.Isolation}: sudo still works for ${runner} after it was removed`);
  // what sudo itself says the user may still run: nothing but run-agent's helpers, as the agent's user
  const listing = spawnSync(SUDO, ['-n', '-l'], { encoding: 'utf8', env: { ...env, LC_ALL: 'C' } });
  checkNoRootLeft(`${listing.stdout ?? ''}`, agent);
  return done.trim().split('\n');
}

/** The end of the gateway's log, read as root while main still may (the gateway did not start). */
export function readGatewayLog(home: GatewayHome): string {
  try {
    return asRoot('read the gateway log', 'tail -n 20 "$1"', [home.logPath]).trimEnd();
  } catch {
    return '';
  }
}
