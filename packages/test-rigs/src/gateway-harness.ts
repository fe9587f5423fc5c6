import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ANSWER_META } from '../../../src/gateway/serving/answers.js';
import { startGateway, type RunningGateway } from '../../../src/gateway/index.js';
import {
  createOctokitUpstream,
  type OctokitUpstreamOptions,
} from '../../../src/github/octokit/octokit-upstream.js';
import type { Upstream } from '../../../src/github/upstream.js';
import { compilePerimeter, parseConfig } from '../../../src/policy/index.js';
import type { AnswerFilter } from '../../../src/safety/answer-filter.js';
import { type FakeGithub, gitText, seedRepo, startFakeGithub } from '@perimeter/fake-github';
import { AttemptClock } from './attempt-clock.js';
import { startSlowProxy, type SlowProxy } from './slow-proxy.js';

export const OWNER = 'octo';
export const REPO = 'lanes';

export interface HarnessOptions {
  files: Record<string, string | Uint8Array>;
  config: string;
  branch?: string;
  filter?: AnswerFilter;
  token?: string;
  /** entries of a recursive tree answer before the stand-in reports it truncated */
  treeEntryLimit?: number;
  /** GraphQL points an hour on the stand-in (0: every GraphQL call refused) */
  graphqlRateLimit?: number;
  /** upstream tuning; the token, repository and base URL are the harness's */
  upstream?: Partial<Omit<OctokitUpstreamOptions, 'token' | 'owner' | 'repo' | 'baseUrl'>>;
  /** more repositories in the stand-in: 'owner/name' -> files of their `main` */
  otherRepos?: Record<string, Record<string, string>>;
  /** put a proxy that can hold requests or answers back between the upstream and the stand-in */
  proxy?: boolean;
  /**
   * 'on-hold': an upstream attempt times out exactly when the stand-in (a `hang` fault) or the proxy holds
   * it, never on the wall clock. Default 'wall': the upstream's own requestTimeoutMs.
   */
  timeouts?: 'wall' | 'on-hold';
  /** the trusted ref agent instruction files are served from (the gateway's instructionsRef) */
  instructionsRef?: string;
  /** what the gateway talks to instead of the harness's upstream (e.g. the upstream wrapped for staged writes) */
  wrapUpstream?: (upstream: Upstream) => Upstream;
}

export interface Harness {
  fake: FakeGithub;
  proxy: SlowProxy | null;
  repoDir: string;
  otherRepoDirs: Record<string, string>;
  dir: string;
  token: string;
  upstream: Upstream;
  gateway: RunningGateway;
  secrets: Record<string, string>;
  ledgerPath: string;
  ledgerKey: string;
  logs: string[];
  /** An MCP client over HTTP for one perimeter, with its secret unless another is given. */
  connect(perimeter: string, secret?: string): Promise<Client>;
  head(branch?: string): Promise<string>;
  close(): Promise<void>;
}

/** A fake-looking installation token, distinctive enough to search for in everything the test sees. */
export function fakeToken(): string {
  return `ghs_${randomBytes(18).toString('hex')}`;
}

export async function startHarness(options: HarnessOptions): Promise<Harness> {
  const dir = await mkdtemp(join(tmpdir(), 'perimeter-gw-'));
  const repoDir = join(dir, 'repo.git');
  const branch = options.branch ?? 'main';
  await seedRepo(repoDir, options.files, { branch });
  const otherRepoDirs: Record<string, string> = {};
  for (const [name, files] of Object.entries(options.otherRepos ?? {})) {
    otherRepoDirs[name] = join(dir, `${name.replace('/', '_')}.git`);
    await seedRepo(otherRepoDirs[name], files);
  }
  const token = options.token ?? fakeToken();
  const fake = await startFakeGithub({
    repos: { [`${OWNER}/${REPO}`]: repoDir, ...otherRepoDirs },
    token,
    ...(options.treeEntryLimit !== undefined ? { treeEntryLimit: options.treeEntryLimit } : {}),
    ...(options.graphqlRateLimit !== undefined ? { graphqlRateLimit: options.graphqlRateLimit } : {}),
  });
  const proxy = options.proxy ? await startSlowProxy(fake.url) : null;
  const clock = options.timeouts === 'on-hold' ? new AttemptClock() : null;
  if (clock) {
    fake.onHang(() => clock.expire());
    proxy?.onHold(() => clock.expire());
  }
  const direct = createOctokitUpstream({
    retryBaseMs: 10,
    ...options.upstream,
    ...(clock ? { attemptSignal: clock.signal } : {}),
    token,
    owner: OWNER,
    repo: REPO,
    baseUrl: proxy?.url ?? fake.url,
  });
  const upstream = options.wrapUpstream?.(direct) ?? direct;
  const config = parseConfig(options.config);
  const perimeters = config.perimeters.map((spec) => compilePerimeter(spec));
  const secrets = Object.fromEntries(perimeters.map((p) => [p.name, randomBytes(24).toString('base64url')]));
  const ledgerPath = join(dir, 'ledger.jsonl');
  const ledgerKey = randomBytes(32).toString('hex');
  const logs: string[] = [];
  const gateway = await startGateway({
    upstream,
    branch,
    perimeters,
    secrets,
    ledger: { path: ledgerPath, key: ledgerKey },
    log: (line) => logs.push(line),
    ...(options.filter ? { filter: options.filter } : {}),
    ...(options.instructionsRef !== undefined ? { instructionsRef: options.instructionsRef } : {}),
  });
  const clients: Client[] = [];
  return {
    fake,
    proxy,
    repoDir,
    otherRepoDirs,
    dir,
    token,
    upstream,
    gateway,
    secrets,
    ledgerPath,
    ledgerKey,
    logs,
    async connect(perimeter, secret = secrets[perimeter]) {
      const client = new Client({ name: 'gateway-test', version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp/${perimeter}`), {
        requestInit: { headers: { Authorization: `Bearer ${secret}` } },
      });
      await client.connect(transport);
      clients.push(client);
      return client;
    },
    async head(name = branch) {
      return (await gitText(repoDir, ['rev-parse', `refs/heads/${name}`])).trim();
    },
    async close() {
      await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
      await gateway.close();
      await proxy?.stop();
      await fake.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Calls a tool; the whole result, as the client got it. */
export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

export function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

/** The answer as data (`_meta`, see ANSWER_META); undefined for an error. */
export function answerOf(result: CallToolResult): Record<string, unknown> | undefined {
  return result._meta?.[ANSWER_META] as Record<string, unknown> | undefined;
}

/** The answer of a successful call as data; throws with the error text otherwise. */
export async function ok<T = Record<string, unknown>>(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<T> {
  const result = await call(client, name, args);
  if (result.isError) throw new Error(`${name} failed: ${textOf(result)}`);
  return answerOf(result) as T;
}
