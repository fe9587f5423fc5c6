/**
 * A plain MCP server as the SDK's own stateless example builds one (a new McpServer and Streamable HTTP
 * transport per request, JSON answers), with one tool, get_file, doing the upstream work the gateway's
 * warm get_file does: the branch head over git's smart HTTP (one protocol v2 ls-refs POST, as
 * src/github/git-refs.ts reads it; a conditional REST GET of the ref, 304 when it did not move, if git fails), then
 * the file's text from its cache (one contents GET the first time, or when the head moved). No policy, no
 * bearer secret, no ledger, no content filter: the gateway's overhead is what it adds to this.
 *
 * Run as a child process (`node --import tsx bench/support/plain-mcp-server.ts`), its settings on stdin;
 * it prints its port on stdout once it listens.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getOctokit } from '@actions/github';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { cloneUrl } from '../../src/github/git-blobs.js';
import { GitRefReader } from '../../src/github/git-refs.js';

interface Settings {
  token: string;
  apiUrl: string;
  owner: string;
  repo: string;
  branch: string;
}

const chunks: Buffer[] = [];
for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
const settings = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Settings;
const octokit = getOctokit(settings.token, { baseUrl: settings.apiUrl });
const repo = { owner: settings.owner, repo: settings.repo };

let head: { etag: string; sha: string } | null = null;
const texts = new Map<string, string>();

const refs = new GitRefReader({
  url: cloneUrl(settings.apiUrl, settings.owner, settings.repo),
  token: settings.token,
});

async function branchHead(): Promise<string> {
  const name = `refs/heads/${settings.branch}`;
  if (!refs.failed) {
    const sha = (await refs.list([name]).catch(() => null))?.get(name);
    if (sha) return sha;
  }
  try {
    const answer = await octokit.request('GET /repos/{owner}/{repo}/git/ref/{ref}', {
      ...repo,
      ref: `heads/${settings.branch}`,
      headers: head ? { 'if-none-match': head.etag } : {},
    });
    head = { etag: answer.headers.etag!, sha: answer.data.object.sha };
  } catch (error) {
    if ((error as { status?: number }).status !== 304 || !head) throw error;
  }
  return head.sha;
}

async function fileText(path: string): Promise<string> {
  const sha = await branchHead();
  const key = `${sha}:${path}`;
  const known = texts.get(key);
  if (known !== undefined) return known;
  const answer = await octokit.request('GET /repos/{owner}/{repo}/contents/{path}', {
    ...repo,
    path,
    ref: sha,
  });
  const data = answer.data as { content?: string };
  const text = Buffer.from(data.content ?? '', 'base64').toString('utf8');
  texts.set(key, text);
  return text;
}

function getServer(): McpServer {
  const server = new McpServer({ name: 'plain', version: '1.0.0' });
  server.registerTool(
    'get_file',
    { description: 'A file at the branch head', inputSchema: { path: z.string() } },
    async ({ path }) => ({ content: [{ type: 'text', text: await fileText(path) }] }),
  );
  return server;
}

const http = createServer((req, res) => {
  const chunksIn: Buffer[] = [];
  req.on('data', (c: Buffer) => chunksIn.push(c));
  req.on('end', () => {
    const server = getServer();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    const body =
      chunksIn.length > 0 ? (JSON.parse(Buffer.concat(chunksIn).toString('utf8')) as unknown) : undefined;
    server
      .connect(transport)
      .then(() => transport.handleRequest(req, res, body))
      .catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
      });
  });
});
http.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${(http.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => http.close(() => process.exit(0)));
