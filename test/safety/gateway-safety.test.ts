/**
 * Content safety through the running gateway: a real MCP client over HTTP, the gateway with the
 * secret filter, the GitHub stand-in backed by a real git repository.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLedgerFacts } from '../../src/verify/index.js';
import { createSecretFilter } from '../../src/safety/index.js';
import { commitToBare } from '@perimeter/fake-github';
import {
  answerOf,
  call,
  fill,
  ok,
  privateKeyBlock,
  providerSamples,
  sample,
  startHarness,
  textOf,
  type Harness,
} from '@perimeter/test-rigs';

const CONFIG = `version: 1
perimeters:
  reader:
    read: ["**"]
    write: ["src/**", "fixtures/**"]
  fixtures:
    read: ["**"]
    write: ["src/**", "fixtures/**"]
    allow-credential-files: ["fixtures/**"]
    allow-secrets-in: ["fixtures/**"]
`;

/** Not a provider format: only the run's extraSecrets can hide it. */
const runToken = `run-token-${randomBytes(16).toString('hex')}`;
const kinds = providerSamples();
const kindPaths = kinds.map((_, i) => `src/kinds/${String(i).padStart(2, '0')}.txt`);
const password = sample.password('gw');
const envValue = `Fake${fill('env', 20)}`;

const files: Record<string, string | Uint8Array> = {
  'README.md': '# lanes\n',
  'src/app.ts': 'export const answer = 42;\n',
  'src/settings.yml': `database:\n  host: db.internal.test\n  password: ${password}\n  user: app\nhook: \${HOOK_URL}\n`,
  'src/leak.txt': `copied from a log: ${runToken}\nand encoded: ${Buffer.from(`x-access-token:${runToken}`).toString('base64')}\n`,
  'src/blob.bin': new Uint8Array([0, 1, 2, ...Buffer.from(`token=${sample.github('binary')}`), 0]),
  '.env': `DB_PASSWORD=${envValue}\n`,
  '.env.example': 'DB_PASSWORD=changeme\n',
  'deploy/id_rsa': `${privateKeyBlock()}\n`,
  'certs/server.pem': `${privateKeyBlock('PRIVATE KEY', 'pem')}\n`,
  'fixtures/.env': `API_TOKEN=${envValue}\nPLAIN=visible\n`,
  ...Object.fromEntries(kinds.map(({ value }, i) => [kindPaths[i], `value: ${value}\n`])),
};

let h: Harness;
let reader: Client;
let fixtures: Client;

beforeAll(async () => {
  h = await startHarness({
    files,
    config: CONFIG,
    token: runToken,
    filter: createSecretFilter({ extraSecrets: [runToken] }),
  });
  reader = await h.connect('reader');
  fixtures = await h.connect('fixtures');
});

afterAll(async () => {
  await h?.close();
});

/** Everything a client received, as one string, to search for values that must not be there. */
const everything = (result: unknown): string => JSON.stringify(result);

