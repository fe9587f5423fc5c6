import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGateway } from '../../src/gateway/index.js';
import { createOctokitUpstream } from '../../src/github/octokit/octokit-upstream.js';
import { compilePerimeter, parseConfig } from '../../src/policy/index.js';
import { createSecretFilter } from '../../src/safety/index.js';
import { git, gitText, writeRequests } from '@perimeter/fake-github';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { call, ok, OWNER, REPO, startHarness, textOf, type Harness } from '@perimeter/test-rigs';

const CONFIG = `
version: 1
perimeters:
  implementer:
    read: ["src/**", "test/**", "docs/**"]
    write: ["src/**", "fixtures/**", ".github/**"]
    allow-secrets-in: ["fixtures/**"]
  tester:
    read: ["src/**", "test/**"]
    write: ["test/**"]
  small:
    read: ["src/**"]
    write: ["src/**"]
    limits: { files-per-push: 3, bytes-per-file: 100, bytes-per-push: 200 }
`;

const FILES = {
  'src/index.ts': 'export const answer = 42;\n',
  'src/old.ts': 'old\n',
  'test/index.test.ts': 'test\n',
  'docs/guide.md': '# Guide\n',
};

/** A GitHub token shape the secret filter knows (not a real token). */
const LEAKED = `ghp_${'A1b2C3d4E5'.repeat(3)}xY9z8W`;

