import { createHash } from 'node:crypto';
import type { Redaction } from './answer-filter.js';

/** Characters of redacted text kept in all; the oldest entries go first. */
const BUDGET_CHARS = 16 * 1_048_576;

/**
 * Redactions by the SHA-256 of the text they came from. A text's redaction never changes (the filter's
 * rules and extra secrets are fixed when it is made), so a file read again costs a hash, not a scan.
 */
export class RedactionCache {
  private readonly entries = new Map<string, Redaction>();
  private size = 0;

  constructor(private readonly budget = BUDGET_CHARS) {}

  key(text: string): string {
    return createHash('sha256').update(text, 'utf8').digest('base64');
  }

  get(key: string): Redaction | undefined {
    const hit = this.entries.get(key);
    if (hit === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, hit);
    return { ...hit, kinds: { ...hit.kinds } };
  }

  set(key: string, redaction: Redaction): void {
    if (redaction.text.length > this.budget / 4 || this.entries.has(key)) return;
    this.entries.set(key, { ...redaction, kinds: { ...redaction.kinds } });
    this.size += redaction.text.length;
    for (const [oldest, entry] of this.entries) {
      if (this.size <= this.budget) break;
      this.entries.delete(oldest);
      this.size -= entry.text.length;
    }
  }
}
