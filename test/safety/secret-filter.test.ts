import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ContentSafetyError, createSecretFilter, NO_FILTER } from '../../src/safety/index.js';
import { fill, privateKeyBlock, providerSamples, sample } from '@perimeter/test-rigs';

const filter = createSecretFilter();

describe('createSecretFilter', () => {
  describe('redact', () => {
    describe.each(providerSamples())('when the text holds a $kind', ({ kind, value }) => {
      it('replaces it with [hidden: kind] and counts it', async () => {
        const result = await filter.redact(`before\nsee ${value} here\nafter`);
        expect(result.text).toBe(`before\nsee [hidden: ${kind}] here\nafter`);
        expect(result.hidden).toBe(1);
        expect(result.kinds).toEqual({ [kind]: 1 });
      });

      it('finds it as a credential, naming the kind only', async () => {
        const kinds = await filter.findCredentials(`x = ${value}`);
        expect(kinds).toContain(kind);
        expect(kinds.join(' ')).not.toContain(value.slice(4, 16));
      });
    });

    describe('when a text holds several secrets', () => {
      it('counts each value once, per kind', async () => {
        const text = [
          `first: ${sample.github('a')}`,
          `second ${sample.github('b')} and ${sample.github('a')}`,
          `db_password: ${sample.password()}`,
          `url = "https://deploy:${sample.password('u')}@git.internal.test/repo.git"`,
        ].join('\n');
        const result = await filter.redact(text);
        expect(result.kinds).toEqual({ 'GitHub token': 3, password: 2 });
        expect(result.hidden).toBe(5);
      });

      it('merges detectors that overlap on one value into one finding, named by the most specific', async () => {
        const token = sample.github();
        const result = await filter.redact(`token: "${token}"`);
        expect(result).toEqual({
          text: 'token: "[hidden: GitHub token]"',
          hidden: 1,
          kinds: { 'GitHub token': 1 },
          // where the value was, for a caller that puts it back (the workspace's push)
          spans: [{ start: 8, end: 8 + token.length }],
        });
      });
    });

    describe('when the text holds nothing secret', () => {
      it('returns it unchanged', async () => {
        const text = 'export const answer = 42;\nconst url = "https://example.net/docs";\nmax_tokens: 100\n';
        expect(await filter.redact(text)).toEqual({ text, hidden: 0, kinds: {}, spans: [] });
      });
    });

    it('hides nothing more when given its own output', async () => {
      const first = await filter.redact(
        `password: "${sample.password()}"\n${privateKeyBlock()}\n${sample.github()}`,
      );
      expect(await filter.redact(first.text)).toEqual({ text: first.text, hidden: 0, kinds: {}, spans: [] });
    });

    describe('when the same text comes again', () => {
      it('answers from its cache without scanning, with the same answer', async () => {
        const own = createSecretFilter();
        const text = `password: "${sample.password('again')}"\n${'plain line\n'.repeat(2000)}`;
        const first = await own.redact(text);
        first.kinds.password = 99;
        const second = await own.redact(text);
        expect(second).toEqual({ ...first, kinds: { password: 1 } });
        expect(own.stats()).toEqual({ scans: 1, cached: 1 });
        await own.redact(`${text}more\n`);
        expect(own.stats()).toEqual({ scans: 2, cached: 1 });
      });
    });

    it('ignores secretlint-disable comments in the content', async () => {
      const token = sample.github();
      const result = await filter.redact(
        `// secretlint-disable\nconst t = "${token}"; // secretlint-disable-line\n`,
      );
      expect(result.text).not.toContain(token);
      expect(result.kinds).toEqual({ 'GitHub token': 1 });
    });
  });

  describe('when a guess is compared with the answer', () => {
    it('answers the same for any format-valid token: the format decides, not the value', async () => {
      const tokens = fc.stringMatching(/^[A-Za-z0-9]{36}$/).map((body) => ['gh', 'p_', body].join(''));
      await fc.assert(
        fc.asyncProperty(tokens, tokens, async (a, b) => {
          const [ra, rb] = await Promise.all([filter.redact(`key ${a}`), filter.redact(`key ${b}`)]);
          expect(ra).toEqual(rb);
        }),
        { numRuns: 25 },
      );
    });

    it('does not hide a guess because it equals a secret elsewhere in the same answer', async () => {
      const secret = sample.password('real');
      const answer = async (guess: string) =>
        (await filter.redact(`password: ${secret}\nnote ${guess} end`)).text;
      expect(await answer(secret)).toBe(`password: [hidden: password]\nnote ${secret} end`);
      expect(await answer('Wrong-guess-123')).toBe('password: [hidden: password]\nnote Wrong-guess-123 end');
    });

    it('hides any value of a secret-named setting the same way, right or wrong', async () => {
      const values = fc.stringMatching(/^[A-Za-z][A-Za-z0-9!@%^&*]{9,30}$/);
      await fc.assert(
        fc.asyncProperty(values, async (value) => {
          expect((await filter.redact(`api_key = "${value}"`)).text).toBe('api_key = "[hidden: API key]"');
        }),
        { numRuns: 25 },
      );
    });
  });

  describe('findCredentials', () => {
    it('finds nothing in clean text', async () => {
      expect(await filter.findCredentials('const a = 1;\npassword: ${DB_PASSWORD}\n')).toEqual([]);
    });

    it('lists each kind once, sorted', async () => {
      const text = `${sample.github('a')} ${sample.github('b')}\n${privateKeyBlock()}\nhttps://ci:${sample.password()}@repo.internal.test/x`;
      expect(await filter.findCredentials(text)).toEqual(['GitHub token', 'password', 'private key']);
    });

    it('does not refuse values that only a setting name makes suspicious', async () => {
      expect(await filter.findCredentials(`test_password: ${sample.password()}`)).toEqual([]);
      expect((await filter.redact(`test_password: ${sample.password()}`)).hidden).toBe(1);
    });
  });

  describe('when detection fails', () => {
    it('rejects instead of answering with the text (callers fail closed)', async () => {
      const notText = { toString: () => sample.github() } as unknown as string;
      await expect(filter.redact(notText)).rejects.toBeInstanceOf(ContentSafetyError);
      await expect(filter.findCredentials(notText)).rejects.toBeInstanceOf(ContentSafetyError);
    });

    it('says so without repeating the content', async () => {
      const notText = [sample.github()] as unknown as string;
      const error: unknown = await filter.redact(notText).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ContentSafetyError);
      expect(String((error as Error).message)).not.toContain('FAKE');
    });
  });

  describe('on a large text', () => {
    it('hides secrets anywhere in 200 KB', async () => {
      const filler = `${fill('filler', 70)}\n`.repeat(3000);
      const token = sample.github();
      const result = await filter.redact(`${filler}${token}\n${filler}`);
      expect(result.hidden).toBe(1);
      expect(result.text).not.toContain(token);
    });
  });
});

describe('NO_FILTER', () => {
  it('hides nothing and finds nothing', async () => {
    const text = `token: ${sample.github()}`;
    expect(await NO_FILTER.redact(text)).toEqual({ text, hidden: 0, kinds: {} });
    expect(await NO_FILTER.findCredentials(text)).toEqual([]);
  });
});
