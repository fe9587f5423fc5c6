/**
 * A hostile client against the running gateway, table-driven and property-based: malformed JSON-RPC,
 * wrong content types, huge and deeply nested bodies, adversarial tool arguments. Every answer is a clear
 * error (never a 5xx, never a stack trace), the server keeps serving, hidden content never shows, and no
 * write reaches GitHub unless a valid, writable push asked for it.
 */
import fc from 'fast-check';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { commitToBare, gitText, writeRequests } from '@perimeter/fake-github';
import { TOOL_CATALOGUE, TOOL_NAMES } from '../../src/policy/index.js';
import { callTool, startStand, textOf, toolCall, type RawAnswer, type Stand } from './support/stand.js';

const CONFIG = `
version: 1
perimeters:
  dev:
    read: ["src/**", "README.md"]
    write: ["src/**"]
`;

const HIDDEN = 'HIDDEN-7f3a9c';
const FILES = {
  'src/a.ts': 'export const a = 1;\n',
  'src/deep/b.ts': 'export const b = 2;\n',
  'README.md': '# readme\n',
  'docs/secret.md': `${HIDDEN} docs\n`,
  'secrets/key.txt': `${HIDDEN} key\n`,
  '.github/workflows/ci.yml': `# ${HIDDEN} ci\n`,
  'src/.env': `TOKEN=${HIDDEN}\n`,
};

/** every tool that reads the repository, from the catalogue: a new read tool is hammered here too */
const READ_TOOLS = TOOL_NAMES.filter(
  (name) => !TOOL_CATALOGUE[name].writes && TOOL_CATALOGUE[name].serves !== 'nothing',
);

/** Paths that must be refused (invalid) or answered as absent (hidden), never read or written. */
const ADVERSARIAL_PATHS = [
  '',
  '.',
  '..',
  '../secrets/key.txt',
  'src/../secrets/key.txt',
  'src/./a.ts',
  'src//a.ts',
  '/src/a.ts',
  '/etc/passwd',
  'src\\a.ts',
  '..\\secrets\\key.txt',
  'src/a.ts\u0000.md',
  'src/\u0007bell.ts',
  '%2e%2e/secrets/key.txt',
  '.git/config',
  'src/.GIT/config',
  'src/.Git/HEAD',
  'docs/secret.md',
  'DOCS/secret.md',
  'secrets/key.txt',
  '.github/workflows/ci.yml',
  '.GitHub/workflows/ci.yml',
  '**',
  'docs/*',
  '{docs,src}/**',
  'src/\u202egnp.ts',
  `src/${'a'.repeat(5_000)}.ts`,
  `${'d/'.repeat(400)}x.ts`,
  'src/a.ts/',
];

/** Valid names that only look like something else: percent signs and glob characters are literal. */
const LITERAL_NAMES = [
  'src/%2e%2e/secrets/key.txt',
  'src/%2F..%2Fsecrets',
  'src/**',
  'src/*.ts',
  'src/{a,b}.ts',
];

