/**
 * History on a real project: the MCP TypeScript SDK's main branch (about 1,600 commits, merges, wide
 * commits), served by the stand-in from a bare copy. One gateway, the calls of a short history session in
 * order, each call's upstream requests (the stand-in's count). The repository is not vendored: point
 * PERIMETER_HISTORY_REPO at a bare or mirror clone of https://github.com/modelcontextprotocol/typescript-sdk
 * (default .cache/history/typescript-sdk.git); the section is skipped without it.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createOctokitUpstream } from '../src/github/octokit/octokit-upstream.js';
import { git, gitText, startFakeGithub } from '@perimeter/fake-github';
import { difference } from './economy/counting.js';
import { callTool, startBenchGateway, type StandIn } from './support/stand-in.js';

export interface HistoryRow {
  call: string;
  requests: number;
  routes: Record<string, number>;
  answer: string;
}

export interface HistoryResult {
  source: string;
  head: string;
  commits: number;
  merges: number;
  rows: HistoryRow[];
}

const CONFIG = `version: 1
perimeters:
  dev:
    read: ["packages/**", "docs/**", "examples/**", "common/**", "test/**", "README.md", "package.json"]
    write: ["packages/**"]
    branches: ["main"]
`;

/** The newest first-parent commit (not a merge) that changed exactly `files` files, or the nearest count above. */
async function commitWithFiles(dir: string, files: number): Promise<{ sha: string; files: number }> {
  const shas = (await gitText(dir, ['rev-list', '--no-merges', '--first-parent', '-n', '400', 'main']))
    .trim()
    .split('\n');
  let best: { sha: string; files: number } | null = null;
  for (const sha of shas) {
    const changed = (await gitText(dir, ['diff-tree', '--no-commit-id', '-r', '--name-only', sha]))
      .trim()
      .split('\n')
      .filter(Boolean).length;
    if (changed === files) return { sha, files: changed };
    if (changed > files && (!best || changed < best.files)) best = { sha, files: changed };
  }
  if (!best) throw new Error(`no commit with ${files} or more files`);
  return best;
}

/**
 * The stand-in serving a bare copy of the real history (PERIMETER_HISTORY_REPO, default
 * .cache/history/typescript-sdk.git) as octo/widgets; null when there is no such history.
 */
export async function startHistoryStandIn(token: string): Promise<StandIn | null> {
  const source = resolve(process.env.PERIMETER_HISTORY_REPO ?? '.cache/history/typescript-sdk.git');
  if (!existsSync(source)) return null;
  const root = await mkdtemp(join(tmpdir(), 'perimeter-history-'));
  const dir = join(root, 'sdk.git');
  await git(root, ['clone', '-q', '--bare', '--single-branch', '--branch', 'main', source, dir]);
  const fake = await startFakeGithub({ repos: { 'octo/widgets': dir }, token, rateLimit: 1_000_000 });
  return {
    fake,
    repoDir: dir,
    token,
    commits: [],
    upstream: () =>
      createOctokitUpstream({ token, owner: 'octo', repo: 'widgets', baseUrl: fake.url, retryBaseMs: 10 }),
    close: async () => {
      await fake.stop();
      await rm(root, { recursive: true, force: true });
    },
  };
}

export async function runRealHistory(): Promise<HistoryResult | null> {
  const standIn = await startHistoryStandIn('ghs_HistoryBench0123456789abcdefghijklmnop');
  if (standIn === null) return null;
  const { repoDir: dir, fake } = standIn;
  try {
    const head = (await gitText(dir, ['rev-parse', 'main'])).trim();
    const commits = Number((await gitText(dir, ['rev-list', '--count', 'main'])).trim());
    const merges = Number((await gitText(dir, ['rev-list', '--merges', '--count', 'main'])).trim());
    const sixteen = await commitWithFiles(dir, 16);
    const sixtyOne = await commitWithFiles(dir, 61);
    const wide = await commitWithFiles(dir, 235);
    const widest = await commitWithFiles(dir, 700);
    const merge = (await gitText(dir, ['rev-list', '--merges', '--first-parent', '-n', '1', 'main'])).trim();
    const gw = await startBenchGateway(standIn, CONFIG);
    const rows: HistoryRow[] = [];
    try {
      const client = await gw.connect('dev');
      const calls: Array<[string, string, Record<string, unknown>]> = [
        [`get_commit of a ${sixteen.files}-file commit (cold)`, 'get_commit', { sha: sixteen.sha }],
        [`get_commit of a ${sixtyOne.files}-file commit (cold)`, 'get_commit', { sha: sixtyOne.sha }],
        ['list_commits packages/ (readable), page 1 of 30', 'list_commits', { path: 'packages' }],
        ['list_commits packages/, page 2', 'list_commits', { path: 'packages', page: 2 }],
        ['list_commits .github/ (hidden)', 'list_commits', { path: '.github' }],
        ['list_commits nothing-here/ (missing)', 'list_commits', { path: 'nothing-here' }],
        ['list_commits (whole branch), page 1 of 30', 'list_commits', {}],
        ['list_commits (whole branch), page 2', 'list_commits', { page: 2 }],
        [`get_commit of a wide ${wide.files}-file commit (cold)`, 'get_commit', { sha: wide.sha }],
        [`get_commit of a wide ${widest.files}-file commit (cold)`, 'get_commit', { sha: widest.sha }],
        ['get_commit of a merge (cold)', 'get_commit', { sha: merge }],
      ];
      for (const [label, tool, args] of calls) {
        const before = fake.stats();
        const result = await callTool(client, tool, args);
        const cost = difference(fake.stats(), before);
        const meta = result._meta?.['perimeter/answer'] as
          { commits?: unknown[]; files?: unknown[]; omitted_count?: number } | undefined;
        const answer = result.isError
          ? 'absent'
          : meta?.commits
            ? `${meta.commits.length} commits`
            : `${meta?.files?.length ?? 0} files shown, ${meta?.omitted_count ?? 0} omitted`;
        rows.push({ call: label, requests: cost.requests, routes: cost.byRoute, answer });
      }
    } finally {
      await gw.close();
    }
    return { source: 'modelcontextprotocol/typescript-sdk', head, commits, merges, rows };
  } finally {
    await standIn.close();
  }
}
