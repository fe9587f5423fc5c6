/**
 * A gateway in front of the GitHub stand-in, with the upstream's tuning (timeouts, retries, rate-limit
 * waits) open to the test, plus the raw HTTP door a hostile client would use.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startGateway, type RunningGateway } from '../../../src/gateway/index.js';
import { createOctokitUpstream, type OctokitUpstreamOptions } from '../../../src/github/octokit-upstream.js';
import type { Upstream } from '../../../src/github/upstream.js';
import { compilePerimeter, parseConfig } from '../../../src/policy/index.js';
import type { AnswerFilter } from '../../../src/safety/answer-filter.js';
import { gitText } from '../../fake-github/git.js';
import { seedRepo, startFakeGithub, type FakeGithub, type FakeStats } from '../../fake-github/index.js';
import { startSlowProxy, type SlowProxy } from './slow-proxy.js';

export const OWNER = 'octo';
export const REPO = 'lanes';

export interface StandOptions {
  files: Record<string, string | Uint8Array>;
  config: string;
  branch?: string;
  filter?: AnswerFilter;
  /** upstream tuning; the token, repository and base URL are the stand's */
  upstream?: Partial<Omit<OctokitUpstreamOptions, 'token' | 'owner' | 'repo' | 'baseUrl'>>;
  /** more repositories in the stand-in: 'owner/name' -> files of their `main` */
  otherRepos?: Record<string, Record<string, string>>;
  /** put a proxy that can hold answers back between the upstream and the stand-in */
  proxy?: boolean;
}

export interface Stand {
  fake: FakeGithub;
  proxy: SlowProxy | null;
  dir: string;
  repoDir: string;
  otherRepoDirs: Record<string, string>;
  token: string;
  upstream: Upstream;
  gateway: RunningGateway;
  secrets: Record<string, string>;
  ledgerPath: string;
  ledgerKey: string;
  logs: string[];
  connect(perimeter: string): Promise<Client>;
  /** One raw HTTP request to a perimeter endpoint (bearer secret included unless headers override it). */
  post(perimeter: string, body: string | Uint8Array, headers?: Record<string, string>): Promise<RawAnswer>;
  head(branch?: string): Promise<string>;
  close(): Promise<void>;
}

export interface RawAnswer {
  status: number;
  contentType: string;
  text: string;
}

/** A format-realistic installation token: ghs_ and 36 characters. */
export function realisticToken(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return `ghs_${[...randomBytes(36)].map((b) => alphabet[b % alphabet.length]).join('')}`;
}

export async function startStand(options: StandOptions): Promise<Stand> {
  const dir = await mkdtemp(join(tmpdir(), 'perimeter-hard-'));
  const repoDir = join(dir, 'repo.git');
  const branch = options.branch ?? 'main';
  await seedRepo(repoDir, options.files, { branch });
  const otherRepoDirs: Record<string, string> = {};
  for (const [name, files] of Object.entries(options.otherRepos ?? {})) {
    otherRepoDirs[name] = join(dir, `${name.replace('/', '_')}.git`);
    await seedRepo(otherRepoDirs[name], files);
  }
  const token = realisticToken();
  const fake = await startFakeGithub({
    repos: { [`${OWNER}/${REPO}`]: repoDir, ...otherRepoDirs },
    token,
  });
  const proxy = options.proxy ? await startSlowProxy(fake.url) : null;
  const upstream = createOctokitUpstream({
    retryBaseMs: 10,
    ...options.upstream,
    token,
    owner: OWNER,
    repo: REPO,
    baseUrl: proxy?.url ?? fake.url,
  });
  const perimeters = parseConfig(options.config).perimeters.map((spec) => compilePerimeter(spec));
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
  });
  const clients: Client[] = [];
  return {
    fake,
    proxy,
    dir,
    repoDir,
    otherRepoDirs,
    token,
    upstream,
    gateway,
    secrets,
    ledgerPath,
    ledgerKey,
    logs,
    async connect(perimeter) {
      const client = new Client({ name: 'hardening', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(gateway.endpoints[perimeter]!), {
          requestInit: { headers: { Authorization: `Bearer ${secrets[perimeter]}` } },
        }),
      );
      clients.push(client);
      return client;
    },
    async post(perimeter, body, headers = {}) {
      const response = await fetch(`${gateway.url}/mcp/${perimeter}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${secrets[perimeter]}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        body,
      });
      return {
        status: response.status,
        contentType: response.headers.get('content-type') ?? '',
        text: await response.text(),
      };
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

/** REST requests that could change something upstream (anything but GET and HEAD). */
export function writeRequests(stats: FakeStats): Record<string, number> {
  return Object.fromEntries(
    Object.entries(stats.byRoute).filter(([route]) => !/^(GIT )?(GET|HEAD) /.test(route)),
  );
}

export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

export function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

/** A JSON-RPC tools/call body. */
export function toolCall(name: string, args: unknown, id: unknown = 1): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
}
