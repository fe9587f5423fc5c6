import { timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { GENESIS, macOf, type SealedRecord } from './record.js';

export interface LedgerVerdict {
  ok: boolean;
  records: number;
  /** 1-based number of the first record that does not verify */
  brokenAt?: number;
  problem?: string;
}

/**
 * The chain check, with the records that verified (all of them when ok, those before the break if not).
 * `key` null: every record read, numbered and linked to the one before, but no MAC checked. That shows the
 * ledger is whole as written, not who wrote it: without the key anyone could have.
 */
export function checkChain(text: string, key: string | null): LedgerVerdict & { verified: SealedRecord[] } {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const verified: SealedRecord[] = [];
  let prev = GENESIS;
  for (const [i, line] of lines.entries()) {
    const broken = (problem: string): LedgerVerdict & { verified: SealedRecord[] } => ({
      ok: false,
      records: lines.length,
      brokenAt: i + 1,
      problem: `record ${i + 1}: ${problem}`,
      verified,
    });
    let record: SealedRecord;
    try {
      record = JSON.parse(line) as SealedRecord;
    } catch {
      return broken('not valid JSON');
    }
    if (typeof record !== 'object' || record === null || typeof record.mac !== 'string')
      return broken('no MAC');
    if (record.prev !== prev) return broken('does not follow the previous record');
    if (record.seq !== i + 1) return broken(`sequence number ${String(record.seq)}, expected ${i + 1}`);
    const { mac, ...unsealed } = record;
    if (key !== null) {
      const expected = Buffer.from(macOf(key, unsealed), 'hex');
      const given = Buffer.from(mac, 'hex');
      if (given.length !== expected.length || !timingSafeEqual(given, expected))
        return broken('MAC does not match');
    }
    verified.push(record);
    prev = mac;
  }
  return { ok: true, records: lines.length, verified };
}

/** Checks a ledger file's chain. */
export async function verifyLedger(path: string, key: string): Promise<LedgerVerdict> {
  const { verified: _verified, ...verdict } = checkChain(await readFile(path, 'utf8'), key);
  return verdict;
}
