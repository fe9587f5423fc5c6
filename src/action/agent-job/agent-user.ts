import { join } from 'node:path';
import { findTrustedBinary, TRUSTED_PATH } from '../../github/index.js';
import { ActionError } from '../config-loader.js';
import { Inputs } from '../constants.js';

/**
 * The agent's own user (`isolation: user`). The runner's user runs main and post and is the user the runner
 * hands post the token as; an agent of that user reads post's environment, writes GITHUB_ENV and the runner's
 * files. So the agent runs as a user of its own: main makes it (once per machine) and a directory for this run,
 * root's, holding the agent's home and temporary directory and three root-owned scripts:
 *
 * - `run-agent` (the output): runs `perimeter run-agent` (src/cli/run-agent.ts) with main's root-owned copy of
 *   node and of the CLI bundle;
 * - `as-agent`: what sudo runs as the agent user, with the step's environment less the runner's variables: it
 *   puts the step's PATH back, enters the step's directory (or the agent's home) and runs the command with no
 *   way to gain privileges (no_new_privs: sudo, su, setuid programs give the agent nothing);
 * - `end-agent`: what sudo runs as the agent user after the command: `kill -KILL -1` (every process of that user
 *   but itself) until none is left.
 *
 * The privilege: main's sudo denial (lockDown) ends with one rule that lets the runner's user run exactly these
 * two scripts as the agent user, and nothing as root or anyone else. A sudo rule is the simplest thing that
 * holds: no daemon, no setuid file, and sudo already cleans the environment (LD_PRELOAD and the like go) and
 * takes the agent's uid away from the runner's. The agent user's processes can signal each other but no other
 * user's, and /proc refuses another uid's environ, memory and fds; so post, the runner and the gateway are out
 * of its reach without hidepid.
 */
export const AGENT_USER = 'perimeter-agent';

/** The agent's directory for this run, as main made it. */
export interface AgentHome {
  /** root's, 0755: the helpers, and the agent's own directories below it */
  dir: string;
  /** the agent user's: its client configs (0700) */
  configDir: string;
  /** the agent user's, 0755 so the workspace push (the runner's user) reads what the agent wrote */
  workspaces: string;
  /** the command the `run-agent` output names */
  runAgent: string;
  /** whether the packet filter limits the agent's user to loopback, as AGENT_SETUP said it */
  egress: string;
}

/**
 * The file run-agent reads the egress proxy's URL from (root's, in the agent's directory): the agent's
 * HTTPS_PROXY. Written once the gateway serves the proxy.
 */
export const PROXY_FILE = 'proxy';

/**
 * The directory of run-agent's lock in the agent's directory (the runner's user's, 0700): the agent's user is
 * one per job and run-agent ends every process of it, so run-agent runs one agent command at a time.
 */
export const RUN_LOCK_DIR = 'lock';

/**
 * The sh script main runs as root (after the gateway's SETUP): $1 agent user, $2 the run directory, $3 root's
 * runtime (node, the CLI bundle), $4 the runner's user.
 */
export const AGENT_SETUP = `
user=$1 run=$2 runtime=$3 runner=$4
id -u "$user" >/dev/null 2>&1 || useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$user"
agent="$run.agent"
install -d -o root -g root -m 0755 "$agent"
install -d -o "$user" -g "$user" -m 0700 "$agent/home" "$agent/tmp" "$agent/config"
install -d -o "$user" -g "$user" -m 0755 "$agent/workspaces"
# run-agent's lock (one agent command at a time): the runner's user's, out of the agent's reach
install -d -o "$runner" -m 0700 "$agent/${RUN_LOCK_DIR}"
umask 0022
cat > "$agent/run-agent" <<EOF
#!/bin/sh
# Runs the agent's command as $user (isolation: user); see perimeter run-agent --help.
exec "$runtime/node" "$runtime/cli/index.js" run-agent --user "$user" --dir "$agent" -- "\\$@"
EOF
cat > "$agent/as-agent" <<'EOF'
#!/bin/sh
# Run by sudo as the agent user: the step's PATH and directory back, then the command without new privileges.
PATH=$PERIMETER_AGENT_PATH; export PATH
cd "$PERIMETER_AGENT_CWD" 2>/dev/null || { echo "run-agent: the agent cannot enter $PERIMETER_AGENT_CWD; it runs in $HOME" >&2; cd "$HOME"; }
unset PERIMETER_AGENT_PATH PERIMETER_AGENT_CWD SUDO_USER SUDO_UID SUDO_GID SUDO_COMMAND SUDO_HOME
umask 0022
exec /usr/bin/setpriv --no-new-privs -- "$@"
EOF
cat > "$agent/end-agent" <<'EOF'
#!/bin/sh
# Run by sudo as the agent user: every other process of that user ends (kill is the shell's own: no process).
i=0
while kill -KILL -1 2>/dev/null && [ $i -lt 200 ]; do i=$((i + 1)); done
exit 0
EOF
chown root:root "$agent/run-agent" "$agent/as-agent" "$agent/end-agent"
chmod 0755 "$agent/run-agent" "$agent/as-agent" "$agent/end-agent"
printf '%s\\n' "$agent"
# the agent's user reaches nothing, loopback included (a service there, the runner's or a test's, is no way out
# either), but the gateway's and the egress proxy's ports, which AGENT_PORTS opens once the gateway listens: a
# chain of its own, for its uid; no DNS (a local resolver, systemd-resolved's 127.0.0.53, would carry queries
# out): the proxy resolves
uid=$(id -u "$user")
limit() {
  command -v "$1" >/dev/null || return 1
  "$1" -w -N PERIMETER_AGENT 2>/dev/null || "$1" -w -F PERIMETER_AGENT || return 1
  "$1" -w -A PERIMETER_AGENT -j REJECT || return 1
  "$1" -w -C OUTPUT -m owner --uid-owner "$uid" -j PERIMETER_AGENT 2>/dev/null ||
    "$1" -w -I OUTPUT 1 -m owner --uid-owner "$uid" -j PERIMETER_AGENT
}
if limit iptables; then
  limit ip6tables || echo "ip6tables: not limited" >&2
  echo "the agent's user reaches the gateway and its egress proxy only (iptables owner match on uid $uid)"
else
  echo "egress of the agent's user is NOT limited: no working iptables on this runner"
fi
`;