describe('push_files', () => {
  let h: Harness;
  let implementer: Client;
  let tester: Client;
  let small: Client;

  const show = (path: string): Promise<string> => gitText(h.repoDir, ['show', `main:${path}`]);
  const writes = (): string[] => Object.keys(writeRequests(h.fake.stats()));

  beforeAll(async () => {
    h = await startHarness({ files: FILES, config: CONFIG, filter: createSecretFilter() });
    implementer = await h.connect('implementer');
    tester = await h.connect('tester');
    small = await h.connect('small');
  });
  afterAll(async () => h.close());
  beforeEach(() => {
    h.fake.clearFaults();
    h.fake.resetStats();
  });

  describe('when every path is writable', () => {
    it('writes and deletes in one fast-forward commit without a custom author', async () => {
      const before = await h.head();
      const result = await ok<{ commit: string; head: string }>(implementer, 'push_files', {
        message: 'add and remove',
        files: [
          { path: 'src/new.ts', content: 'export const fresh = true;\n' },
          { path: 'src/index.ts', content: 'export const answer = 43;\n' },
        ],
        deletions: ['src/old.ts'],
      });
      expect(result.head).toBe(result.commit);
      expect(await h.head()).toBe(result.commit);
      expect((await gitText(h.repoDir, ['rev-parse', `${result.commit}^`])).trim()).toBe(before);
      expect(await show('src/new.ts')).toBe('export const fresh = true;\n');
      expect(await show('src/index.ts')).toBe('export const answer = 43;\n');
      await expect(show('src/old.ts')).rejects.toThrow();
      const author = (await gitText(h.repoDir, ['log', '-1', '--format=%an', result.commit])).trim();
      expect(author).not.toBe('');
    });

    it('writes base64 content byte for byte', async () => {
      const bytes = randomBytes(64);
      bytes[0] = 0;
      await ok(implementer, 'push_files', {
        message: 'binary and script',
        files: [{ path: 'src/blob.bin', content: bytes.toString('base64'), encoding: 'base64' }],
      });
      expect(await git(h.repoDir, ['show', 'main:src/blob.bin'])).toEqual(bytes);
    });

    it('reads back the text it just pushed without a blob request', async () => {
      const text = 'export const greeting = "grüß dich, 世界 🌍";\n';
      await ok(implementer, 'push_files', {
        message: 'greeting',
        files: [{ path: 'src/greet.ts', content: text }],
      });
      h.fake.resetStats();
      const file = await ok<{ content: string }>(implementer, 'get_file', { path: 'src/greet.ts' });
      expect(file.content).toBe(text);
      expect(h.fake.stats().byRoute['GET /repos/{owner}/{repo}/git/blobs/{sha}'] ?? 0).toBe(0);
      // the branch head only, over git
      expect(h.fake.stats().total).toBe(0);
      expect(h.fake.stats().git).toBeGreaterThan(0);
    });

    it('lists no tree after its own push: the new index is built locally and checked against the tree SHA', async () => {
      await ok(implementer, 'push_files', {
        message: 'to delete',
        files: [{ path: 'src/after/zero.ts', content: '0\n' }],
      });
      await ok(implementer, 'get_tree', { recursive: true });
      const bytes = randomBytes(32);
      bytes[1] = 0;
      await ok(implementer, 'push_files', {
        message: 'text, binary and a deletion',
        files: [
          { path: 'src/after/one.ts', content: 'export const one = 1;\n' },
          { path: 'src/after/two.bin', content: bytes.toString('base64'), encoding: 'base64' },
        ],
        deletions: ['src/after/zero.ts'],
      });
      h.fake.resetStats();
      const listed = await ok<{ entries: Array<{ path: string }> }>(implementer, 'get_tree', {
        recursive: true,
      });
      // only the branch head, over git (by REST it moved, so GitHub would answer 200 and charge it)
      expect(h.fake.stats().byRoute).toEqual({ 'GIT POST /{owner}/{repo}.git/git-upload-pack': 1 });
      const expected = (await gitText(h.repoDir, ['ls-tree', '-r', '-t', '--name-only', 'main']))
        .trim()
        .split('\n')
        .filter((path) => path.startsWith('src/'));
      expect(
        listed.entries
          .map((e) => e.path)
          .filter((p) => p.startsWith('src/'))
          .sort(),
      ).toEqual(expected.sort());
    });

    it('spends the same number of upstream requests for 1 file and for 50', async () => {
      const push = async (count: number, round: string): Promise<number> => {
        h.fake.resetStats();
        const files = Array.from({ length: count }, (_, i) => ({
          path: `src/gen/f${i}.ts`,
          content: `// ${round} ${i}\n`,
        }));
        await ok(implementer, 'push_files', { message: `${count} files`, files });
        return h.fake.stats().total;
      };
      await push(1, 'warm');
      const one = await push(1, 'one');
      const fifty = await push(50, 'fifty');
      expect(fifty).toBe(one);
      expect(one).toBeLessThanOrEqual(6);
    });
  });

  describe('when anything is wrong', () => {
    const refusedWhole = async (
      client: Client,
      args: Record<string, unknown>,
      ...named: RegExp[]
    ): Promise<void> => {
      const before = await h.head();
      h.fake.resetStats();
      const result = await call(client, 'push_files', args);
      expect(result.isError).toBe(true);
      const text = textOf(result);
      expect(text).toMatch(/nothing was written/);
      for (const pattern of named) expect(text).toMatch(pattern);
      expect(await h.head()).toBe(before);
      expect(writes()).toEqual([]);
    };

    it('refuses the whole call when one path is outside the write globs or protected', async () => {
      await refusedWhole(
        implementer,
        {
          message: 'sneaky',
          files: [
            { path: 'src/fine.ts', content: 'ok\n' },
            { path: 'docs/guide.md', content: 'rewritten\n' },
            { path: '.github/workflows/ci.yml', content: 'on: push\n' },
          ],
        },
        /docs\/guide\.md: not writable/,
        /\.github\/workflows\/ci\.yml: not writable \(protected/,
      );
      await refusedWhole(
        tester,
        { message: 'x', files: [{ path: 'src/index.ts', content: 'x' }] },
        /src\/index\.ts/,
      );
    });

    it('refuses invalid paths, duplicates and bad base64', async () => {
      await refusedWhole(
        implementer,
        {
          message: 'bad',
          files: [
            { path: 'src/../docs/guide.md', content: 'x' },
            { path: 'src/a.ts', content: 'a' },
            { path: 'src/a.ts', content: 'b' },
            { path: 'src/b.bin', content: '***', encoding: 'base64' },
          ],
          deletions: ['src/a.ts'],
        },
        /invalid path/,
        /src\/a\.ts: named more than once/,
        /src\/b\.bin: content is not valid base64/,
      );
    });

    it('enforces files per push, bytes per file and bytes per push', async () => {
      const file = (i: number, size = 10): { path: string; content: string } => ({
        path: `src/s${i}.ts`,
        content: 'x'.repeat(size),
      });
      await refusedWhole(
        small,
        { message: 'many', files: [file(1), file(2), file(3), file(4)] },
        /4 paths, the limit is 3/,
      );
      await refusedWhole(
        small,
        { message: 'big', files: [file(1, 101)] },
        /src\/s1\.ts: 101 bytes, the limit is 100 per file/,
      );
      await refusedWhole(
        small,
        { message: 'total', files: [file(1, 90), file(2, 90), file(3, 90)] },
        /270 bytes in all, the limit is 200/,
      );
      await ok(small, 'push_files', { message: 'within limits', files: [file(1, 100), file(2, 100)] });
    });

    it('checks deletions: they must name existing files', async () => {
      await refusedWhole(
        implementer,
        { message: 'del', files: [], deletions: ['src/missing.ts'] },
        /src\/missing\.ts: cannot delete, no such file/,
      );
      await refusedWhole(
        implementer,
        { message: 'del', files: [], deletions: ['src/gen'] },
        /src\/gen: cannot delete a directory/,
      );
      await refusedWhole(
        implementer,
        { message: 'del', files: [], deletions: ['docs/guide.md'] },
        /docs\/guide\.md: not writable/,
      );
    });

    it('refuses content carrying a credential, except where the perimeter allows it', async () => {
      await refusedWhole(
        implementer,
        {
          message: 'leak',
          files: [{ path: 'src/config.ts', content: `export const token = "${LEAKED}";\n` }],
        },
        /src\/config\.ts: looks like it contains a credential/,
      );
      await refusedWhole(
        implementer,
        { message: `token ${LEAKED}`, files: [{ path: 'fixtures/clean.txt', content: 'clean\n' }] },
        /commit message looks like it contains a credential/,
      );
      await ok(implementer, 'push_files', {
        message: 'fixture',
        files: [{ path: 'fixtures/token.txt', content: `${LEAKED}\n` }],
      });
    });
  });

  describe('when the client hangs up before the answer', () => {
    it('still lands the push and puts it on the record', async () => {
      h.fake.injectFault({ kind: 'latency', ms: 400, count: 1, route: /git\/refs/ });
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: {
          name: 'push_files',
          arguments: { message: 'abandoned', files: [{ path: 'src/orphan.ts', content: 'o\n' }] },
        },
      });
      await new Promise<void>((resolve) => {
        const req = request({
          host: '127.0.0.1',
          port: h.gateway.port,
          path: '/mcp/implementer',
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            authorization: `Bearer ${h.secrets.implementer}`,
          },
        });
        req.on('error', () => resolve());
        req.end(body, () => setImmediate(() => (req.destroy(), resolve())));
      });
      type Record = { tool?: string; commit?: string; paths?: string[] };
      let pushed: Record | undefined;
      while (!pushed) {
        const records = (await readFile(h.ledgerPath, 'utf8')).trimEnd().split('\n');
        pushed = records
          .map((line) => JSON.parse(line) as Record)
          .find((r) => r.tool === 'push_files' && r.paths?.includes('src/orphan.ts'));
        if (!pushed) await sleep(50);
      }
      expect(await h.head()).toBe(pushed.commit);
      expect(await show('src/orphan.ts')).toBe('o\n');
    });
  });

  describe('when the branch moves meanwhile', () => {
    it('rebuilds on the new head when the other change touched other paths', async () => {
      h.fake.injectFault({
        kind: 'move-ref',
        repo: `${OWNER}/${REPO}`,
        ref: 'main',
        files: { 'test/other.test.ts': 'theirs\n' },
      });
      const result = await ok<{ commit: string }>(implementer, 'push_files', {
        message: 'mine',
        files: [{ path: 'src/mine.ts', content: 'mine\n' }],
      });
      expect(await h.head()).toBe(result.commit);
      expect(await show('test/other.test.ts')).toBe('theirs\n');
      expect(await show('src/mine.ts')).toBe('mine\n');
    });

    it('fails with a clear conflict naming the paths and the new head when the same path changed', async () => {
      h.fake.injectFault({
        kind: 'move-ref',
        repo: `${OWNER}/${REPO}`,
        ref: 'main',
        files: { 'src/index.ts': 'theirs\n' },
      });
      const result = await call(implementer, 'push_files', {
        message: 'mine',
        files: [{ path: 'src/index.ts', content: 'mine\n' }],
      });
      const head = await h.head();
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/conflict/);
      expect(textOf(result)).toContain('src/index.ts');
      expect(textOf(result)).toContain(head);
      expect(await show('src/index.ts')).toBe('theirs\n');
    });

    it('loses nothing when two gateways push to one branch at once', async () => {
      const config = parseConfig(CONFIG);
      const secret = randomBytes(24).toString('hex');
      const other = await startGateway({
        upstream: createOctokitUpstream({ token: h.token, owner: OWNER, repo: REPO, baseUrl: h.fake.url }),
        branch: 'main',
        perimeters: [compilePerimeter(config.perimeters.find((p) => p.name === 'tester')!)],
        secrets: { tester: secret },
        ledger: { path: join(h.dir, 'other-ledger.jsonl'), key: 'k'.repeat(32) },
        log: () => undefined,
      });
      const client = new McpClient({ name: 'second', version: '1' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(other.endpoints.tester!), {
          requestInit: { headers: { Authorization: `Bearer ${secret}` } },
        }),
      );
      try {
        for (let round = 0; round < 3; round++) {
          const [a, b] = await Promise.all([
            call(implementer, 'push_files', {
              message: `a${round}`,
              files: [{ path: `src/race${round}.ts`, content: 'a\n' }],
            }),
            call(client, 'push_files', {
              message: `b${round}`,
              files: [{ path: `test/race${round}.test.ts`, content: 'b\n' }],
            }),
          ]);
          for (const [result, path] of [
            [a, `src/race${round}.ts`],
            [b, `test/race${round}.test.ts`],
          ] as const) {
            if (result.isError) expect(textOf(result)).toMatch(/conflict|kept moving/);
            else expect(await show(path)).not.toBe('');
          }
          expect(Boolean(a.isError) || Boolean(b.isError)).toBe(false);
        }
      } finally {
        await client.close();
        await other.close();
      }
    });
  });
});