describe('content safety through the gateway', () => {
  describe('get_file', () => {
    it.each(kinds.map((k, i) => ({ ...k, path: kindPaths[i] })))(
      'hides a $kind and says how many values it hid',
      async ({ kind, value, path }) => {
        const result = await call(reader, 'get_file', { path });
        expect(result.isError).toBeFalsy();
        expect(everything(result)).not.toContain(value.slice(0, 24));
        expect(answerOf(result)?.content).toBe(`value: [hidden: ${kind}]\n`);
        expect(answerOf(result)?.redacted).toEqual({ count: 1, kinds: { [kind]: 1 } });
        expect(textOf(result)).toContain(`1 ${kind}`);
      },
    );

    it('hides secret-named settings and keeps references', async () => {
      const file = await ok(reader, 'get_file', { path: 'src/settings.yml' });
      expect(file.content).toBe(
        'database:\n  host: db.internal.test\n  password: [hidden: password]\n  user: app\nhook: ${HOOK_URL}\n',
      );
    });

    it("hides the run's own token, raw and base64-encoded inside a Basic credential", async () => {
      const result = await call(reader, 'get_file', { path: 'src/leak.txt' });
      expect(everything(result)).not.toContain(runToken);
      expect(answerOf(result)?.redacted).toMatchObject({ count: 2 });
    });

    it('describes a binary file without scanning or sending its bytes', async () => {
      const file = await ok(reader, 'get_file', { path: 'src/blob.bin' });
      expect(file.content).toBeUndefined();
      expect(String(file.note)).toMatch(/binary/);
    });
  });

  describe('get_files', () => {
    it('hides every kind in one batched answer', async () => {
      const result = await call(reader, 'get_files', {
        paths: [...kindPaths, 'src/settings.yml', 'src/app.ts'],
      });
      expect(result.isError).toBeFalsy();
      const seen = everything(result);
      for (const { value } of kinds) expect(seen).not.toContain(value.slice(0, 24));
      expect(seen).not.toContain(password);
      expect(seen).toContain('export const answer = 42;');
      const redacted = answerOf(result)?.redacted as { count: number; kinds: Record<string, number> };
      expect(redacted.count).toBe(kinds.length + 1);
    });
  });

  describe('commit messages', () => {
    it('hides secrets in get_commit and list_commits', async () => {
      const token = sample.github('in-message');
      const sha = await commitToBare(
        h.repoDir,
        'main',
        { 'src/notes.md': 'notes\n' },
        `rotate: old token was ${token}`,
      );
      const commit = await call(reader, 'get_commit', { sha });
      expect(commit.isError).toBeFalsy();
      expect(everything(commit)).not.toContain(token);
      expect(String(answerOf(commit)?.message)).toContain('[hidden: GitHub token]');
      const list = await call(reader, 'list_commits', {});
      expect(everything(list)).not.toContain(token);
      expect(everything(list)).toContain('[hidden: GitHub token]');
    });
  });

  describe('every kind, in commit messages and error text', () => {
    it('hides each kind in a commit message', async () => {
      const message = ['import credentials', ...kinds.map(({ value }) => `- ${value}`)].join('\n');
      const sha = await commitToBare(h.repoDir, 'main', { 'src/imported.md': 'imported\n' }, message);
      const commit = await call(reader, 'get_commit', { sha });
      const seen = everything(commit);
      for (const { value } of kinds) expect(seen).not.toContain(value.slice(0, 24));
      const redacted = answerOf(commit)?.redacted as { kinds: Record<string, number> };
      expect(Object.keys(redacted.kinds).sort()).toEqual([...new Set(kinds.map((k) => k.kind))].sort());
    });

    it.each(kinds)('hides a $kind echoed in an error', async ({ value }) => {
      const result = await call(reader, 'get_file', { path: `missing/${value.replace(/\n/g, '')}` });
      expect(result.isError).toBe(true);
      expect(everything(result)).not.toContain(value.replace(/\n/g, '').slice(0, 24));
      expect(textOf(result)).toContain(`[hidden: `);
    });
  });

  describe('error text', () => {
    it('hides a secret echoed back in an error', async () => {
      const token = sample.github('in-path');
      const result = await call(reader, 'get_file', { path: `src/${token}.txt` });
      expect(result.isError).toBe(true);
      expect(everything(result)).not.toContain(token);
      expect(textOf(result)).toContain('[hidden: GitHub token]');
    });
  });

  describe('when an agent guesses a secret', () => {
    it('answers the same whether the guess is right or wrong', async () => {
      const right = kinds[0]!.value;
      const wrong = sample.github('wrong-guess');
      const answer = async (guess: string) =>
        textOf(await call(reader, 'get_file', { path: `src/kinds/${guess}` }));
      expect(await answer(right)).toBe(await answer(wrong));
    });

    it('refuses a pushed guess the same way whether it is right or wrong', async () => {
      const head = await h.head();
      const push = async (guess: string) =>
        textOf(
          await call(reader, 'push_files', {
            message: 'guess',
            files: [{ path: 'src/guess.txt', content: `g=${guess}\n` }],
          }),
        );
      expect(await push(kinds[0]!.value)).toBe(await push(sample.github('wrong-guess')));
      expect(await h.head()).toBe(head);
    });
  });

  describe('credential files', () => {
    const credentialFiles = ['.env', 'deploy/id_rsa', 'certs/server.pem', 'fixtures/.env'];

    it('are absent from get_tree', async () => {
      const tree = await ok<{ entries: Array<{ path: string }> }>(reader, 'get_tree', { recursive: true });
      const paths = tree.entries.map((e) => e.path);
      for (const path of credentialFiles) expect(paths).not.toContain(path);
      expect(paths).toContain('.env.example');
      expect(paths).not.toContain('deploy');
      expect(paths).not.toContain('certs');
    });

    it.each(credentialFiles)('%s answers exactly like a missing file', async (path) => {
      const hidden = await call(reader, 'get_file', { path });
      const missing = await call(reader, 'get_file', { path: `${path}.missing` });
      expect(hidden.isError).toBe(true);
      expect(textOf(hidden).replace(path, 'P')).toBe(textOf(missing).replace(`${path}.missing`, 'P'));
      expect(everything(hidden)).not.toContain(envValue);
    });

    it('are readable with allow-credential-files, values still hidden', async () => {
      const file = await ok(fixtures, 'get_file', { path: 'fixtures/.env' });
      expect(file.content).toBe('API_TOKEN=[hidden: token]\nPLAIN=visible\n');
      const tree = await ok<{ entries: Array<{ path: string }> }>(fixtures, 'get_tree', { recursive: true });
      const paths = tree.entries.map((e) => e.path);
      expect(paths).toContain('fixtures/.env');
      expect(paths).not.toContain('.env');
    });
  });

  describe('push_files', () => {
    it('refuses a push carrying a token, whole, naming file and kind but not the value', async () => {
      const head = await h.head();
      const token = sample.github('pushed');
      const result = await call(reader, 'push_files', {
        message: 'add config',
        files: [
          { path: 'src/clean.ts', content: 'export const ok = true;\n' },
          { path: 'src/config.ts', content: `export const token = "${token}";\n` },
        ],
      });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('src/config.ts');
      expect(textOf(result)).toContain('GitHub token');
      expect(everything(result)).not.toContain(token);
      expect(await h.head()).toBe(head);
      expect(textOf(await call(reader, 'get_file', { path: 'src/clean.ts' }))).not.toContain('ok = true');
    });

    it.each([
      ['a private key', () => privateKeyBlock()],
      ['a URL password', () => `remote = "https://ci:${sample.password('push')}@git.internal.test/x.git"`],
      ['base64 content', () => Buffer.from(`key: ${sample.github('b64')}`).toString('base64')],
    ])('refuses %s', async (_what, content) => {
      const head = await h.head();
      const encoded = _what === 'base64 content';
      const result = await call(reader, 'push_files', {
        message: 'm',
        files: [{ path: 'src/x.txt', content: content(), ...(encoded ? { encoding: 'base64' } : {}) }],
      });
      expect(result.isError).toBe(true);
      expect(await h.head()).toBe(head);
    });

    describe('when the content is binary', () => {
      const token = () => sample.github('binary-push');
      it.each([
        [
          'a NUL byte before a token',
          () => Buffer.concat([Buffer.from([0, 1, 2, 0]), Buffer.from(`t=${token()}`)]),
        ],
        ['a token in UTF-16', () => Buffer.from(`\ufeffkey=${token()}`, 'utf16le')],
        [
          'a private key after invalid UTF-8',
          () => Buffer.concat([Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from(privateKeyBlock())]),
        ],
        [
          'an uncompressed (stored) zip entry',
          () => Buffer.concat([Buffer.from([0x50, 0x4b, 3, 4, 0, 0]), Buffer.from(`token.txt\n${token()}`)]),
        ],
      ])('refuses %s, naming the kind only', async (_what, bytes) => {
        const head = await h.head();
        const result = await call(reader, 'push_files', {
          message: 'binary',
          files: [{ path: 'src/blob2.bin', content: bytes().toString('base64'), encoding: 'base64' }],
        });
        expect(result.isError).toBe(true);
        expect(textOf(result)).toMatch(
          /src\/blob2\.bin: looks like it contains a credential \((GitHub token|private key)\)/,
        );
        expect(everything(result)).not.toContain(token());
        expect(await h.head()).toBe(head);
      });

      it('says which pushed files are compressed, so not scanned inside', async () => {
        const gzip = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0x4b, 0x4c, 0x4a, 6, 0]);
        const pushed = await ok(reader, 'push_files', {
          message: 'archive',
          files: [{ path: 'src/data.gz', content: gzip.toString('base64'), encoding: 'base64' }],
        });
        expect(pushed.unscanned).toEqual([
          'src/data.gz: gzip data; only its uncompressed parts were scanned',
        ]);
      });
    });

    it("refuses the run's own token", async () => {
      const head = await h.head();
      const result = await call(reader, 'push_files', {
        message: 'm',
        files: [{ path: 'src/x.txt', content: `t=${runToken}` }],
      });
      expect(result.isError).toBe(true);
      expect(everything(result)).not.toContain(runToken);
      expect(await h.head()).toBe(head);
    });

    it('accepts credentials where allow-secrets-in allows them, and only there', async () => {
      const token = sample.github('fixture');
      const refused = await call(fixtures, 'push_files', {
        message: 'm',
        files: [{ path: 'src/t.txt', content: token }],
      });
      expect(refused.isError).toBe(true);
      const pushed = await call(fixtures, 'push_files', {
        message: 'fixture',
        files: [{ path: 'fixtures/token.txt', content: `${token}\n` }],
      });
      expect(pushed.isError).toBeFalsy();
      expect(await h.head()).toBe(answerOf(pushed)?.commit);
      const readBack = await ok(fixtures, 'get_file', { path: 'fixtures/token.txt' });
      expect(readBack.content).toBe('[hidden: GitHub token]\n');
    });

    it('refuses a file path carrying a token', async () => {
      const head = await h.head();
      const token = sample.github('in-a-path');
      const result = await call(reader, 'push_files', {
        message: 'm',
        files: [{ path: `src/${token}.txt`, content: 'x\n' }],
      });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('GitHub token');
      expect(everything(result)).not.toContain(token);
      expect(await h.head()).toBe(head);
    });

    it('accepts a setting that only its name makes suspicious', async () => {
      const pushed = await call(reader, 'push_files', {
        message: 'test data',
        files: [{ path: 'src/test-settings.yml', content: `test_password: ${sample.password('test')}\n` }],
      });
      expect(pushed.isError).toBeFalsy();
    });
  });

  describe('the ledger', () => {
    it('counts hidden values per call and never records them', async () => {
      await call(reader, 'get_file', { path: 'src/settings.yml' });
      const ledger = await readFile(h.ledgerPath, 'utf8');
      const records = ledger
        .trim()
        .split('\n')
        .map(
          (line) =>
            JSON.parse(line) as {
              tool?: string;
              paths?: string[];
              hidden_values?: number;
              hidden_kinds?: Record<string, number>;
            },
        );
      const read = records
        .filter((r) => r.tool === 'get_file' && r.paths?.includes('src/settings.yml'))
        .at(-1);
      expect(read?.hidden_values).toBe(1);
      expect(read?.hidden_kinds).toEqual({ password: 1 });
      expect(ledger).not.toContain(password);
      expect(ledger).not.toContain(runToken);
      for (const { value } of kinds) expect(ledger).not.toContain(value.slice(0, 24));
    });

    it('filters secret-looking paths an agent sends before recording them', async () => {
      const token = sample.github('sent-as-path');
      await call(reader, 'get_file', { path: `src/${token}` });
      await call(reader, 'push_files', {
        message: 'm',
        files: [{ path: `src/${token}.txt`, content: 'x\n' }],
      });
      expect(await readFile(h.ledgerPath, 'utf8')).not.toContain(token);
    });

    it('filters a secret-looking tool name an agent sends before recording it', async () => {
      const token = sample.github('sent-as-tool');
      const result = await call(reader, `get_${token}`, { path: 'README.md' });
      expect(result.isError).toBe(true);
      expect(everything(result)).not.toContain(token);
      expect(await readFile(h.ledgerPath, 'utf8')).not.toContain(token);
    });
  });
});

