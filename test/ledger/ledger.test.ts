import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canonicalJson, Ledger, verifyLedger, type CallRecord } from '../../src/ledger/index.js';
import { readLedgerFacts } from '../../src/verify/index.js';

const KEY = 'a-ledger-key-of-some-length';

function callRecord(perimeter: string, decision: CallRecord['decision'], commit?: string): CallRecord {
  return {
    event: 'call',
    perimeter,
    tool: commit ? 'push_files' : 'get_file',
    paths: ['src/a.ts'],
    decision,
    upstream: { requests: 1, not_modified: 1, exact: true },
    duration_ms: 3,
    ...(commit ? { commit } : {}),
  };
}

describe('the ledger', () => {
  let dir: string;
  let path: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'perimeter-ledger-'));
    path = join(dir, 'ledger.jsonl');
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  const writeSession = async (): Promise<void> => {
    const ledger = await Ledger.open(path, KEY);
    await ledger.append({
      event: 'start',
      repository: 'o/r',
      branch: 'main',
      perimeters: ['a', 'b', 'idle'],
    });
    await Promise.all([
      ledger.append(callRecord('a', 'allowed')),
      ledger.append(callRecord('a', 'refused')),
      ledger.append(callRecord('b', 'allowed', 'c'.repeat(40))),
      ledger.append(callRecord('b', 'failed')),
    ]);
    await ledger.append({ event: 'stop' });
    await ledger.close();
  };

  describe('when untouched', () => {
    it('verifies, and its facts count calls, refusals and commits per perimeter', async () => {
      await writeSession();
      expect(await verifyLedger(path, KEY)).toEqual({ ok: true, records: 6 });
      const last = JSON.parse((await readFile(path, 'utf8')).trimEnd().split('\n').at(-1)!) as {
        mac: string;
      };
      expect(await readLedgerFacts(path, KEY)).toEqual({
        ok: true,
        commits: ['c'.repeat(40)],
        records: 6,
        head: last.mac,
        perPerimeter: {
          a: { calls: 2, refusals: 1 },
          b: { calls: 2, refusals: 0 },
          idle: { calls: 0, refusals: 0 },
        },
      });
    });

    it('counts credential refusals by their field, never by the wording of the reason', async () => {
      const ledger = await Ledger.open(path, KEY);
      await ledger.append({ event: 'start', perimeters: ['a'] });
      const push = { ...callRecord('a', 'refused'), tool: 'push_files' };
      await ledger.append({ ...push, reason: 'src/k.ts: a key', refused_for: ['credential'] });
      // the agent's own words can say anything: only the field counts
      await ledger.append({ ...push, reason: 'x: looks like it contains a credential' });
      await ledger.append({ event: 'stop' });
      await ledger.close();
      expect((await readLedgerFacts(path, KEY)).perPerimeter).toEqual({
        a: { calls: 2, refusals: 2, credentialRefusals: 1 },
      });
    });

    it('continues the chain when reopened', async () => {
      await writeSession();
      const again = await Ledger.open(path, KEY);
      await again.append(callRecord('a', 'allowed'));
      await again.close();
      expect(await verifyLedger(path, KEY)).toEqual({ ok: true, records: 7 });
    });
  });

  describe('when tampered with', () => {
    const lines = async (): Promise<string[]> => (await readFile(path, 'utf8')).trimEnd().split('\n');
    const save = (edited: string[]): Promise<void> => writeFile(path, `${edited.join('\n')}\n`);

    it('catches an edited record at that record', async () => {
      await writeSession();
      const edited = await lines();
      edited[2] = edited[2]!.replace('"refused"', '"allowed"');
      await save(edited);
      expect(await verifyLedger(path, KEY)).toMatchObject({
        ok: false,
        brokenAt: 3,
        problem: expect.stringMatching(/MAC/),
      });
      const facts = await readLedgerFacts(path, KEY);
      expect(facts.ok).toBe(false);
      expect(facts.problem).toMatch(/record 3/);
    });

    it('catches a removed, a reordered and a re-sealed record', async () => {
      await writeSession();
      const original = await lines();
      await save(original.filter((_, i) => i !== 1));
      expect(await verifyLedger(path, KEY)).toMatchObject({ ok: false, brokenAt: 2 });
      await save([original[0]!, original[2]!, original[1]!, ...original.slice(3)]);
      expect(await verifyLedger(path, KEY)).toMatchObject({ ok: false, brokenAt: 2 });
      const forged = JSON.parse(original[3]!) as Record<string, unknown>;
      forged.commit = 'd'.repeat(40);
      await save([...original.slice(0, 3), JSON.stringify(forged), ...original.slice(4)]);
      expect(await verifyLedger(path, KEY)).toMatchObject({ ok: false, brokenAt: 4 });
    });

    it('does not verify with another key', async () => {
      await writeSession();
      expect(await verifyLedger(path, 'another-key')).toMatchObject({ ok: false, brokenAt: 1 });
    });

    it('reports a ledger without its closing record as a problem', async () => {
      await writeSession();
      await save((await lines()).slice(0, -1));
      expect(await verifyLedger(path, KEY)).toEqual({ ok: true, records: 5 });
      expect(await readLedgerFacts(path, KEY)).toMatchObject({
        ok: false,
        problem: expect.stringMatching(/closing record/),
      });
    });

    it('reports a missing ledger without throwing', async () => {
      expect(await readLedgerFacts(join(dir, 'none.jsonl'), KEY)).toMatchObject({ ok: false, commits: [] });
    });
  });

  describe('canonicalJson', () => {
    it('sorts keys at every depth and drops undefined', () => {
      expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: undefined }], c: 'x' } })).toBe(
        '{"a":{"c":"x","d":[2,{"z":1}]},"b":1}',
      );
    });
  });
});
