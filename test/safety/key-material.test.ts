import { describe, expect, it } from 'vitest';
import { createSecretFilter } from '../../src/safety/index.js';
import { fill, privateKeyBlock } from '@perimeter/test-rigs';

const filter = createSecretFilter();
const base64 = (text: string): string => Buffer.from(text).toString('base64');
const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const KEY_ID = ['AK', 'IA', 'FAKEFAKEFAKE', 'ABCD'].join('');
const SECRET = ['Fa', 'ke', fill('aws-pair', 36, BASE64)].join('');

describe('a private key written as one base64 line', () => {
  it('is hidden whole in a kubeconfig (client-key-data)', async () => {
    const encoded = base64(`${privateKeyBlock()}\n`);
    const text = `users:\n- name: ci\n  user:\n    client-key-data: ${encoded}\n    token: ''\n`;
    const result = await filter.redact(text);
    expect(result.text).toBe(
      "users:\n- name: ci\n  user:\n    client-key-data: [hidden: private key]\n    token: ''\n",
    );
    expect(await filter.findCredentials(text)).toContain('private key');
  });

  it('is hidden for every label (EC, OPENSSH, PKCS#8, encrypted)', async () => {
    for (const label of ['EC PRIVATE KEY', 'OPENSSH PRIVATE KEY', 'PRIVATE KEY', 'ENCRYPTED PRIVATE KEY']) {
      const encoded = base64(privateKeyBlock(label));
      expect((await filter.redact(`tls.key: ${encoded}`)).text).toBe('tls.key: [hidden: private key]');
    }
  });

  it('keeps an encoded certificate (client-certificate-data is public)', async () => {
    const cert = [
      '-----BEGIN ',
      'CERTIFICATE-----\nMIIB',
      fill('cert', 300),
      '\n-----END CERTIFICATE-----\n',
    ];
    const text = `client-certificate-data: ${base64(cert.join(''))}`;
    expect((await filter.redact(text)).text).toBe(text);
  });
});

describe('an AWS secret access key beside its key ID', () => {
  it.each([
    ['a CSV row (console download)', `ci-user,${KEY_ID},${SECRET}`],
    ['a colon pair', `${KEY_ID}:${SECRET}`],
    ['two lines of an unnamed config', `id ${KEY_ID}\nkey ${SECRET}\n`],
    ['the secret first', `"${SECRET}" "${KEY_ID}"`],
  ])('hides both (%s)', async (_form, text) => {
    const result = await filter.redact(text);
    expect(result.kinds).toEqual({ 'AWS access key ID': 1, 'AWS secret access key': 1 });
    expect(result.text).not.toContain(SECRET.slice(4, 30));
    expect(await filter.findCredentials(text)).toContain('AWS secret access key');
  });

  it('refuses a 40-character base64 run only beside a key ID: alone it is hidden by its shape, not refused', async () => {
    const text = `integrity: ${SECRET}\n`;
    expect((await filter.redact(text)).text).toBe('integrity: [hidden: AWS secret access key]\n');
    expect(await filter.findCredentials(text)).toEqual([]);
  });

  it('keeps a key ID far from any such run to its ID alone as a credential', async () => {
    const text = `${KEY_ID}\n${'x'.repeat(400)}\n${SECRET}`;
    expect(await filter.findCredentials(text)).toEqual(['AWS access key ID']);
  });
});