/**
 * The sh script main runs as root once the gateway listens: $1 the agent's directory, $2 the gateway's port, $3
 * the egress proxy's. run-agent finds the proxy's URL in PROXY_FILE; where AGENT_SETUP limited the agent's
 * user, its chain lets through TCP to 127.0.0.1 on these two ports and nothing else (rules put before the
 * chain's REJECT: the chain is made anew for each job, so no port of an earlier job stays open).
 */
export const AGENT_PORTS = `
agent=$1 gateway=$2 proxy=$3
umask 0022; printf 'http://127.0.0.1:%s' "$proxy" > "$agent/${PROXY_FILE}.tmp"; mv "$agent/${PROXY_FILE}.tmp" "$agent/${PROXY_FILE}"
if command -v iptables >/dev/null && iptables -w -n -L PERIMETER_AGENT >/dev/null 2>&1; then
  for port in "$gateway" "$proxy"; do
    iptables -w -I PERIMETER_AGENT 1 -o lo -d 127.0.0.1/32 -p tcp --dport "$port" -j ACCEPT
  done
fi
`;

/** The paths of the agent's directory AGENT_SETUP printed, and what it said of the agent's egress. */
export function agentHomeAt(printed: string): AgentHome {
  const [dir = '', egress = ''] = printed.trim().split('\n');
  return {
    dir,
    egress,
    configDir: join(dir, 'config'),
    workspaces: join(dir, 'workspaces'),
    runAgent: join(dir, 'run-agent'),
  };
}

/**
 * The sudo rules the runner's user keeps after main's denial (written after the `!ALL`, so they are the last
 * that match): the agent's two helpers as the agent user, `as-agent` with the environment run-agent hands it
 * (SETENV), `end-agent` with no argument at all.
 */
export function agentSudoRules(runner: string, agent: AgentHome): string {
  return (
    `${runner} ALL=(${AGENT_USER}) NOPASSWD:SETENV: ${join(agent.dir, 'as-agent')}\n` +
    `${runner} ALL=(${AGENT_USER}) NOPASSWD: ${join(agent.dir, 'end-agent')} ""\n`
  );
}

/**
 * Proves from `sudo -n -l` (every rule sudo holds for the runner's user, in the order it reads them; the last
 * that matches wins) that the runner's user can run nothing as root: a denial of everything, and after it only
 * rules that run as the agent's user. `sudo -n true` failing proves less: a rule for one command (`tee`) after
 * the denial leaves root to the user. Throws saying which rule is left.
 */
export function checkNoRootLeft(listing: string, agent: AgentHome | null): void {
  const start = listing.search(/may run the following commands/);
  const rules: string[] = [];
  for (const line of start < 0 ? [] : listing.slice(start).split('\n').slice(1)) {
    if (/^\s+\(/.test(line)) rules.push(line.trim());
    else if (/^\s+\S/.test(line) && rules.length > 0) rules[rules.length - 1] += ` ${line.trim()}`;
  }
  const deny = rules.map((rule) => rule.replace(/\s+/g, ' ')).lastIndexOf('(ALL : ALL) !ALL');
  const after = deny < 0 ? rules : rules.slice(deny + 1);
  const allowed = agent
    ? [
        `(${AGENT_USER}) SETENV: NOPASSWD: ${join(agent.dir, 'as-agent')}`,
        `(${AGENT_USER}) NOPASSWD: ${join(agent.dir, 'end-agent')} ""`,
      ]
    : [];
  const left = after.filter((rule) => !allowed.includes(rule.replace(/\s+/g, ' ')));
  if (deny < 0 || left.length > 0)
    throw new ActionError(
      `${Inputs.Isolation}: the runner's user can still run commands as another user after sudo was denied: ` +
        `${deny < 0 ? 'no denial in effect' : left.map((rule) => JSON.stringify(rule)).join(', ')} ` +
        '(a sudo rule read after /etc/sudoers.d/zzzz-perimeter-isolation-*, or one for a group of the user)',
    );
}

export { TRUSTED_PATH };

/** The absolute path of `name` a trusted process may run (findTrustedBinary); refuses isolation when none. */
export function trustedBinary(name: string, path = TRUSTED_PATH): string {
  const found = findTrustedBinary(name, path);
  if ('path' in found) return found.path;
  throw new ActionError(
    `${Inputs.Isolation}: no ${name} a trusted process may run: ${found.problems.join('; ') || `none in ${path}`}`,
  );
}
