/**
 * The GitHub stand-in for benchmarks: one bare repository seeded with files and history, the stand-in
 * serving it, Octokit upstreams against it and, when asked, a gateway with MCP clients over HTTP.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { assembleGateway } from '../../src/gateway/assemble.js';
import type { RunningGateway } from '../../src/gateway/index.js';
import { createOctokitUpstream } from '../../src/github/octokit/octokit-upstream.js';
import type { Upstream } from '../../src/github/upstream.js';
import { NO_FILTER, type AnswerFilter } from '../../src/safety/answer-filter.js';
import { commitToBare, seedRepo, startFakeGithub, type FakeGithub } from '@perimeter/fake-github';
import { ANSWER_META } from '../../src/gateway/serving/answers.js';

export const OWNER = 'octo';
export const REPO = 'widgets';
export const BRANCH = 'main';

export interface StandIn {
  fake: FakeGithub;
  repoDir: string;
  token: string;
  /** the seed commit, then one SHA per history commit, oldest first */
  commits: string[];
  /** a fresh Octokit upstream (empty caches) */
  upstream(): Upstream;
  close(): Promise<void>;
}

export interface StandInOptions {
  files: Record<string, string | Uint8Array>;
  history?: Array<{ message: string; files: Record<string, string | Uint8Array | null> }>;
  treeEntryLimit?: number;
}

export async function startStandIn(options: StandInOptions): Promise<StandIn> {
  const dir = await mkdtemp(join(tmpdir(), 'perimeter-bench-'));
  const repoDir = join(dir, 'repo.git');
  const commits = [await seedRepo(repoDir, options.files, { branch: BRANCH })];
  for (const commit of options.history ?? [])
    commits.push(await commitToBare(repoDir, BRANCH, commit.files, commit.message));
  const token = `ghs_${randomBytes(18).toString('hex')}`;
  const fake = await startFakeGithub({
    repos: { [`${OWNER}/${REPO}`]: repoDir },
    token,
    rateLimit: 1_000_000,
    ...(options.treeEntryLimit !== undefined ? { treeEntryLimit: options.treeEntryLimit } : {}),
  });
  return {
    fake,
    repoDir,
    token,
    commits,
    upstream: () =>
      createOctokitUpstream({ token, owner: OWNER, repo: REPO, baseUrl: fake.url, retryBaseMs: 10 }),
    async close() {
      await fake.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface BenchGateway {
  gateway: RunningGateway;
  upstream: Upstream;
  connect(perimeter: string): Promise<Client>;
  close(): Promise<void>;
}

export async function startBenchGateway(
  standIn: StandIn,
  config: string,
  filter: AnswerFilter = NO_FILTER,
): Promise<BenchGateway> {
  const dir = await mkdtemp(join(tmpdir(), 'perimeter-bench-gw-'));
  const { gateway, upstream, secrets } = await assembleGateway(
    {
      token: standIn.token,
      apiUrl: standIn.fake.url,
      owner: OWNER,
      repo: REPO,
      branch: BRANCH,
      defaultBranch: BRANCH,
      configText: config,
      configFile: 'perimeters.yml',
      ledgerPath: join(dir, 'ledger.jsonl'),
      ledgerKey: randomBytes(32).toString('hex'),
    },
    {
      // as the action's gateway: with its partial copy of the branch's history (src/github/git-history.ts)
      upstream: createOctokitUpstream({
        token: standIn.token,
        owner: OWNER,
        repo: REPO,
        baseUrl: standIn.fake.url,
        retryBaseMs: 10,
        history: { branch: BRANCH, dir },
      }),
      filter,
      log: () => {},
    },
  );
  const clients: Client[] = [];
  return {
    gateway,
    upstream,
    async connect(perimeter) {
      const client = new Client({ name: 'perimeter-bench', version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(new URL(gateway.endpoints[perimeter]!), {
        requestInit: { headers: { Authorization: `Bearer ${secrets[perimeter]}` } },
      });
      await client.connect(transport);
      clients.push(client);
      return client;
    },
    async close() {
      await Promise.all(clients.map((c) => c.close()));
      await gateway.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<CallToolResult> {
  // The figures are request counts: a stand-in slowed by a loaded machine must not abort the run at the
  // SDK's default 60 s.
  return (await client.callTool({ name, arguments: args }, undefined, {
    timeout: 600_000,
  })) as CallToolResult;
}

/** The answer as data (the gateway puts it in `_meta`, not in `structuredContent`). */
export function answerOf(result: CallToolResult): Record<string, unknown> | undefined {
  return result._meta?.[ANSWER_META] as Record<string, unknown> | undefined;
}

export function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}
