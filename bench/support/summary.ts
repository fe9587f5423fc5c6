/** The targets of issue 6 checked against the figures, and the markdown table for BENCHMARKS.md. */
import type { StartupResult } from '../startup.js';
import type { EconomyResult } from '../economy/economy.js';
import type { JobsRow } from '../jobs.js';
import type { SpeedResult } from '../gateway-speed.js';
import type { PolicyResult } from '../policy.js';
import type { SafetyResult } from '../content-safety.js';
import type { VerifyRow } from '../verify-scale.js';
import type { BigRow } from '../big-repos.js';
import type { WorkspaceRow } from '../workspace.js';
import type { SearchRow } from '../search.js';
import type { HistoryResult } from '../real-history.js';
import type { SessionResult } from '../history-session.js';
import type { Machine } from './machine.js';
import { mark, table, type Target } from './report.js';

interface Results {
  mode?: string;
  machine?: Machine & { loadavg_start?: number[]; loadavg_end?: number[] };
  economy?: EconomyResult;
  jobs?: JobsRow[];
  gateway?: SpeedResult;
  verify?: VerifyRow[];
  big?: BigRow[];
  workspace?: WorkspaceRow[];
  search?: SearchRow[];
  history?: HistoryResult | null;
  history_session?: SessionResult | null;
  startup?: StartupResult;
  policy?: PolicyResult;
  safety?: SafetyResult;
  targets?: Target[];
  duration_s?: number;
}

