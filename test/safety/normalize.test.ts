import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { INVISIBLE } from '../../src/safety/invisible.js';
import { normalizeForDetection, originalSpan } from '../../src/safety/normalize.js';
import { createSecretFilter } from '../../src/safety/index.js';
import { providerSamples, sample } from '@perimeter/test-rigs';

const filter = createSecretFilter();
const INVISIBLES = ['\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00ad', '\u202e', '\u{e0041}'];
const fullwidth = (text: string): string =>
  text.replace(/[!-~]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0));

describe('normalizeForDetection', () => {
  it('leaves ASCII text alone (null: nothing to do)', () => {
    expect(normalizeForDetection('plain ascii text = 1\n')).toBeNull();
  });

  it('leaves text that NFKC and the invisible set do not change alone', () => {
    expect(normalizeForDetection('Grüße, 東京, emoji 🎉')).toBeNull();
  });

  it('drops invisible characters and folds fullwidth letters, mapping each unit back', () => {
    const text = 'a\u200bｂc';
    const normalized = normalizeForDetection(text)!;
    expect(normalized.text).toBe('abc');
    expect(originalSpan(normalized, 1, 3)).toEqual([2, 4]);
    expect(originalSpan(normalized, 0, 2)).toEqual([0, 3]);
  });
});

describe('the filter on disguised tokens', () => {
  describe.each([
    ['a zero-width space inside', (t: string) => `${t.slice(0, 4)}\u200b${t.slice(4)}`],
    ['zero-width characters everywhere', (t: string) => [...t].join('\u200c')],
    ['fullwidth letters', fullwidth],
    [
      'a soft hyphen and a tag character',
      (t: string) => `${t.slice(0, 3)}\u00ad${t.slice(3, 9)}\u{e0020}${t.slice(9)}`,
    ],
  ])('when a GitHub token is written with %s', (_name, disguise) => {
    it('hides the whole disguised value, as a GitHub token', async () => {
      const disguised = disguise(sample.github());
      const result = await filter.redact(`token in prose ${disguised} end`);
      expect(result.text).toBe('token in prose [hidden: GitHub token] end');
    });

    it('refuses it in a write', async () => {
      expect(await filter.findCredentials(disguise(sample.github()))).toContain('GitHub token');
    });
  });

  it('hides any provider token with invisible characters put anywhere (property)', async () => {
    const samples = providerSamples().filter((s) => !s.value.includes('\n'));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...samples),
        fc.array(fc.tuple(fc.nat(), fc.constantFrom(...INVISIBLES)), { minLength: 1, maxLength: 6 }),
        async ({ kind, value }, inserts) => {
          const chars = [...value];
          for (const [at, char] of inserts) chars.splice(at % (chars.length + 1), 0, char);
          const result = await filter.redact(`see ${chars.join('')} here`);
          // characters put before or after the token stay outside the hidden span
          expect(result.text.replace(INVISIBLE, '')).toBe(`see [hidden: ${kind}] here`);
          expect(result.hidden).toBe(1);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('keeps the rest of a non-ASCII text exactly as it was', async () => {
    const text = `Grüße ｆｕｌｌ\u200b width ${fullwidth(sample.github())} und 東京`;
    const result = await filter.redact(text);
    expect(result.text).toBe('Grüße ｆｕｌｌ\u200b width [hidden: GitHub token] und 東京');
  });
});
