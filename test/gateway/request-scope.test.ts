import { readFile } from 'node:fs/promises';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, ok, startHarness, textOf, type Harness } from '@perimeter/test-rigs';
import { ledgerFactsOf } from '../../src/verify/index.js';
import { MAX_SCOPE_REQUESTS } from '../../src/policy/index.js';

const CONFIG = `
version: 1
perimeters:
  dev:
    read: ["**"]
    write: ["src/**"]
  docs:
    read: ["docs/**"]
    write: ["docs/**"]
`;

describe('request_scope', () => {
  let h: Harness;
  let dev: Client;
  let docs: Client;

  beforeAll(async () => {
    h = await startHarness({ files: { 'src/a.ts': 'a\n', 'docs/x.md': 'x\n' }, config: CONFIG });
    dev = await h.connect('dev');
    docs = await h.connect('docs');
  });
  afterAll(() => h.close());

  describe('when the agent asks for a glob it may not write, with a reason', () => {
    it('records it and says how many more this job may ask', async () => {
      expect(
        await ok(dev, 'request_scope', { path: 'docs/api/**', reason: 'the task documents the API' }),
      ).toEqual({
        recorded: true,
        remaining: MAX_SCOPE_REQUESTS - 1,
      });
    });
  });

  describe('when the request cannot be recorded', () => {
    it.each([
      [{ path: 'src/b.ts', reason: 'x' }, 'writable already; use push_files'],
      [{ path: '../x', reason: 'x' }, 'not a perimeters.yml glob'],
      [{ path: 'test/**', reason: '' }, 'give a reason'],
    ])('refuses %j', async (args, message) => {
      const result = await call(dev, 'request_scope', args);
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain(message);
    });
  });

  it('records at most the per-job bound, every perimeter together', async () => {
    for (let i = 1; i < MAX_SCOPE_REQUESTS; i++)
      await ok(i % 2 ? docs : dev, 'request_scope', { path: `notes/${i}.md`, reason: `note ${i}` });
    const over = await call(docs, 'request_scope', { path: 'notes/x.md', reason: 'one more' });
    expect(over.isError).toBe(true);
    expect(textOf(over)).toContain(`already recorded ${MAX_SCOPE_REQUESTS} scope requests`);
  });

  it('leaves the requests in the ledger, where the post step finds them', async () => {
    const facts = ledgerFactsOf(await readFile(h.ledgerPath, 'utf8'), h.ledgerKey);
    expect(facts.scopeRequests).toHaveLength(MAX_SCOPE_REQUESTS);
    expect(facts.scopeRequests![0]).toEqual({
      perimeter: 'dev',
      glob: 'docs/api/**',
      reason: 'the task documents the API',
    });
  });
});
