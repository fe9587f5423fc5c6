/**
 * A 40-call history session on a real project (the MCP TypeScript SDK's main branch, PERIMETER_HISTORY_REPO):
 * whole-branch list_commits pages, get_commit of wide commits (100 files and more) and of merges, on one
 * gateway, each call's upstream requests as the stand-in counts them (REST and GraphQL calls apart).
 * `npx tsx bench/history-session.ts` prints the rows and the totals; skipped without the repository.
 */
import { gitText } from '@perimeter/fake-github';
import { difference, type Cost } from './economy/counting.js';
import { startHistoryStandIn } from './real-history.js';
import { answerOf, callTool, startBenchGateway } from './support/stand-in.js';

export interface SessionRow {
  call: string;
  requests: number;
  rest: number;
  /** REST requests charged to the rate limit (a 304 is not) */
  spent: number;
  graphql: number;
  graphqlPoints: number;
  answer: string;
}

export interface SessionResult {
  rows: SessionRow[];
  total: { requests: number; rest: number; spent: number; graphql: number; graphqlPoints: number };
  /** the most any get_commit took, and any whole-branch list_commits page */
  maxGetCommit: number;
  maxListPage: number;
}

export const CONFIG = `version: 1
perimeters:
  dev:
    read: ["packages/**", "docs/**", "examples/**", "common/**", "test/**", "README.md", "package.json"]
    write: ["packages/**"]
    branches: ["main"]
`;

const lines = (text: string) => text.trim().split('\n').filter(Boolean);

/** The calls: 10 whole-branch pages, every wide commit of the last 400, merges, pages again. */
export async function sessionCalls(dir: string): Promise<Array<[string, string, Record<string, unknown>]>> {
  const wide: Array<[string, number]> = [];
  for (const sha of lines(
    await gitText(dir, ['rev-list', '--no-merges', '--first-parent', '-n', '400', 'main']),
  )) {
    const n = lines(await gitText(dir, ['diff-tree', '--no-commit-id', '-r', '--name-only', sha])).length;
    if (n >= 100) wide.push([sha, n]);
  }
  const merges = lines(await gitText(dir, ['rev-list', '--merges', '--first-parent', '-n', '400', 'main']));
  const calls: Array<[string, string, Record<string, unknown>]> = [];
  const page = (p: number) =>
    calls.push([`list_commits (whole branch) page ${p}`, 'list_commits', { page: p }]);
  for (let p = 1; p <= 5; p++) page(p);
  for (const [sha, n] of wide.slice(0, 8))
    calls.push([`get_commit ${sha.slice(0, 7)} (${n} files)`, 'get_commit', { sha }]);
  const stride = Math.max(1, Math.floor(merges.length / 17));
  for (let i = 0; calls.length < 30 && i < merges.length; i += stride)
    calls.push([`get_commit ${merges[i]!.slice(0, 7)} (merge)`, 'get_commit', { sha: merges[i] }]);
  for (let p = 6; calls.length < 40; p++) page(p);
  return calls;
}

export async function runHistorySession(): Promise<SessionResult | null> {
  const standIn = await startHistoryStandIn('ghs_HistorySession0123456789abcdefghijklm');
  if (standIn === null) return null;
  const { repoDir: dir, fake } = standIn;
  try {
    const calls = await sessionCalls(dir);
    const gw = await startBenchGateway(standIn, CONFIG);
    const rows: SessionRow[] = [];
    try {
      const client = await gw.connect('dev');
      for (const [label, tool, args] of calls) {
        const before = fake.stats();
        const result = await callTool(client, tool, args);
        const cost: Cost = difference(fake.stats(), before);
        const meta = answerOf(result) as
          { commits?: unknown[]; files?: unknown[]; omitted_count?: number } | undefined;
        const answer = result.isError
          ? 'absent'
          : meta?.commits
            ? `${meta.commits.length} commits`
            : `${meta?.files?.length ?? 0} shown, ${meta?.omitted_count ?? 0} omitted`;
        if (process.env.SESSION_ROUTES) console.error(label, JSON.stringify(cost.byRoute));
        rows.push({
          call: label,
          requests: cost.requests,
          rest: cost.requests - cost.graphql,
          spent: cost.spent,
          graphql: cost.graphql,
          graphqlPoints: cost.graphqlPoints,
          answer,
        });
      }
    } finally {
      await gw.close();
    }
    const sum = (f: (r: SessionRow) => number) => rows.reduce((n, r) => n + f(r), 0);
    return {
      rows,
      total: {
        requests: sum((r) => r.requests),
        rest: sum((r) => r.rest),
        spent: sum((r) => r.spent),
        graphql: sum((r) => r.graphql),
        graphqlPoints: sum((r) => r.graphqlPoints),
      },
      maxGetCommit: Math.max(...rows.filter((r) => r.call.startsWith('get_commit')).map((r) => r.requests)),
      maxListPage: Math.max(...rows.filter((r) => r.call.startsWith('list_commits')).map((r) => r.requests)),
    };
  } finally {
    await standIn.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await runHistorySession();
  if (!result) console.log('skipped: no repository at PERIMETER_HISTORY_REPO');
  else {
    for (const r of result.rows)
      console.log(
        `${r.call.padEnd(44)} ${String(r.requests).padStart(4)}  (REST ${r.rest}, ${r.spent} spent, GraphQL ${r.graphql}/${r.graphqlPoints} pt)  ${r.answer}`,
      );
    console.log(
      JSON.stringify({
        total: result.total,
        maxGetCommit: result.maxGetCommit,
        maxListPage: result.maxListPage,
      }),
    );
  }
}
