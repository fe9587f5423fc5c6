import { describe, expect, it } from 'vitest';
import { createSecretFilter } from '../../src/safety/index.js';
import { fill, privateKeyBlock, sample } from '@perimeter/test-rigs';

const filter = createSecretFilter();
const pw = sample.password();

describe('URL passwords', () => {
  it.each([
    [
      'https',
      `https://deploy:${pw}@git.internal.test/org/repo.git`,
      'https://deploy:[hidden: password]@git.internal.test/org/repo.git',
    ],
    [
      'postgres',
      `DATABASE_URL=postgres://app:${pw}@db.internal.test:5432/app`,
      'DATABASE_URL=postgres://app:[hidden: password]@db.internal.test:5432/app',
    ],
    [
      'mongodb+srv',
      `mongodb+srv://svc:${pw}@cluster0.internal.test/db`,
      'mongodb+srv://svc:[hidden: password]@cluster0.internal.test/db',
    ],
    [
      'redis, empty user',
      `redis://:${pw}@cache.internal.test:6379/0`,
      'redis://:[hidden: password]@cache.internal.test:6379/0',
    ],
    [
      'amqp to localhost',
      `amqp://guest:${pw}@localhost:5672/`,
      'amqp://guest:[hidden: password]@localhost:5672/',
    ],
    [
      'in a quoted string',
      `url = "ftp://me:${pw}@files.internal.test/"`,
      'url = "ftp://me:[hidden: password]@files.internal.test/"',
    ],
  ])('hides the password, keeps the rest (%s)', async (_scheme, text, expected) => {
    const result = await filter.redact(text);
    expect(result.text).toBe(expected);
    expect(result.kinds).toEqual({ password: 1 });
  });

  it('hides a token used as the whole user part', async () => {
    const credential = `FAKE${fill('url-cred', 30)}9`;
    const result = await filter.redact(`git clone https://${credential}@git.internal.test/org/repo.git`);
    expect(result.text).toBe('git clone https://[hidden: URL credential]@git.internal.test/org/repo.git');
  });

  it.each([
    'postgres://app:${DB_PASSWORD}@db.internal.test/app',
    'https://user:<password>@example.net/',
    'https://user:password@example.net/',
    'mysql://root:xxxxxxxx@localhost/db',
    'ssh://git@github.com/org/repo.git',
    'https://me@example.net/path',
    'see https://example.net/a:b@c',
  ])('keeps %j', async (text) => {
    expect(await filter.redact(text)).toEqual({ text, hidden: 0, kinds: {}, spans: [] });
  });

  it('counts as a credential for writes', async () => {
    expect(await filter.findCredentials(`https://deploy:${pw}@git.internal.test/x`)).toEqual(['password']);
  });
});

describe('private-key blocks', () => {
  it.each([
    'RSA PRIVATE KEY',
    'OPENSSH PRIVATE KEY',
    'EC PRIVATE KEY',
    'PRIVATE KEY',
    'ENCRYPTED PRIVATE KEY',
    'PGP PRIVATE KEY BLOCK',
  ])('hides a whole %s block', async (label) => {
    const block = privateKeyBlock(label, label);
    const result = await filter.redact(`key:\n${block}\ndone`);
    expect(result.text).toBe('key:\n[hidden: private key]\ndone');
    expect(result.hidden).toBe(1);
  });

  it('hides a block whose body is a placeholder', async () => {
    const block = ['-----BEGIN ', 'PRIVATE KEY-----\n...\n-----END ', 'PRIVATE KEY-----'].join('');
    expect((await filter.redact(block)).text).toBe('[hidden: private key]');
  });

  it('hides a block inside a JSON string', async () => {
    const json = JSON.stringify({
      type: 'service_account',
      private_key: `${privateKeyBlock('PRIVATE KEY')}\n`,
    });
    const result = await filter.redact(json);
    expect(result.text).not.toContain('MII');
    expect(result.kinds['private key']).toBe(1);
  });

  it('hides a block cut off before its END line', async () => {
    const block = privateKeyBlock();
    const cut = block.slice(0, block.indexOf('-----END'));
    const result = await filter.redact(`${cut}and then`);
    expect(result.text).toBe('[hidden: private key]\nand then');
  });

  it('keeps public keys and certificates', async () => {
    const text = [
      '-----BEGIN ',
      'PUBLIC KEY-----\nMIIB',
      fill('pub', 80),
      '\n-----END ',
      'PUBLIC KEY-----',
    ].join('');
    expect((await filter.redact(text)).hidden).toBe(0);
  });
});
