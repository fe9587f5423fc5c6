/**
 * Where `npm run test:agents` and `npm run test:readme-mutants` run (`tsx test/agents/sandbox.ts vitest …`): the
 * pinned clients installed first (from the npm registry, while there is a network), then vitest in namespaces
 * of its own, so README's workflows run as written, `agent-egress` presets and all:
 *
 * - a network namespace: loopback only, with packet filter rules of its own (main's chain for the agent's user
 *   is this run's, whatever other runs on the machine do);
 * - a mount namespace in which /etc/hosts maps the presets' model hosts (api.anthropic.com, api.openai.com,
 *   api.githubcopilot.com) to 127.0.0.1, where the scripted model serves HTTPS on port 443, and the system's CA
 *   bundle also holds the test CA that signed the model's certificate. The agent's user cannot reach port 443
 *   on loopback (main opens it the gateway and the egress proxy only), so a client run through run-agent
 *   reaches the model only through the egress proxy, which resolves the name as it would on a runner;
 * - a pid namespace, so run-agent's ending (every process of the agent's user) is this run's only.
 *
 * Needs root (the suite's isolation: user runs make users and packet filter rules anyway), unshare and ip.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureClients } from './clients.js';
import { makeModelTls, MODEL_HOSTS, ROGUE_HOST, TLS_DIR_VARIABLE } from './model-tls.js';

const SYSTEM_CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';

function main(args: string[]): number {
  if (args.length === 0) {
    console.error('usage: tsx test/agents/sandbox.ts COMMAND [ARG...] (the vitest run, usually)');
    return 2;
  }
  if (process.getuid?.() !== 0) {
    console.error(
      'test/agents/sandbox.ts: the real-agent suites need root (namespaces for the scripted model, the users ' +
        'and packet filter rules isolation: user makes)',
    );
    return 1;
  }
  const dir = mkdtempSync(join(tmpdir(), 'perimeter-agents-sandbox-'));
  chmodSync(dir, 0o755);
  try {
    const tls = makeModelTls(dir);
    const hosts = join(dir, 'hosts');
    writeFileSync(
      hosts,
      `${readFileSync('/etc/hosts', 'utf8').trimEnd()}\n# the scripted model (test/agents/sandbox.ts)\n127.0.0.1 ${[...MODEL_HOSTS, ROGUE_HOST].join(' ')}\n`,
      { mode: 0o644 },
    );
    const bundle = join(dir, 'ca-certificates.crt');
    writeFileSync(
      bundle,
      `${readFileSync(SYSTEM_CA_BUNDLE, 'utf8').trimEnd()}\n${readFileSync(tls.ca, 'utf8')}`,
      {
        mode: 0o644,
      },
    );
    // the shell stays the namespace's first process (no exec): it reaps the orphans re-parented to it, as a
    // runner's init does (npm in its place would leave every ended agent process a zombie)
    const inside =
      'set -e; ip link set lo up; mount --bind "$0" /etc/hosts; mount --bind "$1" "$2"; shift 3; "$@"';
    const run = spawnSync(
      'unshare',
      [
        '--net',
        '--mount',
        '--propagation',
        'private',
        '--pid',
        '--fork',
        '--mount-proc',
        '--',
        '/bin/sh',
        '-c',
        inside,
        hosts,
        bundle,
        SYSTEM_CA_BUNDLE,
        'npx',
        ...args,
      ],
      { stdio: 'inherit', env: { ...process.env, [TLS_DIR_VARIABLE]: dir } },
    );
    if (run.error) {
      console.error(`test/agents/sandbox.ts: could not start unshare: ${run.error.message}`);
      return 1;
    }
    return run.status ?? 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const install = await ensureClients((line) => console.log(line));
console.log(
  `agent clients ${install.cached ? 'found in' : 'installed into'} ${install.dir} in ${install.ms} ms`,
);
process.exit(main(process.argv.slice(2)));
