import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { encodedFindings } from '../../src/safety/encoded/encoded-secrets.js';
import { secretMatcher } from '../../src/safety/secret-forms.js';
import { createSecretFilter } from '../../src/safety/index.js';
import { LAYERS, pemBodies, providerSamples, sample } from '@perimeter/test-rigs';

const base64 = (text: string): string => Buffer.from(text).toString('base64');
const hiddenSpans = async (text: string): Promise<Array<[string, string]>> =>
  (await encodedFindings(text)).map((f) => [text.slice(f.start, f.end), f.kind]);

const keyBodies = pemBodies();

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

  describe('when a credential is under nested layers', () => {
    const token = sample.github();
    const nest = (depth: number): string => {
      let text = token;
      for (let i = 0; i < depth; i++) text = i % 2 === 0 ? LAYERS.hex(text) : LAYERS.base64(text);
      return text;
    };

    it.each([1, 2, 3, 4])('hides it under %i layers, whole', async (depth) => {
      const encoded = nest(depth);
      expect(await hiddenSpans(`x ${encoded} y`)).toEqual([[encoded, 'GitHub token']]);
    });

    it('stops at four: a fifth layer is not undone', async () => {
      expect(await hiddenSpans(`x ${nest(5)} y`)).toEqual([]);
    });

    it('reads decoded text as a model would: entities of zero-width characters dropped', async () => {
      const encoded = `${token.slice(0, 6)}&#8203;${token.slice(6)}`;
      expect(await hiddenSpans(`<p>${encoded}</p>`)).toEqual([[encoded, 'GitHub token']]);
    });

    it("finds the run's own secrets under any layer", async () => {
      const secret = 'run-secret-0123456789abcdef';
      const encoded = LAYERS['HTML decimal entities'](LAYERS.base64(secret));
      const spans = (await encodedFindings(`x ${encoded} y`, secretMatcher([secret]))).map((f) => f.kind);
      expect(spans).toEqual(['secret']);
    });
  });

  describe('when a credential is cut in two', () => {
    const token = sample.github();
    it('hides from the first piece to the last, the joints with them', async () => {
      const text = `t = "${token.slice(0, 12)}" +\n    "${token.slice(12)}";`;
      expect(await hiddenSpans(text)).toEqual([
        [`${token.slice(0, 12)}" +\n    "${token.slice(12)}`, 'GitHub token'],
      ]);
    });

    it("leaves the next line's first word when a whole secret ends a line", async () => {
      const secret = 'run-secret-0123456789abcdef';
      const text = `token ${secret}\nbasic other words\nendpoint ${token}\nledger 1\n`;
      expect(await encodedFindings(text, secretMatcher([secret]))).toEqual([]);
    });

    it('leaves a credential within one piece to the rules on the text itself', async () => {
      expect(await hiddenSpans(`t = "${token}" + " and more";`)).toEqual([]);
      expect(await hiddenSpans(`t: ${token}\nnext_key: 1\n`)).toEqual([]);
    });
  });

  describe('when nothing encoded is a credential', () => {
    it.each([
      ['a public key body', keyBodies.public['SPKI (RSA)']!],
      ['a PKCS#1 public key body', keyBodies.public['PKCS#1 (RSA public)']!],
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

describe('the secret filter, on encoded credentials', () => {
  it('hides them when read and refuses them in writes', async () => {
    const filter = createSecretFilter();
    const encoded = base64(sample.github());
    const text = `echo ${encoded} | base64 -d\n`;
    expect((await filter.redact(text)).text).toBe('echo [hidden: GitHub token] | base64 -d\n');
    expect(await filter.findCredentials(text)).toEqual(['GitHub token']);
    expect(
      await filter.findCredentials(`key: ${keyBodies.private['PKCS#8 (RSA)']!.replace(/\n/g, '')}`),
    ).toEqual(['private key']);
  });
});
