import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../src/gateway/index.js';
import { selectTools } from '../../src/gateway/tools/select.js';
import { ALL_TOOLS } from '../../src/gateway/tools/all-tools.js';
import { UpstreamError } from '../../src/github/upstream.js';
import { compilePerimeter, parseConfig, type Perimeter } from '../../src/policy/index.js';
import { NO_FILTER, type AnswerFilter } from '../../src/safety/answer-filter.js';
import { answerOf, call, textOf } from '@perimeter/test-rigs';
import { createMemoryUpstream, type MemoryUpstream } from './support/memory-upstream.js';

const CONFIG = `
version: 1
perimeters:
  dev:
    read: ["**"]
    write: ["src/**", "run.sh"]
`;

const perimeter = (): Perimeter => compilePerimeter(parseConfig(CONFIG).perimeters[0]!);

describe('the gateway over a small in-memory upstream', () => {
  let dir: string;
  let upstream: MemoryUpstream;
  let gateway: RunningGateway | null;
  let client: Client | null;
  const secret = randomBytes(24).toString('hex');

  const start = async (filter: AnswerFilter): Promise<Client> => {
    gateway = await startGateway({
      upstream,
      branch: 'main',
      perimeters: [perimeter()],
      secrets: { dev: secret },
      ledger: { path: join(dir, 'ledger.jsonl'), key: 'key' },
      filter,
      log: () => undefined,
    });
    client = new Client({ name: 'unit', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(gateway.endpoints.dev!), {
        requestInit: { headers: { Authorization: `Bearer ${secret}` } },
      }),
    );
    return client;
  };
  const head = (): Promise<string> => upstream.getBranchHead('main');

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'perimeter-unit-'));
    upstream = await createMemoryUpstream({ 'src/a.ts': 'a SECRET here\n', 'README.md': 'readme\n' });
    gateway = null;
    client = null;
  });
  afterEach(async () => {
    await client?.close();
    await gateway?.close();
    await rm(dir, { recursive: true, force: true });
  });

  describe('when the answer filter hides values', () => {
    it('hides them in text and structured content and reports the count', async () => {
      const hiding: AnswerFilter = {
        redact: (text) => {
          const hidden = text.split('SECRET').length - 1;
          return Promise.resolve({
            text: text.replaceAll('SECRET', '[hidden: test]'),
            hidden,
            kinds: (hidden ? { test: hidden } : {}) as Record<string, number>,
          });
        },
        findCredentials: () => Promise.resolve([]),
      };
      const result = await call(await start(hiding), 'get_file', { path: 'src/a.ts' });
      expect(JSON.stringify(result)).not.toContain('SECRET');
      expect(answerOf(result)).toMatchObject({
        content: 'a [hidden: test] here\n',
        redacted: { count: 1, kinds: { test: 1 } },
      });
    });
  });

  describe('when the answer filter fails', () => {
    const broken: AnswerFilter = {
      redact: () => Promise.reject(new Error('detector crashed')),
      findCredentials: () => Promise.reject(new Error('detector crashed')),
    };

    it('withholds every answer instead of sending it unchecked', async () => {
      const c = await start(broken);
      for (const [tool, args] of [
        ['get_file', { path: 'src/a.ts' }],
        ['get_tree', {}],
        ['get_file', { path: 'nope' }],
      ] as const) {
        const result = await call(c, tool, args);
        expect(result.isError).toBe(true);
        expect(textOf(result)).toMatch(/withheld/);
        expect(JSON.stringify(result)).not.toContain('SECRET');
      }
    });

    it('writes nothing when content cannot be checked for credentials', async () => {
      const before = await head();
      const result = await call(await start(broken), 'push_files', {
        message: 'm',
        files: [{ path: 'src/b.ts', content: 'b' }],
      });
      expect(result.isError).toBe(true);
      expect(await head()).toBe(before);
      expect(upstream.log).not.toContain('createTree');
      const ledger = await readFile(join(dir, 'ledger.jsonl'), 'utf8');
      expect(ledger).toMatch(/"decision":"failed"/);
    });
  });

  describe('push_files', () => {
    it('keeps the executable bit of a file it replaces', async () => {
      const base = await upstream.getCommit(await head());
      const tree = await upstream.createTree(base.tree, [
        { path: 'run.sh', mode: '100755', content: '#!/bin/sh\n' },
      ]);
      await upstream.updateBranch('main', await upstream.createCommit('exec', tree, [base.sha]));
      await call(await start(NO_FILTER), 'push_files', {
        message: 'm',
        files: [{ path: 'run.sh', content: '#!/bin/sh\necho\n' }],
      });
      const entries = (await upstream.getTreeRecursive((await upstream.getCommit(await head())).tree))
        .entries;
      expect(entries.find((e) => e.path === 'run.sh')).toMatchObject({ mode: '100755' });
    });

    it('gives up with a clear error, nothing written by it, when the branch keeps moving', async () => {
      let moves = 0;
      const move = async (): Promise<void> => {
        moves++;
        await upstream.commitDirect('main', { [`other/${moves}.txt`]: 'x' });
        upstream.beforeNextUpdate(move);
      };
      upstream.beforeNextUpdate(move);
      const result = await call(await start(NO_FILTER), 'push_files', {
        message: 'm',
        files: [{ path: 'src/b.ts', content: 'b' }],
      });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/kept moving/);
      expect(moves).toBe(3);
      const entries = (await upstream.getTreeRecursive((await upstream.getCommit(await head())).tree))
        .entries;
      expect(entries.map((e) => e.path)).not.toContain('src/b.ts');
    });

    it('answers "no change" without a commit when the content is already there', async () => {
      const before = await head();
      const result = await call(await start(NO_FILTER), 'push_files', {
        message: 'm',
        files: [{ path: 'src/a.ts', content: 'a SECRET here\n' }],
      });
      expect(answerOf(result)).toMatchObject({ commit: null, head: before });
      expect(await head()).toBe(before);
    });

    it('reports a push whose branch update landed although its answer was lost, and records the commit', async () => {
      const update = upstream.updateBranch.bind(upstream);
      upstream.updateBranch = async (branch, sha) => {
        await update(branch, sha);
        throw new UpstreamError('unavailable', 'the connection was reset', 502);
      };
      const result = await call(await start(NO_FILTER), 'push_files', {
        message: 'm',
        files: [{ path: 'src/b.ts', content: 'b' }],
      });
      expect(result.isError).toBeFalsy();
      expect(answerOf(result)).toMatchObject({ commit: await head(), head: await head() });
      await gateway?.close();
      const ledger = await readFile(join(dir, 'ledger.jsonl'), 'utf8');
      expect(ledger).toContain(`"commit":"${await head()}"`);
    });
  });
});

describe('selectTools', () => {
  it('keeps the table order and only granted tools', () => {
    const p = compilePerimeter({ ...parseConfig(CONFIG).perimeters[0]!, tools: ['push_files', 'get_file'] });
    expect(selectTools(p).map((t) => t.name)).toEqual(['get_file', 'push_files']);
  });

  it('fails closed when a granted tool is not in the table', () => {
    expect(() =>
      selectTools(
        perimeter(),
        ALL_TOOLS.filter((t) => t.name !== 'get_commit'),
      ),
    ).toThrow(/unknown tools: get_commit/);
  });
});
