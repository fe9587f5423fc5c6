import { describe, expect, it } from 'vitest';
import { createSecretFilter } from '../../src/safety/index.js';
import { secretForms, MIN_SCRUBBED_LENGTH } from '../../src/safety/secret-forms.js';

// Not a provider format on purpose: only the extraSecrets option can hide it.
const runToken = 'run-token/with+odd=chars&more-0123';
const filter = createSecretFilter({ extraSecrets: [runToken] });
const b64 = (text: string) => Buffer.from(text).toString('base64');

describe('extraSecrets', () => {
  it.each([
    ['raw', runToken],
    ['URL-encoded', encodeURIComponent(runToken)],
    [
      'URL-encoded, lower-case escapes',
      encodeURIComponent(runToken)
        .toLowerCase()
        .replace(/run-token/, 'run-token'),
    ],
    ['base64', b64(runToken)],
    ['base64url', b64(runToken).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')],
  ])('hides the %s form', async (_form, written) => {
    const result = await filter.redact(`value: <${written}>`);
    expect(result.text).not.toContain(written);
    expect(result.hidden).toBe(1);
  });

  it.each([0, 1, 2, 15])('hides it inside a longer base64 text (prefix of %i bytes)', async (prefix) => {
    const encoded = b64(`${'u'.repeat(prefix)}${prefix === 15 ? '' : ':'}${runToken}:tail`);
    const result = await filter.redact(`curl -H 'X-Upstream: Basic ${encoded}'`);
    expect(result.text).toBe(`curl -H 'X-Upstream: Basic [hidden: secret]'`);
  });

  it('counts as a credential for writes', async () => {
    expect(await filter.findCredentials(`note ${runToken}`)).toEqual(['secret']);
  });

  it('is needed: a filter without it keeps the value', async () => {
    expect((await createSecretFilter().redact(`note ${runToken}`)).hidden).toBe(0);
  });

  it(`ignores values shorter than ${MIN_SCRUBBED_LENGTH} characters and empty ones`, async () => {
    expect(secretForms(['', 'short'])).toEqual([]);
    const result = await createSecretFilter({ extraSecrets: ['', 'main'] }).redact('main branch');
    expect(result.text).toBe('main branch');
  });
});
