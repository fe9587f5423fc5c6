import type { AnswerFilter } from '../safety/answer-filter.js';
import { neutralize } from '../safety/neutralize.js';

/** Between strings redacted in one batch: plain and low in entropy, so no detector mistakes it for a secret. */
const BOUNDARY = '\n\n--- perimeter answer boundary ---\n\n';
/** Strings this long are redacted one by one rather than in the batch. */
const ALONE_CHARS = 4096;

/**
 * Runs every string of a value through the filter, counting what it hid. Distinct strings go in one
 * batch (a detector call per string is slow for a tree of thousands of paths); when the batch does not
 * split back cleanly, each string is redacted on its own.
 */
export class Redactor {
  hidden = 0;
  readonly kinds: Record<string, number> = {};
  /** spans made visible (with `neutralize`): invisible characters, hidden tag text, HTML comments */
  readonly neutralized: { count: number; kinds: Record<string, number> } = { count: 0, kinds: {} };
  private readonly done = new Map<string, string>();

  constructor(
    private readonly filter: AnswerFilter,
    private readonly options: { neutralize?: boolean } = {},
  ) {}

  async redact(text: string): Promise<string> {
    await this.redactAll([text]);
    return this.done.get(text)!;
  }

  async walk<T>(value: T): Promise<T> {
    const strings: string[] = [];
    collect(value, strings);
    await this.redactAll(strings);
    return this.rebuild(value);
  }

  private async redactAll(strings: string[]): Promise<void> {
    const unique = [...new Set(strings)].filter((s) => !this.done.has(s));
    // a large text (a file's content) goes on its own, so a filter that caches by text finds it again
    const pending = unique.filter((s) => s.length < ALONE_CHARS);
    for (const text of unique.filter((s) => s.length >= ALONE_CHARS)) await this.redactOne(text);
    if (pending.length === 0) return;
    if (pending.length > 1 && !pending.some((s) => s.includes(BOUNDARY))) {
      const batch = await this.filter.redact(pending.join(BOUNDARY));
      const parts = batch.text.split(BOUNDARY);
      if (parts.length === pending.length) {
        this.count(batch);
        pending.forEach((s, i) => this.done.set(s, this.shown(parts[i]!)));
        return;
      }
    }
    for (const text of pending) await this.redactOne(text);
  }

  private async redactOne(text: string): Promise<void> {
    const redaction = await this.filter.redact(text);
    this.count(redaction);
    this.done.set(text, this.shown(redaction.text));
  }

  /** The redacted text as the agent gets it: with `neutralize`, hidden spans made visible and counted. */
  private shown(redacted: string): string {
    if (!this.options.neutralize) return redacted;
    const { text, count, kinds } = neutralize(redacted);
    this.neutralized.count += count;
    for (const [kind, n] of Object.entries(kinds))
      this.neutralized.kinds[kind] = (this.neutralized.kinds[kind] ?? 0) + n;
    return text;
  }

  private count(redaction: { hidden: number; kinds: Record<string, number> }): void {
    this.hidden += redaction.hidden;
    for (const [kind, n] of Object.entries(redaction.kinds)) this.kinds[kind] = (this.kinds[kind] ?? 0) + n;
  }

  private rebuild<T>(value: T): T {
    if (typeof value === 'string') return this.done.get(value) as T;
    if (Array.isArray(value)) return value.map((v: unknown) => this.rebuild(v)) as T;
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.rebuild(v)])) as T;
    }
    return value;
  }
}

function collect(value: unknown, out: string[]): void {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) collect(v, out);
  else if (value !== null && typeof value === 'object') for (const v of Object.values(value)) collect(v, out);
}