export function evaluateTargets(raw: Record<string, unknown>): Target[] {
  const r = raw as Results;
  const targets: Target[] = [];
  const e = r.economy;
  const pushMax = e ? Math.max(...Object.values(e.push_files_requests)) : NaN;
  targets.push({
    name: 'push_files requests, any file count, text or binary (issue 13)',
    target: '≤ 3',
    value: e
      ? Object.entries(e.push_files_requests)
          .map(([n, v]) => `${n} files: ${v}`)
          .join(', ')
      : '',
    met: e ? pushMax <= 3 : null,
  });
  // list_commits below a readable folder and get_commit, in the generated session and on a real history
  const calls = [
    ...(e?.steps ?? []).map((step) => ({ call: step.step, requests: step.perimeter, where: 'generated' })),
    ...(r.history?.rows ?? []).map((row) => ({
      call: row.call,
      requests: row.requests,
      where: 'real history',
    })),
  ];
  for (const [name, limit, pick] of [
    [
      'list_commits on a folder inside the read globs, requests a page (issue 13)',
      2,
      (c: string) => c === 'list_commits src/core' || /^list_commits packages\/(,| \(readable\))/.test(c),
    ],
    ['get_commit requests (issue 13)', 3, (c: string) => /^get_commit(?! of a (wide|merge))/.test(c)],
    [
      'get_commit of wide commits and merges on a real history, requests (issue 32)',
      7,
      (c: string) => /^get_commit of a (wide|merge)/.test(c),
    ],
    ['whole-branch list_commits, requests a page (issue 32)', 5, (c: string) => /whole branch/.test(c)],
  ] as const) {
    const rows = calls.filter((c) => pick(c.call));
    targets.push({
      name,
      target: `≤ ${limit}`,
      value: rows.map((c) => `${c.requests} (${c.where}: ${c.call})`).join(', '),
      met: rows.length > 0 ? rows.every((c) => c.requests <= limit) : null,
    });
  }
  const hs = r.history_session;
  targets.push({
    name: '40-call history session on the SDK: whole-branch pages, wide commits, merges (issue 32)',
    target: '≤ 100 requests',
    value: hs
      ? `${hs.total.requests} (REST ${hs.total.rest}, ${hs.total.spent} charged; GraphQL ${hs.total.graphqlPoints} points); get_commit at most ${hs.maxGetCommit}, a page at most ${hs.maxListPage}`
      : '',
    met: hs ? hs.total.requests <= 100 : null,
  });
  targets.push({
    name: 'warm repeated read',
    target: '0 or 1',
    value: e ? `at most ${e.warm_repeat_reads.max} (${e.warm_repeat_reads.count} reads)` : '',
    met: e ? e.warm_repeat_reads.max <= 1 : null,
  });
  const s = e?.session;
  targets.push({
    name: 'session vs floor, all requests',
    target: '≤ 1.25×',
    value: s ? `${s.perimeter_to_floor}× (${s.perimeter} / ${s.floor})` : '',
    met: s ? s.perimeter_to_floor <= 1.25 : null,
  });
  targets.push({
    name: 'session vs floor, charged requests',
    target: '≤ 1.25×',
    value: s ? `${s.charged.perimeter_to_floor}× (${s.perimeter_charged} / ${s.floor_charged})` : '',
    met: s ? s.charged.perimeter_to_floor <= 1.25 : null,
  });
  targets.push({
    name: 'naive vs session, all requests',
    target: '≥ 5×',
    value: s ? `${s.naive_to_perimeter}× (${s.naive} / ${s.perimeter})` : '',
    met: s ? s.naive_to_perimeter >= 5 : null,
  });
  targets.push({
    name: 'naive vs session, charged requests',
    target: '≥ 5×',
    value: s ? `${s.charged.naive_to_perimeter}× (${s.naive} / ${s.perimeter_charged})` : '',
    met: s ? s.charged.naive_to_perimeter >= 5 : null,
  });
  targets.push({
    name: 'session vs floor, charged requests (issue 13)',
    target: '≤ 1.1×',
    value: s ? `${s.charged.perimeter_to_floor}× (${s.perimeter_charged} / ${s.floor_charged})` : '',
    met: s ? s.charged.perimeter_to_floor <= 1.1 : null,
  });
  targets.push({
    name: "agent sessions an hour within GITHUB_TOKEN's budgets (REST 1,000 requests, GraphQL 1,000 points)",
    target: 'more than server-github and github-mcp-server',
    value: s?.sessions_per_hour
      ? `${s.sessions_per_hour.both} (REST ${s.sessions_per_hour.rest}, GraphQL ${s.sessions_per_hour.graphql ?? 'unused'}) against ${s.sessions_per_hour.server_github} and ${s.sessions_per_hour.github_mcp_server}`
      : '',
    met: s?.sessions_per_hour
      ? s.sessions_per_hour.both >
        Math.max(s.sessions_per_hour.server_github, s.sessions_per_hour.github_mcp_server)
      : null,
  });
  for (const [setup, wanted, rest] of [
    ['one job (post verifies)', 60, 16],
    ['two jobs (the verify job verifies)', 40, 25],
  ] as const) {
    const job = r.jobs?.find((j) => j.setup === setup && (j.workload ?? 'bench session') === 'bench session');
    targets.push({
      name: `agent jobs an hour with verification, ${setup} (issue 32)`,
      target: `≥ ${wanted} (REST ≤ ${rest} a job)`,
      value: job
        ? `${job.jobs_per_hour} (${job.rest} REST, ${job.graphql_points} GraphQL points, ${job.git} git a job)`
        : '',
      met: job ? job.jobs_per_hour >= wanted && job.rest <= rest : null,
    });
  }
  // issue 43: on real histories, verification included, beside the reference servers in the same run
  for (const workload of [
    "the SDK's history",
    'mixed session on the SDK',
    "the servers' history",
    'mixed session on the servers',
  ] as const)
    for (const [setup, wanted] of [
      ['one job (post verifies)', 150],
      ['two jobs (the verify job verifies)', 100],
    ] as const) {
      const job = r.jobs?.find((j) => j.setup === setup && j.workload === workload);
      targets.push({
        name: `agent jobs an hour on ${workload}, ${setup} (issue 43)`,
        target: `≥ ${wanted}`,
        value: job
          ? `${job.jobs_per_hour} (${job.rest} REST, ${job.graphql_points} GraphQL points, ${job.git} git a job)`
          : '',
        met: job ? job.jobs_per_hour >= wanted : null,
      });
    }
  for (const [name, theirs] of [
    ['server-github', s?.naive_server_github],
    ['github-mcp-server', s?.naive_github_mcp_server],
  ] as const) {
    targets.push({
      name: `session, charged requests, fewer than ${name}`,
      target: '< theirs',
      value:
        s && theirs !== undefined
          ? `${s.perimeter_spent} REST + ${s.perimeter_graphql_points ?? 0} GraphQL points against ${theirs}`
          : '',
      met: s && theirs !== undefined ? s.perimeter_spent + (s.perimeter_graphql_points ?? 0) < theirs : null,
    });
  }
  const g = r.gateway;
  targets.push({
    name: 'warm get_file overhead at p50 over a plain MCP SDK server doing the same upstream work',
    target: '< 1 ms',
    value: g
      ? `${g.p50_overhead_vs_plain_ms} ms (${g.gateway_ms.p50} against ${g.plain_mcp_ms.p50} ms, ${g.ratio_vs_plain}×)`
      : '',
    met: g ? g.p50_overhead_vs_plain_ms < 1 : null,
  });
  const big = r.verify?.filter((row) => row.files >= 100_000 && row.changed === 10) ?? [];
  targets.push({
    name: 'verify 10 changed files in 100,000',
    target: '≤ 20 requests',
    value: big.map((row) => `${row.requests} (${row.spread})`).join(', '),
    met: big.length > 0 ? big.every((row) => row.requests <= 20) : null,
  });
  const scattered = r.verify?.filter((row) => row.files >= 100_000 && row.changed === 1000) ?? [];
  targets.push({
    name: 'verify 1,000 changed files in 100,000',
    target: '≤ 100 requests',
    value: scattered.map((row) => `${row.requests} (${row.spread})`).join(', '),
    met: scattered.length > 0 ? scattered.every((row) => row.requests <= 100) : null,
  });
  for (const [files, limit] of [
    [100_000, 60],
    [40_000, 40],
  ] as const) {
    const rows = r.big?.filter((row) => row.files === files) ?? [];
    targets.push({
      name: `first call at ${files.toLocaleString('en-US')} files (tree caps on)`,
      target: `≤ ${limit} requests`,
      value: rows.map((row) => `${row.first_call_requests} (${row.layout})`).join(', '),
      met: rows.length > 0 ? rows.every((row) => row.first_call_requests <= limit) : null,
    });
  }
  targets.push({
    name: 'main to gateway ready (issue 32: on a quiet 2-core machine)',
    target: '< 600 ms',
    value: r.startup
      ? `${r.startup.ready_ms} ms (${Math.round((r.startup.ready_ms / r.startup.node_bare_start_ms) * 10) / 10}× a bare node, load ${r.machine?.loadavg_start?.[0] ?? '?'})`
      : '',
    met: r.startup ? r.startup.ready_ms < 600 : null,
  });
  return targets;
}