describe('the ledger facts the receipt reads', () => {
  it('count hidden values and credential refusals per perimeter', async () => {
    const counted = await startHarness({
      files: {
        'src/a.yml': `password: ${password}\nurl: https://ci:${sample.password('c')}@git.internal.test/x\n`,
      },
      config: CONFIG,
      filter: createSecretFilter(),
    });
    try {
      const client = await counted.connect('reader');
      await ok(client, 'get_file', { path: 'src/a.yml' });
      const files = [{ path: 'src/t.txt', content: sample.github('counted') }];
      expect((await call(client, 'push_files', { message: 'm', files })).isError).toBe(true);
      const outside = [{ path: 'docs/t.txt', content: 'plain\n' }];
      expect((await call(client, 'push_files', { message: 'm', files: outside })).isError).toBe(true);
      await counted.gateway.close();
      const facts = await readLedgerFacts(counted.ledgerPath, counted.ledgerKey);
      expect(facts.perPerimeter.reader).toEqual({ calls: 3, refusals: 2, hidden: 2, credentialRefusals: 1 });
      expect(facts.perPerimeter.fixtures).toEqual({ calls: 0, refusals: 0 });
    } finally {
      await counted.close();
    }
  });
});

describe('when a large file is read again', () => {
  it('answers the same without scanning anything again', async () => {
    const filter = createSecretFilter();
    const content = `password: ${password}\n${'const plain = 1;\n'.repeat(4000)}`;
    const again = await startHarness({ files: { 'src/big.ts': content }, config: CONFIG, filter });
    try {
      const client = await again.connect('reader');
      const first = await call(client, 'get_file', { path: 'src/big.ts' });
      const scans = filter.stats().scans;
      const second = await call(client, 'get_file', { path: 'src/big.ts' });
      expect(second).toEqual(first);
      expect(answerOf(first)?.redacted).toEqual({ count: 1, kinds: { password: 1 } });
      expect(filter.stats().scans).toBe(scans);
    } finally {
      await again.close();
    }
  });
});

describe('when the detector fails', () => {
  let broken: Harness;
  let client: Client;

  beforeAll(async () => {
    const fail = () => Promise.reject(new Error('detector down'));
    broken = await startHarness({
      files: { 'src/a.txt': `password: ${password}\n` },
      config: CONFIG,
      filter: { redact: fail, findCredentials: fail },
    });
    client = await broken.connect('reader');
  });

  afterAll(async () => {
    await broken?.close();
  });

  it('withholds the answer instead of sending it unfiltered', async () => {
    const result = await call(client, 'get_file', { path: 'src/a.txt' });
    expect(result.isError).toBe(true);
    expect(everything(result)).not.toContain(password);
  });

  it('writes nothing', async () => {
    const head = await broken.head();
    const result = await call(client, 'push_files', {
      message: 'm',
      files: [{ path: 'src/b.txt', content: 'plain\n' }],
    });
    expect(result.isError).toBe(true);
    expect(await broken.head()).toBe(head);
  });
});
