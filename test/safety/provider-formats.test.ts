import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { PROVIDER_FORMATS } from '../../src/safety/provider-formats.js';
import { createSecretFilter } from '../../src/safety/index.js';
import { fill, providerSamples } from '@perimeter/test-rigs';

/** Kinds whose value is found only after a fixed text, tested here with that text. */
const AFTER_A_NAME = new Set(['Azure storage account key']);

describe('PROVIDER_FORMATS', () => {
  it('has a sample for every kind (the filter tests run each one)', () => {
    const sampled = new Set(providerSamples().map((s) => s.kind));
    for (const { kind } of PROVIDER_FORMATS)
      if (!AFTER_A_NAME.has(kind)) expect(sampled, kind).toContain(kind);
  });

  it('finds an Azure storage account key in a connection string, hiding the key only', async () => {
    const key = `FAKE${fill('azure-storage', 82, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/')}==`;
    const text = `DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=${key};EndpointSuffix=core.windows.net`;
    const result = await createSecretFilter().redact(text);
    expect(result.text).toBe(
      'DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=[hidden: Azure storage account key];EndpointSuffix=core.windows.net',
    );
  });

  it('names every provider in docs/content-safety.md', async () => {
    const page = await readFile(new URL('../../docs/content-safety.md', import.meta.url), 'utf8');
    const rules = page.slice(page.indexOf('**Detection rules**'));
    for (const { kind } of PROVIDER_FORMATS) {
      const provider = kind.replace(
        / (?:API key|token|key|secret|webhook secret|webhook URL|bot token|.*)$/,
        '',
      );
      expect(rules.toLowerCase(), kind).toContain(provider.split(' ')[0]!.toLowerCase());
    }
  });
});