const kb = (bytes: number): string => `${Math.round(bytes / 1024).toLocaleString('en-US')} KB`;

export function renderTable(raw: Record<string, unknown>): string {
  const r = raw as Results;
  const out: string[] = [];
  const m = r.machine;
  if (m) {
    out.push(
      `Measured ${m.date.slice(0, 16).replace('T', ' ')} UTC at commit \`${m.commit}\`${m.dirty ? ' (with uncommitted changes)' : ''}, ` +
        `\`npm run bench${r.mode === 'quick' ? ' -- --quick' : ''}\` (${r.duration_s ?? '?'} s). Machine: ${m.nproc} × ${m.cpu}, ` +
        `${m.memory_gb} GB, Node ${m.node}, ${m.platform}; load average ${m.loadavg_start?.[0]} at the start, ${m.loadavg_end?.[0]} at the end.`,
    );
  }
  if (r.targets) {
    out.push(
      '### Targets',
      table(
        ['target', 'wanted', 'measured', ''],
        r.targets.map((t) => [t.name, t.target, t.value, mark(t.met)]),
      ),
    );
  }
  if (r.jobs) {
    const phases = [...new Set(r.jobs.flatMap((j) => Object.keys(j.phases)))];
    out.push(
      '### Agent jobs an hour, verification included (the built action, run as a runner runs it)',
      table(
        [
          'workload',
          'setup',
          ...phases.map((p) => `${p}: REST / GraphQL / git`),
          'a job: REST / GraphQL / git',
          'jobs an hour',
          'receipt',
        ],
        r.jobs.map((j) => [
          j.workload ?? 'bench session',
          j.setup,
          ...phases.map((p) => {
            const c = j.phases[p];
            return c ? `${c.rest} / ${c.graphql_points} / ${c.git}` : '';
          }),
          `${j.rest} / ${j.graphql_points} / ${j.git}`,
          j.jobs_per_hour,
          j.receipt,
        ]),
      ),
    );
  }
  const e = r.economy;
  if (e) {
    const s = e.session;
    out.push(
      `### Request economy (${e.repository.files.toLocaleString('en-US')} files, ${e.repository.commits} commits, ${e.repository.perimeters} perimeters; session of ${s.calls} calls on \`${e.repository.perimeter}\`)`,
      table(
        ['', 'all requests', 'ratio', 'charged', 'ratio (charged)'],
        [
          [
            'Perimeter (stand-in count)',
            `${s.perimeter} (${s.perimeter_not_modified} of them 304, ${s.perimeter_graphql ?? 0} GraphQL) + ${s.perimeter_git ?? 0} git`,
            '',
            `${s.perimeter_spent} REST + ${s.perimeter_graphql_points ?? 0} GraphQL points`,
            '',
          ],
          [
            `floor (computed): ${s.floor_parts.ref_checks} ref checks (${s.floor_parts.free_ref_checks} of them 304) + ${s.floor_parts.objects} objects + ${s.floor_parts.writes} writes; blobs: ${s.floor_parts.git ?? 0} git`,
            s.floor,
            `Perimeter / floor ${s.perimeter_to_floor}×`,
            s.floor_charged,
            `Perimeter / floor ${s.charged.perimeter_to_floor}×`,
          ],
          [
            'naive: contents GET per read, contents PUT per file',
            s.naive,
            `naive / Perimeter ${s.naive_to_perimeter}×`,
            s.naive,
            `naive / Perimeter ${s.charged.naive_to_perimeter}×`,
          ],
          [
            'github-mcp-server (ref + contents per read, push_files)',
            s.naive_github_mcp_server,
            `${s.naive_github_mcp_server_to_perimeter}×`,
            s.naive_github_mcp_server,
            `${s.charged.naive_github_mcp_server_to_perimeter}×`,
          ],
          [
            'server-github (contents GET per read, 4-request push_files)',
            s.naive_server_github,
            '',
            s.naive_server_github,
            `${s.charged.naive_server_github_to_perimeter}×`,
          ],
        ],
      ),
      table(
        ['tool', 'calls', 'Perimeter', 'floor', 'Perimeter charged', 'floor charged', 'naive'],
        Object.entries(e.by_tool).map(([tool, row]) => [
          tool,
          row.calls,
          row.perimeter,
          row.floor,
          row.perimeter_charged,
          row.floor_charged,
          row.naive,
        ]),
      ),
      `push_files requests by file count: ${Object.entries(e.push_files_requests)
        .map(([n, v]) => `${n} → ${v}`)
        .join(', ')}. ` +
        `Warm repeated reads: ${e.warm_repeat_reads.count}, requests each: ${Object.entries(
          e.warm_repeat_reads.histogram,
        )
          .map(([n, c]) => `${n} (×${c})`)
          .join(', ')}.`,
    );
  }
  const g = r.gateway;
  if (g) {
    out.push(
      `### Gateway speed (warm get_file of a ${kb(g.file_bytes)} file, ${g.samples} samples; gateway process as the action starts it, content filter on)`,
      table(
        ['', 'p50 ms', 'p99 ms'],
        [
          ['through the gateway', g.gateway_ms.p50, g.gateway_ms.p99],
          [
            'a plain MCP SDK server doing the same upstream work (the head over git; the text from its cache)',
            g.plain_mcp_ms.p50,
            g.plain_mcp_ms.p99,
          ],
          ['direct: Octokit GET blob', g.direct_blob_ms.p50, g.direct_blob_ms.p99],
          [
            'direct: conditional GET ref (304), the REST form of the head check',
            g.direct_ref_304_ms.p50,
            g.direct_ref_304_ms.p99,
          ],
        ],
      ),
      `Overhead at p50 over the plain MCP SDK server: **${g.p50_overhead_vs_plain_ms} ms** (${g.ratio_vs_plain}× its p50; its process used ${g.plain_cpu_ms_per_call} ms of CPU per read); over the direct blob read: ${g.p50_overhead_ms} ms; over the one request the gateway still makes: ${g.p50_own_cost_ms} ms. ` +
        `The gateway process (${g.entry}) used ${g.gateway_cpu_ms_per_call} ms of CPU per warm read at first, ${g.gateway_cpu_ms_per_call_later} ms after ${g.calls_served} calls; the bench process (MCP client and stand-in) ${g.client_cpu_ms_per_call.gateway} ms per read through the gateway, ${g.client_cpu_ms_per_call.direct_ref_304} ms per direct conditional GET ref. ` +
        `Upstream requests per warm read: ${g.upstream_requests_per_warm_read}. Gateway resident memory after the run: ${g.rss_mb} MB.`,
      table(
        ['concurrency', 'calls', 'failed', 'calls/s', 'p50 ms', 'p99 ms'],
        g.throughput.map((t) => [t.concurrency, t.calls, t.failed, t.calls_per_s, t.p50_ms, t.p99_ms]),
      ),
    );
  }
  if (r.safety) {
    const s = r.safety;
    out.push(
      `### Content safety (warm get_file of a ${kb(s.file_bytes)} file, ${s.hidden_values} values hidden)`,
      `redact() alone p50 ${s.redact_cold_ms.p50} ms on a text not seen before, ${s.redact_ms.p50} ms on the same text again (cached by content hash); warm get_file p50 ${s.get_file_no_filter_ms.p50} ms without the filter, ${s.get_file_filter_ms.p50} ms with it: **the filter costs ${s.filter_cost_p50_ms} ms** at p50.`,
    );
  }
  if (r.verify) {
    out.push(
      '### Verification scale (verifyJob, cold caches as in the post step)',
      table(
        [
          'files',
          'changed',
          'spread',
          'leaf dirs changed',
          'requests',
          'of them GraphQL (points)',
          'ms',
          'verdict',
        ],
        r.verify.map((v) => [
          v.files.toLocaleString('en-US'),
          v.changed.toLocaleString('en-US'),
          v.spread,
          v.directories,
          v.requests,
          `${v.graphql ?? 0} (${v.graphql_points ?? 0})`,
          v.ms,
          v.verdict,
        ]),
      ),
    );
  }
  if (r.big) {
    out.push(
      "### Big repositories (the first call, a recursive get_tree; GitHub's caps on a recursive tree listing: 100,000 entries or 7 MB)",
      table(
        [
          'layout',
          'files',
          'directories',
          'first call requests',
          'of them GraphQL (points)',
          'ms',
          'a read after a push',
        ],
        r.big.map((b) => [
          b.layout,
          b.files.toLocaleString('en-US'),
          b.directories.toLocaleString('en-US'),
          b.first_call_requests,
          `${b.first_call_graphql ?? 0} (${b.first_call_graphql_points ?? 0})`,
          b.ms,
          b.after_push_requests,
        ]),
      ),
    );
  }
  if (r.search) out.push(...searchTable(r.search));
  if (r.workspace) {
    out.push(
      '### The perimeter workspace (hand-out of what one perimeter reads, against `git clone --depth 1` of the same head; bytes on the wire both ways, and the API answers gzipped as GitHub sends them)',
      table(
        [
          'files',
          'handed out',
          'REST requests',
          'GraphQL calls (points)',
          'git requests',
          'blobs over git',
          'bytes (answers gzipped)',
          'ms',
          'clone: git requests',
          'clone: bytes',
          'clone: ms',
        ],
        r.workspace.map((w) => [
          w.files.toLocaleString('en-US'),
          w.handed_out.toLocaleString('en-US'),
          w.workspace.rest_requests,
          `${w.workspace.graphql_calls} (${w.workspace.graphql_points})`,
          w.workspace.git_requests,
          w.workspace.blobs.git.toLocaleString('en-US'),
          `${w.workspace.bytes.toLocaleString('en-US')} (${w.workspace.answer_bytes_gzipped.toLocaleString('en-US')})`,
          w.workspace.ms,
          w.clone.git_requests,
          w.clone.bytes.toLocaleString('en-US'),
          w.clone.ms,
        ]),
      ),
    );
  }
  if (r.history) {
    const h = r.history;
    out.push(
      `### History of a real project (${h.source} at ${h.head.slice(0, 12)}: ${h.commits.toLocaleString('en-US')} commits, ${h.merges} merges; one gateway, calls in this order)`,
      table(
        ['call', 'requests', 'answer'],
        h.rows.map((row) => [row.call, row.requests, row.answer]),
      ),
    );
  }
  if (r.history_session) {
    const hs = r.history_session;
    out.push(
      `### A 40-call history session on the same history (one gateway, calls in this order; ${hs.total.requests} requests: REST ${hs.total.rest}, ${hs.total.spent} charged, GraphQL ${hs.total.graphqlPoints} points)`,
      table(
        ['call', 'requests', 'REST (charged)', 'GraphQL points', 'answer'],
        hs.rows.map((row) => [
          row.call,
          row.requests,
          `${row.rest} (${row.spent})`,
          row.graphqlPoints,
          row.answer,
        ]),
      ),
    );
  }
  if (r.startup) {
    const s = r.startup;
    out.push(
      '### Start-up and bundles',
      `main to gateway ready: **${s.ready_ms} ms** (median of ${s.runs}: ${s.ready_ms_all.join(', ')}); post: ${s.post_ms} ms; a bare \`node -e ''\`: ${s.node_bare_start_ms} ms. ` +
        `dist/ ${s.dist_fresh ? 'matches' : '**does not match**'} the sources.`,
      table(
        ['bundle', 'index.js', 'whole directory'],
        Object.entries(s.bundles).map(([n, b]) => [`dist/${n}`, kb(b.index_js_bytes), kb(b.total_bytes)]),
      ),
    );
  }
  if (r.policy) {
    const p = r.policy;
    out.push(
      '### Policy',
      `Classifying ${p.paths.toLocaleString('en-US')} paths against ${p.globs} globs (a read and a write decision each): median ${p.median_ms} ms wall, ${p.cpu_median_ms} ms CPU (${p.ns_per_decision} ns per decision).`,
    );
  }
  return out.join('\n\n');
}

/** The search section: one search through the gateway against get_files over every file, the same run. */
export function searchTable(rows: SearchRow[]): string[] {
  return [
    '### Search (one `search` through the gateway, secret filter on, against `get_tree` then `get_files` 100 paths a call over every file, the same run; requests are REST and GraphQL, git apart)',
    table(
      [
        'files',
        'cold: requests (git)',
        'cold: ms',
        'warm: requests (git)',
        'warm: ms',
        'baseline: calls',
        'baseline: requests (git)',
        'baseline: ms',
        'baseline / cold',
      ],
      rows.map((s) => [
        s.files.toLocaleString('en-US'),
        `${s.cold.requests} (${s.cold.git})`,
        s.cold.ms,
        `${s.warm.requests} (${s.warm.git})`,
        s.warm.ms,
        s.baseline.calls.toLocaleString('en-US'),
        `${s.baseline.requests} (${s.baseline.git})`,
        s.baseline.ms,
        `${s.ratio}x`,
      ]),
    ),
  ];
}
