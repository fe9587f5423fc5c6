import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { looksRandom, secretShapeFindings } from '../../src/safety/secret-shapes.js';
import { sample } from '@perimeter/test-rigs';

describe('secretShapeFindings', () => {
  describe('when an AWS secret access key stands alone', () => {
    it('hides it by its shape, as a value to hide but no proof of a credential', () => {
      const secret = sample.awsSecret();
      expect(secretShapeFindings(`the key ${secret}.`)).toEqual([
        { start: 8, end: 48, kind: 'AWS secret access key', credential: false, rank: 1 },
      ]);
    });

    it('sees nearly every random 40-character key as random', () => {
      const keys = Array.from({ length: 1000 }, () =>
        randomBytes(40)
          .toString('base64')
          .replace(/[^A-Za-z0-9/+]/g, '')
          .slice(0, 40),
      ).filter((k) => k.length === 40);
      expect(keys.filter(looksRandom).length / keys.length).toBeGreaterThan(0.97);
    });
  });

  describe('when a 40-character run is no key', () => {
    it.each([
      ['a path', 'src/components/Button/ButtonGroup2/index'],
      ['a camel-case name', 'someVeryLongIdentifierNameWithDigits1234'],
      ['a git commit id', 'da39a3ee5e6b4b0d3255bfef95601890afd80709'],
      ['part of a longer run', `${sample.awsSecret()}x`],
      ['a JWT part', `eyJhbGciOiJIUzI1NiJ9.${sample.awsSecret()}.sig`],
      ['base64 of text', Buffer.from('The quick brown fox jumps ov').toString('base64').slice(0, 40)],
    ])('leaves %s', (_what, text) => {
      expect(secretShapeFindings(`x ${text} y`)).toEqual([]);
    });
  });
});