function expectNoStackTrace(text: string): void {
  expect(text).not.toMatch(/\n\s+at [\w.<]+ \(/);
  expect(text).not.toMatch(/node_modules|\.ts:\d+:\d+|file:\/\//);
}

/** A clear HTTP-level answer: no 5xx, JSON when it says so, no stack trace, no hidden content. */
function expectClearAnswer(answer: RawAnswer): void {
  expect(answer.status, answer.text).toBeLessThan(500);
  if (answer.contentType.includes('application/json') && answer.text !== '') {
    expect(() => JSON.parse(answer.text) as unknown).not.toThrow();
  }
  expectNoStackTrace(answer.text);
  expect(answer.text).not.toContain(HIDDEN);
}

/** The JSON-RPC error of an answer, or null when it carried a result. */
function rpcError(answer: RawAnswer): { code: number; message: string } | null {
  const body = JSON.parse(answer.text) as { error?: { code: number; message: string } };
  return body.error ?? null;
}

describe('the gateway against hostile input', () => {
  let stand: Stand;
  let dev: Client;
  let startHead = '';

  async function expectStillServing(): Promise<void> {
    const health = await fetch(`${stand.gateway.url}/healthz`);
    expect(health.status).toBe(200);
    const valid = await stand.post('dev', toolCall('get_file', { path: 'src/a.ts' }));
    expect(valid.status).toBe(200);
    expect(valid.text).toContain('export const a = 1;');
  }

  function expectNothingWritten(): void {
    expect(writeRequests(stand.fake.stats())).toEqual({});
  }

  beforeAll(async () => {
    stand = await startStand({
      files: FILES,
      config: CONFIG,
      otherRepos: { 'evil/other': { 'src/a.ts': `${HIDDEN} other repo\n` } },
    });
    await gitText(stand.repoDir, ['branch', 'side', 'main']);
    await commitToBare(stand.repoDir, 'side', { 'src/a.ts': `${HIDDEN} side branch\n` });
    startHead = await stand.head();
    dev = await stand.connect('dev');
  });
  afterAll(async () => {
    expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
    await stand.close();
  });
  beforeEach(() => stand.fake.resetStats());

  describe('when the HTTP request is malformed', () => {
    const cases: Array<[string, string | Uint8Array, Record<string, string>, number | null]> = [
      ['text/plain content type', toolCall('get_tree', {}), { 'content-type': 'text/plain' }, 415],
      ['form content type', 'a=1&b=2', { 'content-type': 'application/x-www-form-urlencoded' }, null],
      ['no Accept for JSON or SSE', toolCall('get_tree', {}), { accept: 'text/html' }, 406],
      ['empty body', '', {}, 400],
      ['not JSON', '{"jsonrpc": "2.0", ', {}, 400],
      ['invalid UTF-8', new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), {}, 400],
      ['a bare number', '42', {}, null],
      ['null', 'null', {}, null],
      ['a string', '"tools/list"', {}, null],
      ['an empty array', '[]', {}, null],
      ['an empty object', '{}', {}, null],
      ['JSON-RPC 1.0', '{"jsonrpc":"1.0","id":1,"method":"tools/list"}', {}, null],
      ['no method', '{"jsonrpc":"2.0","id":1}', {}, null],
      ['an object id', '{"jsonrpc":"2.0","id":{"x":1},"method":"tools/list"}', {}, null],
      ['params as a string', '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"get_file"}', {}, null],
      ['arguments as an array', toolCall('get_file', ['src/a.ts']), {}, null],
      ['arguments as a string', toolCall('get_file', 'src/a.ts'), {}, null],
      ['a tool name that is not a string', toolCall(42 as unknown as string, {}), {}, null],
      [
        'a __proto__ payload',
        `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_file","arguments":{"__proto__":{"polluted":true},"path":"src/a.ts"}}}`,
        {},
        null,
      ],
      [
        'a constructor payload',
        toolCall('get_tree', { constructor: { prototype: { polluted: true } } }),
        {},
        null,
      ],
      ['a NUL in the method', '{"jsonrpc":"2.0","id":1,"method":"tools/\\u0000list"}', {}, null],
    ];

    it.each(cases)('answers %s clearly and keeps serving', async (_name, body, headers, status) => {
      const answer = await stand.post('dev', body, headers);
      expectClearAnswer(answer);
      if (status !== null) expect(answer.status).toBe(status);
      await expectStillServing();
      expectNothingWritten();
    });
  });

  describe('when the JSON-RPC method is unknown or not for this server', () => {
    it.each([
      'tools/delete',
      'resources/list',
      'prompts/get',
      'sampling/createMessage',
      'admin/shutdown',
      '__proto__',
      'constructor',
    ])('answers %s with a JSON-RPC error', async (method) => {
      const answer = await stand.post('dev', JSON.stringify({ jsonrpc: '2.0', id: 7, method, params: {} }));
      expectClearAnswer(answer);
      expect(rpcError(answer)?.code).toBe(-32601);
      await expectStillServing();
    });

    it('answers a batch of many calls without a write and keeps serving', async () => {
      const batch = Array.from({ length: 200 }, (_, i) =>
        i % 2 === 0
          ? {
              jsonrpc: '2.0',
              id: i,
              method: 'tools/call',
              params: { name: 'get_file', arguments: { path: 'src/a.ts' } },
            }
          : { jsonrpc: '2.0', id: i, method: 'no/such' },
      );
      const answer = await stand.post('dev', JSON.stringify(batch));
      expectClearAnswer(answer);
      await expectStillServing();
      expectNothingWritten();
    });
  });

  describe('when the body is huge or deeply nested', () => {
    it('answers a body nested 100,000 deep clearly', async () => {
      const depth = 100_000;
      const answer = await stand.post('dev', `${'['.repeat(depth)}${']'.repeat(depth)}`);
      expectClearAnswer(answer);
      await expectStillServing();
    });

    it('answers tool arguments nested 20,000 deep clearly', async () => {
      const depth = 20_000;
      const nested = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
      const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"push_files","arguments":{"message":"m","files":[{"path":"src/n.ts","content":${nested}}]}}}`;
      const answer = await stand.post('dev', body);
      expectClearAnswer(answer);
      expect(answer.text).toMatch(/invalid|expected/i);
      await expectStillServing();
      expectNothingWritten();
    });

    it('answers a message of one huge string clearly', async () => {
      const answer = await stand.post('dev', toolCall('get_file', { path: 'x'.repeat(3_000_000) }));
      expectClearAnswer(answer);
      await expectStillServing();
      expectNothingWritten();
    });

    it('refuses a push of many small files over the limit whole', async () => {
      const files = Array.from({ length: 5_000 }, (_, i) => ({ path: `src/many/${i}.ts`, content: 'x' }));
      const result = await callTool(dev, 'push_files', { message: 'many', files });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/nothing was written/);
      expect(await stand.head()).toBe(startHead);
      expectNothingWritten();
    });
  });

  describe('when tool arguments are adversarial', () => {
    it.each([...ADVERSARIAL_PATHS, ...LITERAL_NAMES].map((p) => [JSON.stringify(p).slice(0, 60), p]))(
      'reads of %s answer an error and reveal nothing',
      async (_name, path) => {
        for (const [tool, args] of [
          ['get_file', { path }],
          ['get_files', { paths: [path, 'src/a.ts'] }],
          ['get_tree', { path, recursive: true }],
          ['list_commits', { path }],
        ] as const) {
          const result = await callTool(dev, tool, args);
          const text = textOf(result);
          expectNoStackTrace(text);
          expect(text).not.toContain(HIDDEN);
          if (tool === 'get_file') expect(result.isError).toBe(true);
        }
      },
    );

    it.each(ADVERSARIAL_PATHS.map((p) => [JSON.stringify(p).slice(0, 60), p]))(
      'a push naming %s is refused whole',
      async (_name, path) => {
        for (const args of [
          {
            message: 'm',
            files: [
              { path: 'src/ok.ts', content: 'ok\n' },
              { path, content: 'x\n' },
            ],
          },
          { message: 'm', files: [{ path: 'src/ok.ts', content: 'ok\n' }], deletions: [path] },
        ]) {
          const result = await callTool(dev, 'push_files', args);
          expect(result.isError).toBe(true);
          expect(textOf(result)).toMatch(/nothing was written/);
          expectNoStackTrace(textOf(result));
        }
        expect(await stand.head()).toBe(startHead);
        expectNothingWritten();
      },
    );

    it.each(LITERAL_NAMES)(
      'a push to %s writes that literal name, never a decoded or expanded one',
      async (path) => {
        const result = await callTool(dev, 'push_files', {
          message: `literal ${path}`,
          files: [{ path, content: 'literal\n' }],
        });
        expect(result.isError, textOf(result)).toBeFalsy();
        const changed = await gitText(stand.repoDir, ['diff', '--name-only', startHead, 'main']);
        expect(changed).toBe(`${path}\n`);
        expect(await gitText(stand.repoDir, ['show', 'main:secrets/key.txt'])).toBe(FILES['secrets/key.txt']);
        startHead = await stand.head();
      },
    );

    it('ignores repository, branch and ref arguments: reads and writes stay on the bound branch', async () => {
      const coordinates = {
        owner: 'evil',
        repo: 'other',
        branch: 'side',
        ref: 'refs/heads/side',
        sha: 'side',
      };
      const read = await callTool(dev, 'get_file', { path: 'src/a.ts', ...coordinates });
      expect(textOf(read)).toBe(FILES['src/a.ts']);
      const raw = await stand.post('dev', toolCall('get_file', { path: 'src/a.ts', ...coordinates }));
      expect(raw.text).not.toContain(HIDDEN);

      const sideHead = await stand.head('side');
      const otherHead = (await gitText(stand.otherRepoDirs['evil/other']!, ['rev-parse', 'main'])).trim();
      const pushed = await callTool(dev, 'push_files', {
        message: 'coordinates ignored',
        files: [{ path: 'src/coords.ts', content: 'here\n', ...coordinates }],
        ...coordinates,
      });
      expect(pushed.isError, textOf(pushed)).toBeFalsy();
      expect(await gitText(stand.repoDir, ['show', 'main:src/coords.ts'])).toBe('here\n');
      expect(await stand.head('side')).toBe(sideHead);
      expect((await gitText(stand.otherRepoDirs['evil/other']!, ['rev-parse', 'main'])).trim()).toBe(
        otherHead,
      );
      startHead = await stand.head();
    });

    it('refuses content that claims an encoding it does not have, or an unknown encoding', async () => {
      for (const file of [
        { path: 'src/e.ts', content: '***not base64***', encoding: 'base64' },
        { path: 'src/e.ts', content: 'QUJD=', encoding: 'base64' },
        { path: 'src/e.ts', content: 'abc', encoding: 'utf-16' },
        { path: 'src/e.ts', content: 'abc', encoding: 'hex' },
        { path: 'src/e.ts', content: 42 },
        { path: 'src/e.ts' },
      ]) {
        const result = await callTool(dev, 'push_files', { message: 'enc', files: [file] });
        expect(result.isError, JSON.stringify(file)).toBe(true);
        expectNoStackTrace(textOf(result));
      }
      expect(await stand.head()).toBe(startHead);
      expectNothingWritten();
    });
  });

  describe('properties', () => {
    it('any JSON body gets a clear answer, never a 5xx, and the server keeps serving', async () => {
      await fc.assert(
        fc.asyncProperty(fc.jsonValue({ maxDepth: 6 }), async (value) => {
          const answer = await stand.post('dev', JSON.stringify(value));
          expectClearAnswer(answer);
        }),
        { numRuns: 100 },
      );
      await expectStillServing();
      expectNothingWritten();
    });

    it('any arguments to a read tool reveal nothing hidden and write nothing', async () => {
      const hostilePath = fc.oneof(
        fc.constantFrom(...ADVERSARIAL_PATHS),
        fc.string({ unit: 'binary', maxLength: 40 }),
        fc
          .tuple(
            fc.array(
              fc.constantFrom(
                'src',
                'docs',
                'secrets',
                '.github',
                '..',
                '.',
                '',
                '%2e%2e',
                '.git',
                '*',
                '**',
                'a.ts',
                'key.txt',
                'secret.md',
              ),
              {
                minLength: 1,
                maxLength: 5,
              },
            ),
            fc.constantFrom('/', '\\', '//'),
          )
          .map(([segments, separator]) => segments.join(separator)),
      );
      const args = fc.record(
        {
          path: hostilePath,
          paths: fc.array(hostilePath, { maxLength: 5 }),
          recursive: fc.boolean(),
          sha: fc.oneof(fc.stringMatching(/^[0-9a-f]{40}$/), fc.string(), fc.constant('HEAD')),
          per_page: fc.integer({ min: -5, max: 500 }),
          pattern: fc.oneof(fc.string(), fc.constantFrom('(a+)+$', '(a)\\1', '(?=x)', '[', '.*', HIDDEN)),
          regex: fc.boolean(),
          base: fc.oneof(fc.stringMatching(/^[0-9a-f]{40}$/), fc.string()),
          start_line: fc.integer({ min: -5, max: 1_000_000 }),
          context: fc.integer({ min: -5, max: 100 }),
          owner: fc.constant('evil'),
          repo: fc.constant('other'),
          branch: fc.constant('side'),
        },
        { requiredKeys: [] },
      );
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...READ_TOOLS), args, async (tool, toolArgs) => {
          const answer = await stand.post('dev', toolCall(tool, toolArgs));
          expectClearAnswer(answer);
        }),
        { numRuns: 60 },
      );
      await expectStillServing();
      expectNothingWritten();
    });

    it('a push naming any invalid, hidden or unwritable path writes nothing', async () => {
      const bad = fc.oneof(
        fc.constantFrom(
          ...ADVERSARIAL_PATHS,
          'README.md',
          'docs/new.md',
          '.github/workflows/evil.yml',
          'src/.claude/settings.json',
          'SRC/x.ts',
        ),
        fc.string({ unit: 'binary', maxLength: 30 }).filter((s) => !/^src\//.test(s)),
      );
      const good = fc.stringMatching(/^[a-z]{1,8}(\/[a-z]{1,8}){0,2}\.ts$/).map((p) => `src/${p}`);
      await fc.assert(
        fc.asyncProperty(
          fc.array(good, { maxLength: 3 }),
          bad,
          fc.boolean(),
          async (goods, path, asDeletion) => {
            const files = goods.map((p) => ({ path: p, content: 'g\n' }));
            const result = await callTool(dev, 'push_files', {
              message: 'property',
              files: asDeletion ? files : [...files, { path, content: 'b\n' }],
              ...(asDeletion ? { deletions: [path] } : {}),
            });
            expect(result.isError).toBe(true);
            expectNoStackTrace(textOf(result));
          },
        ),
        { numRuns: 100 },
      );
      expect(await stand.head()).toBe(startHead);
      expectNothingWritten();
    });
  });
});
