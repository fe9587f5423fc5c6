import { describe, expect, it } from 'vitest';
import { makeScrubber } from '../../src/safety/secret-forms.js';

describe('makeScrubber', () => {
  const token = 'ghs_0123456789abcdefghijABCDEFGHIJ';
  const scrub = makeScrubber([token]);
  it.each([
    ['raw', token],
    ['URL-encoded', encodeURIComponent(`${token}/+`)],
    ['base64', Buffer.from(token).toString('base64')],
    ['base64 of a basic credential', Buffer.from(`x-access-token:${token}`).toString('base64')],
    ['base64url, shifted', Buffer.from(`ab${token}`).toString('base64url')],
  ])('hides the token %s', (_name, encoded) => {
    const out = scrub(`before ${encoded} after`);
    expect(out).not.toContain(encoded);
    expect(out).toContain('***');
    expect(out.startsWith('before ')).toBe(true);
  });
});
