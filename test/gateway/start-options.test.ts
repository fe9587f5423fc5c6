import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startGateway, type GatewayOptions } from '../../src/gateway/index.js';
import { MIN_SECRET_LENGTH } from '../../src/gateway/serving/bearer-secret.js';
import { compilePerimeter, parseConfig, type Perimeter } from '../../src/policy/index.js';
import { createMemoryUpstream } from './support/memory-upstream.js';

const CONFIG = `
version: 1
perimeters:
  dev:
    read: ["**"]
    write: ["src/**"]
`;

const perimeter = (name = 'dev'): Perimeter => ({
  ...compilePerimeter(parseConfig(CONFIG).perimeters[0]!),
  name,
});

describe('starting a gateway', () => {
  let dir: string;
  let options: GatewayOptions;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'start-options-'));
    options = {
      upstream: await createMemoryUpstream({ 'src/a.ts': 'a' }),
      branch: 'main',
      perimeters: [perimeter()],
      secrets: { dev: 'x'.repeat(MIN_SECRET_LENGTH) },
      ledger: { path: join(dir, 'ledger.jsonl'), key: 'key' },
    };
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it('serves a perimeter whose secret is exactly as long as the floor', async () => {
    const gateway = await startGateway(options);
    expect(Object.keys(gateway.endpoints)).toEqual(['dev']);
    await gateway.close();
  });

  it.each([
    ['a secret one character short', { secrets: { dev: 'x'.repeat(MIN_SECRET_LENGTH - 1) } }, /at least 32/],
    ['no secret', { secrets: {} }, /needs a bearer secret/],
    ['no perimeter', { perimeters: [] }, /no perimeter to serve/],
    ['a perimeter twice', { perimeters: [perimeter(), perimeter()] }, /listed twice/],
    [
      'a name that is no URL segment',
      { perimeters: [perimeter('a/b')], secrets: { 'a/b': 'x'.repeat(40) } },
      /URL segment/,
    ],
  ])('refuses %s before it listens', async (_, change, message) => {
    await expect(startGateway({ ...options, ...change })).rejects.toThrow(message);
  });
});
