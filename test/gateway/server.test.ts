import { readFile } from 'node:fs/promises';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startHarness, textOf, type Harness } from '@perimeter/test-rigs';

const CONFIG = `
version: 1
perimeters:
  implementer:
    read: ["src/**", "docs/**", "package.json"]
    write: ["src/**"]
  reviewer:
    tools: [get_tree, get_file]
    read: ["docs/**"]
    write: []
`;

interface RawAnswer {
  status: number;
  body: string;
}

/** A hand-made HTTP request, for what an MCP client would never send. */
function raw(
  h: Harness,
  options: { path: string; method?: string; headers?: Record<string, string>; body?: string | Buffer },
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: h.gateway.port,
        path: options.path,
        method: options.method ?? 'POST',
        headers: options.headers ?? {},
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

describe('the gateway server', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      files: {
        'src/index.ts': 'export {};\n',
        'docs/guide.md': '# Guide\n',
        'secret/plan.md': 'hidden\n',
        'package.json': '{}\n',
      },
      config: CONFIG,
    });
  });
  afterAll(async () => h.close());

  describe('when a client connects with the right secret', () => {
    it('lists exactly the tools each perimeter grants', async () => {
      const implementer = await h.connect('implementer');
      const reviewer = await h.connect('reviewer');
      expect((await implementer.listTools()).tools.map((t) => t.name)).toEqual([
        'get_tree',
        'get_file',
        'get_files',
        'list_commits',
        'get_commit',
        'search',
        'blame',
        'diff',
        'push_files',
        'request_scope',
      ]);
      expect((await reviewer.listTools()).tools.map((t) => t.name)).toEqual(['get_tree', 'get_file']);
    });

    it('refuses unknown and ungranted tools as unknown', async () => {
      const reviewer = await h.connect('reviewer');
      const ungranted = await call(reviewer, 'push_files', {
        message: 'x',
        files: [{ path: 'docs/a.md', content: 'a' }],
      });
      const unknown = await call(reviewer, 'delete_repository', {});
      expect(ungranted.isError).toBe(true);
      expect(textOf(ungranted)).toMatch(/push_files not found/);
      expect(unknown.isError).toBe(true);
      expect(textOf(unknown)).toMatch(/delete_repository not found/);
    });

    it('answers invalid arguments with an MCP error and keeps serving', async () => {
      const client = await h.connect('implementer');
      const bad = await call(client, 'get_file', { path: 42 });
      expect(bad.isError).toBe(true);
      expect(textOf(bad)).toMatch(/path/);
      const invalidPath = await call(client, 'get_file', { path: '../etc/passwd' });
      expect(invalidPath.isError).toBe(true);
      expect(textOf(invalidPath)).toMatch(/invalid path/);
      expect((await call(client, 'get_file', { path: 'docs/guide.md' })).isError).toBeFalsy();
    });

    it('describes tools with stable schemas, annotations and no repository coordinates', async () => {
      const client = await h.connect('implementer');
      const { tools } = await client.listTools();
      const text = JSON.stringify(tools);
      for (const word of ['owner', 'repo', 'ref', 'branch']) {
        for (const tool of tools) expect(Object.keys(tool.inputSchema.properties ?? {})).not.toContain(word);
      }
      expect(text).not.toMatch(/"(owner|repo|ref)"/);
      const byName = Object.fromEntries(tools.map((t) => [t.name, t.annotations]));
      expect(byName.push_files).toMatchObject({ readOnlyHint: false, destructiveHint: true });
      expect(byName.get_file).toMatchObject({ readOnlyHint: true, destructiveHint: false });
      // answers are text plus `_meta` data, never structuredContent, so no tool declares an outputSchema
      expect(tools.filter((t) => t.outputSchema !== undefined).map((t) => t.name)).toEqual([]);
      expect(
        tools.map(({ name, inputSchema, annotations }) => ({ name, inputSchema, annotations })),
      ).toMatchSnapshot();
    });
  });

  describe('when the secret is wrong', () => {
    it('answers 401 and nothing else without a secret, with a wrong one, and with another perimeter’s', async () => {
      const wrongs: Array<Record<string, string>> = [
        {},
        { authorization: 'Bearer not-the-secret' },
        { authorization: `Bearer ${h.secrets.implementer}` },
        { authorization: `Basic ${Buffer.from(`x:${h.secrets.reviewer}`).toString('base64')}` },
      ];
      for (const headers of wrongs) {
        const answer = await raw(h, {
          path: '/mcp/reviewer',
          headers: { ...MCP_HEADERS, ...headers },
          body: INIT,
        });
        expect(answer).toEqual({ status: 401, body: '' });
      }
      await expect(h.connect('reviewer', h.secrets.implementer)).rejects.toThrow();
    });

    it('lets the right secret through the same door', async () => {
      const answer = await raw(h, {
        path: '/mcp/reviewer',
        headers: { ...MCP_HEADERS, authorization: `Bearer ${h.secrets.reviewer}` },
        body: INIT,
      });
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body).result.serverInfo.name).toBe('perimeter');
    });
  });

  describe('when the request is not for this gateway', () => {
    const auth = (): Record<string, string> => ({
      ...MCP_HEADERS,
      authorization: `Bearer ${h.secrets.implementer}`,
    });

    it('refuses a non-loopback Host (DNS rebinding) and a foreign Origin with 403', async () => {
      for (const host of ['evil.example', `evil.example:${h.gateway.port}`, '127.0.0.1.nip.io', '10.0.0.1']) {
        const answer = await raw(h, { path: '/mcp/implementer', headers: { ...auth(), host }, body: INIT });
        expect(answer.status).toBe(403);
      }
      const origin = await raw(h, {
        path: '/mcp/implementer',
        headers: { ...auth(), origin: 'http://evil.example' },
        body: INIT,
      });
      expect(origin.status).toBe(403);
      for (const host of [
        `localhost:${h.gateway.port}`,
        `[::1]:${h.gateway.port}`,
        `127.0.0.1:${h.gateway.port}`,
      ]) {
        expect(
          (await raw(h, { path: '/mcp/implementer', headers: { ...auth(), host }, body: INIT })).status,
        ).toBe(200);
      }
    });

    it('answers 404 for every other route and serves /healthz openly', async () => {
      for (const path of ['/', '/mcp', '/mcp/', '/mcp/nobody', '/mcp/implementer/x', '/MCP/implementer']) {
        expect((await raw(h, { path, headers: auth(), body: INIT })).status).toBe(404);
      }
      const health = await raw(h, { path: '/healthz', method: 'GET' });
      expect(health.status).toBe(200);
      expect((await raw(h, { path: '/healthz', method: 'POST' })).status).toBe(405);
    });

    it('answers 405 to anything but POST on an endpoint: it is stateless, with no stream to open', async () => {
      for (const method of ['GET', 'DELETE', 'PUT']) {
        expect((await raw(h, { path: '/mcp/implementer', method, headers: auth() })).status).toBe(405);
      }
      expect((await raw(h, { path: '/mcp/implementer', method: 'GET' })).status).toBe(401);
    });

    it('refuses an oversized body with 413, declared or streamed', async () => {
      const big = Buffer.alloc(10 * 1_048_576 * 2, 0x20);
      expect((await raw(h, { path: '/mcp/implementer', headers: auth(), body: big })).status).toBe(413);
      const streamed = await new Promise<number>((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port: h.gateway.port,
            path: '/mcp/implementer',
            method: 'POST',
            headers: { ...auth(), 'transfer-encoding': 'chunked' },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        for (let i = 0; i < 20; i++) req.write(Buffer.alloc(1_048_576, 0x20));
        req.end();
      });
      expect(streamed).toBe(413);
    });

    it('answers malformed JSON with a JSON-RPC parse error and keeps serving', async () => {
      const answer = await raw(h, {
        path: '/mcp/implementer',
        headers: auth(),
        body: '{"jsonrpc": "2.0", "id": 1, "method":',
      });
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 }, id: null });
      expect((await raw(h, { path: '/mcp/implementer', headers: auth(), body: INIT })).status).toBe(200);
    });

    it('refuses a batch that repeats a request id: every call it would make must get its own ledger record', async () => {
      const callsBefore = await ledgerCalls(h);
      const head = await h.head();
      const batch = [
        { name: 'get_file', arguments: { path: 'docs/guide.md' } },
        {
          name: 'push_files',
          arguments: { message: 'm', files: [{ path: 'src/batch.ts', content: 'x\n' }] },
        },
      ].map((params) => ({ jsonrpc: '2.0', id: 7, method: 'tools/call', params }));
      const answer = await raw(h, {
        path: '/mcp/implementer',
        headers: { ...auth(), ...MCP_HEADERS, 'mcp-protocol-version': '2025-03-26' },
        body: JSON.stringify(batch),
      });
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 }, id: null });
      expect(await h.head()).toBe(head);
      expect(await ledgerCalls(h)).toBe(callsBefore);
    });
  });
});

async function ledgerCalls(h: Harness): Promise<number> {
  return (await readFile(h.ledgerPath, 'utf8')).split('\n').filter((l) => l.includes('"event":"call"'))
    .length;
}
