import { createHmac, timingSafeEqual } from 'node:crypto';
import { open, readFile, type FileHandle } from 'node:fs/promises';

/**
 * The gateway's record of every call: JSONL, one record per line, each carrying the previous record's
 * MAC (`prev`) and its own (`mac`), an HMAC-SHA256 with the ledger key over the canonical JSON of the
 * record without `mac`. Removing, reordering or editing any record breaks the chain from there on.
 */

export const GENESIS = '0'.repeat(64);

export interface Digest {
  length: number;
  sha256: string;
}

export interface CallRecord {
  event: 'call';
  perimeter: string;
  tool: string;
  paths: string[];
  sha?: string;
  decision: 'allowed' | 'refused' | 'failed';
  reason?: string;
  upstream: { requests: number; not_modified: number; exact: boolean };
  duration_ms: number;
  commit?: string;
  message?: Digest;
  content?: Array<{ path: string } & Digest>;
  hidden_values?: number;
  /** kind of secret to how many values of it were hidden (never the values) */
  hidden_kinds?: Record<string, number>;
}

export interface LifecycleRecord {
  event: 'start' | 'stop';
  repository?: string;
  branch?: string;
  perimeters?: string[];
}

export type LedgerEntry = CallRecord | LifecycleRecord;
export type SealedRecord = LedgerEntry & { seq: number; time: string; prev: string; mac: string };

export interface LedgerFacts {
  ok: boolean;
  problem?: string;
  commits: string[];
  perPerimeter: Record<string, PerimeterCounts>;
}

/** Per perimeter: calls, refusals, and (when any) values hidden from answers and pushes refused for credentials. */
export interface PerimeterCounts {
  calls: number;
  refusals: number;
  hidden?: number;
  credentialRefusals?: number;
}

/** How push_files words a refusal for a credential in a file, a path or the commit message (src/gateway/push.ts). */
const CREDENTIAL_REFUSAL = /looks like it contains a credential/;

export interface LedgerVerdict {
  ok: boolean;
  records: number;
  /** 1-based number of the first record that does not verify */
  brokenAt?: number;
  problem?: string;
}

/** JSON with object keys sorted at every depth: the bytes the MAC covers. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function macOf(key: string, record: Omit<SealedRecord, 'mac'>): string {
  return createHmac('sha256', key).update(canonicalJson(record)).digest('hex');
}

export class Ledger {
  private chain: Promise<void> = Promise.resolve();
  private failure: Error | null = null;

  private constructor(
    private readonly handle: FileHandle,
    private readonly key: string,
    private prev: string,
    private seq: number,
  ) {}

  /** Opens a ledger for appending; an existing file must verify, and its chain is continued. */
  static async open(path: string, key: string): Promise<Ledger> {
    if (key.length === 0) throw new Error('the ledger key is empty');
    let prev = GENESIS;
    let seq = 0;
    const existing = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return null;
      throw error;
    });
    if (existing !== null && existing.length > 0) {
      const verdict = verifyText(existing, key);
      if (!verdict.ok) throw new Error(`the existing ledger ${path} does not verify: ${verdict.problem}`);
      const last = JSON.parse(existing.trimEnd().split('\n').pop()!) as SealedRecord;
      prev = last.mac;
      seq = last.seq;
    }
    return new Ledger(await open(path, 'a', 0o600), key, prev, seq);
  }

  /** Appends one record; appends run strictly one after another. */
  append(entry: LedgerEntry): Promise<void> {
    const next = this.chain.then(async () => {
      if (this.failure) throw this.failure;
      const unsealed = { ...entry, seq: this.seq + 1, time: new Date().toISOString(), prev: this.prev };
      const sealed = { ...unsealed, mac: macOf(this.key, unsealed) };
      try {
        await this.handle.appendFile(`${JSON.stringify(sealed)}\n`);
      } catch (error) {
        this.failure = error as Error;
        throw error;
      }
      this.seq = sealed.seq;
      this.prev = sealed.mac;
    });
    this.chain = next.catch(() => undefined);
    return next;
  }

  async close(): Promise<void> {
    await this.chain;
    await this.handle.close();
  }
}

function verifyText(text: string, key: string): LedgerVerdict & { records_: SealedRecord[] } {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const records: SealedRecord[] = [];
  let prev = GENESIS;
  for (const [i, line] of lines.entries()) {
    const broken = (problem: string): LedgerVerdict & { records_: SealedRecord[] } => ({
      ok: false,
      records: lines.length,
      brokenAt: i + 1,
      problem: `record ${i + 1}: ${problem}`,
      records_: records,
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
    const expected = Buffer.from(macOf(key, unsealed), 'hex');
    const given = Buffer.from(mac, 'hex');
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      return broken('MAC does not match');
    records.push(record);
    prev = mac;
  }
  return { ok: true, records: lines.length, records_: records };
}

export async function verifyLedger(path: string, key: string): Promise<LedgerVerdict> {
  const { records_: _records, ...verdict } = verifyText(await readFile(path, 'utf8'), key);
  return verdict;
}

/** What the post step needs from a ledger; never throws, a missing or broken ledger is a problem. */
export async function readLedgerFacts(path: string, key: string): Promise<LedgerFacts> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    return {
      ok: false,
      problem: `cannot read the ledger: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
      commits: [],
      perPerimeter: {},
    };
  }
  const verdict = verifyText(text, key);
  const facts: LedgerFacts = { ok: verdict.ok, commits: [], perPerimeter: {} };
  for (const record of verdict.records_) {
    if (record.event === 'start')
      for (const name of record.perimeters ?? []) facts.perPerimeter[name] ??= { calls: 0, refusals: 0 };
    if (record.event !== 'call') continue;
    const counts = (facts.perPerimeter[record.perimeter] ??= { calls: 0, refusals: 0 });
    counts.calls++;
    if (record.decision === 'refused') counts.refusals++;
    if (record.hidden_values) counts.hidden = (counts.hidden ?? 0) + record.hidden_values;
    if (
      record.decision === 'refused' &&
      record.tool === 'push_files' &&
      CREDENTIAL_REFUSAL.test(record.reason ?? '')
    )
      counts.credentialRefusals = (counts.credentialRefusals ?? 0) + 1;
    if (record.commit) facts.commits.push(record.commit);
  }
  if (!verdict.ok) facts.problem = `the ledger is broken at ${verdict.problem}`;
  else if (verdict.records_.length === 0) {
    facts.ok = false;
    facts.problem = 'the ledger is empty';
  } else if (verdict.records_[verdict.records_.length - 1]!.event !== 'stop') {
    facts.ok = false;
    facts.problem = 'the ledger has no closing record: the gateway did not stop cleanly';
  }
  return facts;
}
