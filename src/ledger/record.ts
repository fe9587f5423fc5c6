import { createHmac } from 'node:crypto';

/**
 * The ledger's record format: JSONL, one record per line, each carrying the previous record's MAC (`prev`)
 * and its own (`mac`), an HMAC-SHA256 with the ledger key over the canonical JSON of the record without
 * `mac`. Removing, reordering or editing any record breaks the chain from there on.
 */

export const GENESIS = '0'.repeat(64);

/** Length and SHA-256 of bytes the ledger records without keeping them (a commit message, file contents). */
export interface Digest {
  length: number;
  sha256: string;
}

/**
 * Why a refused call was refused, as a field the post step counts (the prose is in `reason`).
 * `credential`: push_files found what looks like a credential in a file, a path or the commit message.
 */
export type RefusalKind = 'credential';

export interface CallRecord {
  event: 'call';
  perimeter: string;
  tool: string;
  paths: string[];
  sha?: string;
  decision: 'allowed' | 'refused' | 'failed';
  reason?: string;
  /** the kinds of refusal `reason` lists, when it lists any the receipt counts */
  refused_for?: RefusalKind[];
  upstream: { requests: number; not_modified: number; git?: number; exact: boolean };
  duration_ms: number;
  commit?: string;
  message?: Digest;
  content?: Array<{ path: string } & Digest>;
  hidden_values?: number;
  /** kind of secret to how many values of it were hidden (never the values) */
  hidden_kinds?: Record<string, number>;
  /** request_scope: the glob the agent asked to write, and why */
  scope?: { glob: string; reason: string };
}

export interface LifecycleRecord {
  event: 'start' | 'stop';
  repository?: string;
  branch?: string;
  perimeters?: string[];
}

export type LedgerEntry = CallRecord | LifecycleRecord;
export type SealedRecord = LedgerEntry & { seq: number; time: string; prev: string; mac: string };

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

export function macOf(key: string, record: Omit<SealedRecord, 'mac'>): string {
  return createHmac('sha256', key).update(canonicalJson(record)).digest('hex');
}
