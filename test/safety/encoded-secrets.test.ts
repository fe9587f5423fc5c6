import { createHash, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { encodedFindings } from '../../src/safety/encoded-secrets.js';
import { createSecretFilter } from '../../src/safety/index.js';
import { providerSamples, sample } from '@perimeter/test-rigs';

const base64 = (text: string): string => Buffer.from(text).toString('base64');
const hiddenSpans = async (text: string): Promise<Array<[string, string]>> =>
  (await encodedFindings(text)).map((f) => [text.slice(f.start, f.end), f.kind]);

/** A PEM's body: the base64 lines between its BEGIN and END lines. */
const body = (pem: string): string =>
  pem
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('-----'))
    .join('\n');

// generated at run time: real key structures, nothing stored in the repository
const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 });
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const keyBodies = {
  'PKCS#8': body(rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string),
  'PKCS#1': body(rsa.privateKey.export({ type: 'pkcs1', format: 'pem' }) as string),
  'SEC1 (EC)': body(ec.privateKey.export({ type: 'sec1', format: 'pem' }) as string),
};

describe('encodedFindings', () => {
  describe('when a credential is under one layer of base64', () => {
    const token = sample.github();
    it.each([
      ['a token alone', base64(token)],
      ['a Basic header', base64(`x-access-token:${token}`)],
      ['a base64url .env file', Buffer.from(`HOST=db\nGITHUB_TOKEN=${token}\n`).toString('base64url')],
    ])('hides %s whole, named by what it decodes to', async (_what, encoded) => {
      expect(await hiddenSpans(`secret: "${encoded}"\n`)).toEqual([[encoded, 'GitHub token']]);
    });

    it('finds every provider format that way', async () => {
      for (const { kind, value } of providerSamples()) {
        const kinds = (await hiddenSpans(`x ${base64(value)} y`)).map(([, k]) => k);
        expect(kinds, kind).toContain(kind);
      }
    });
  });

  describe('when a credential is URL-encoded', () => {
    const token = sample.github();
    it.each([
      ['its underscore escaped', token.replace('_', '%5F')],
      ['every character escaped', [...token].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('')],
      [
        'inside an encoded URL with a password',
        encodeURIComponent(`https://ci:${sample.password()}@db.example.net/`),
      ],
    ])('hides it with %s', async (_what, encoded) => {
      expect(await hiddenSpans(`https://example.net/cb?next=${encoded}&x=1`)).toEqual([
        [encoded, encoded.includes('ci%3A') ? 'password' : 'GitHub token'],
      ]);
    });
  });

  describe('when a PEM private key has lost its BEGIN and END lines', () => {
    it.each(Object.entries(keyBodies))('hides a %s body, also indented in YAML', async (_what, key) => {
      expect(await hiddenSpans(`key: |\n${key.replace(/^/gm, '  ')}\nnext: 1\n`)).toEqual([
        [key.replace(/^/gm, '  ').trimStart(), 'private key'],
      ]);
      expect(await hiddenSpans(`key: ${key.replace(/\n/g, '')}\n`)).toEqual([
        [key.replace(/\n/g, ''), 'private key'],
      ]);
    });
  });

  describe('when nothing encoded is a credential', () => {
    it.each([
      ['a public key body', body(rsa.publicKey.export({ type: 'spki', format: 'pem' }) as string)],
      ['a PKCS#1 public key body', body(rsa.publicKey.export({ type: 'pkcs1', format: 'pem' }) as string)],
      ['base64 of prose', base64('The quick brown fox jumps over the lazy dog, twice over.')],
      ['a sha256 digest', createHash('sha256').update('x').digest('base64')],
      ['long identifiers', 'const someVeryLongIdentifierName_withSuffix = createSecretFilterOptions;'],
      ['an ordinary encoded URL', encodeURIComponent('https://example.net/a b?c=d&e=%')],
      ['a stray percent sign', '100% done, 50%off, %zz'],
    ])('hides nothing in %s', async (_what, text) => {
      expect(await encodedFindings(text)).toEqual([]);
    });
  });
});

describe('encodedFindings on a megabyte built to be slow', () => {
  it.each([
    ['one long run without an escape', 'password'.repeat(125_000)],
    ['escapes between words', 'a%20b '.repeat(160_000)],
    ['base64 of text, one a line', `${base64('token is ghp_ but not one, x')}\n`.repeat(25_000)],
  ])('stays linear on %s', async (_what, text) => {
    const start = performance.now();
    await encodedFindings(text);
    expect(performance.now() - start).toBeLessThan(3000);
  });
});

describe('the secret filter, on encoded credentials', () => {
  it('hides them when read and refuses them in writes', async () => {
    const filter = createSecretFilter();
    const encoded = base64(sample.github());
    const text = `echo ${encoded} | base64 -d\n`;
    expect((await filter.redact(text)).text).toBe('echo [hidden: GitHub token] | base64 -d\n');
    expect(await filter.findCredentials(text)).toEqual(['GitHub token']);
    expect(await filter.findCredentials(`key: ${keyBodies['PKCS#8'].replace(/\n/g, '')}`)).toEqual([
      'private key',
    ]);
  });
});
