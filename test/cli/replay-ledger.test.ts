import { copyFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, ok, startHarness, type Harness } from '@perimeter/test-rigs';
import { makeCheckout, runCli } from './run-cli.js';

const CONFIG = `version: 1
perimeters:
  implementer:
    read: ["src/**", "docs/**"]
    write: ["src/**"]
  tester:
    read: ["src/**", "test/**"]
    write: ["test/**"]
`;

let h: Harness;
let dir: string;

// A real run: a gateway over the GitHub stand-in, real MCP clients over HTTP, its own ledger.
beforeAll(async () => {
  h = await startHarness({
    files: { 'src/a.ts': 'a', 'docs/guide.md': 'g', 'test/a.test.ts': 't' },
    config: CONFIG,
  });
  const implementer = await h.connect('implementer');
  const tester = await h.connect('tester');
  await ok(implementer, 'get_file', { path: 'docs/guide.md' });
  await call(implementer, 'get_file', { path: 'test/a.test.ts' }); // hidden: answered as missing
  await ok(implementer, 'push_files', { message: 'edit', files: [{ path: 'src/a.ts', content: 'a2' }] });
  await ok(tester, 'get_tree', {});
  await ok(tester, 'push_files', { message: 'test', files: [{ path: 'test/b.test.ts', content: 'b' }] });
  await h.gateway.close(); // the ledger's closing record
  dir = makeCheckout({ 'perimeters.yml': CONFIG });
  copyFileSync(h.ledgerPath, join(dir, 'ledger.jsonl'));
  await h.close();
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('perimeter replay --ledger', () => {
  describe("when the proposal is the run's config", () => {
    it('judges no call differently and exits 0', async () => {
      const result = await runCli(['replay', '--ledger', 'ledger.jsonl'], dir);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(
        'Replaying perimeters.yml against the ledger ledger.jsonl: 5 calls; base HEAD:perimeters.yml\n' +
          'No call would be judged differently than under HEAD:perimeters.yml.\n',
      );
    });
  });

  describe('when the proposal narrows reads and widens writes', () => {
    it('names each recorded call that would now be answered or refused differently, and exits 3', async () => {
      writeFileSync(
        join(dir, 'perimeters.yml'),
        CONFIG.replace('read: ["src/**", "docs/**"]', 'read: ["src/**", "test/**"]').replace(
          'write: ["src/**"]\n',
          'write: ["src/**", "test/**"]\n',
        ),
      );
      const result = await runCli(['replay', '--ledger', 'ledger.jsonl', '--json'], dir);
      expect(result.code).toBe(3);
      const { calls, changes } = JSON.parse(result.stdout);
      expect(calls).toBe(5);
      expect(
        changes.map(
          (c: { tool: string; recorded: string; before: { state: string }; after: { state: string } }) => [
            c.tool,
            c.recorded,
            c.before.state,
            c.after.state,
          ],
        ),
      ).toEqual([
        ['get_file', 'allowed', 'allowed', 'refused'], // docs/guide.md: no longer readable
        ['get_file', 'refused', 'refused', 'allowed'], // test/a.test.ts: now readable
      ]);
      const text = await runCli(['replay', '--ledger', 'ledger.jsonl'], dir);
      expect(text.stdout).toContain(
        'implementer get_file (recorded: allowed): allowed -> refused (docs/guide.md: no read glob matches)',
      );
    });
  });

  describe('when the ledger cannot be read', () => {
    it('says so and exits 1', async () => {
      const result = await runCli(['replay', '--ledger', 'missing.jsonl'], dir);
      expect(result).toMatchObject({
        code: 1,
        stderr: 'perimeter replay: cannot read the ledger missing.jsonl: ENOENT\n',
      });
      writeFileSync(join(dir, 'bad.jsonl'), '{"event":"call"}\n');
      expect((await runCli(['replay', '--ledger', 'bad.jsonl'], dir)).stderr).toBe(
        'perimeter replay: ledger line 1: a call record needs perimeter, tool and paths\n',
      );
    });
  });
});
