/** What the gateway knows of content safety: one filter every answer passes through, one check every write. */

export interface Redaction {
  text: string;
  /** how many values were replaced */
  hidden: number;
  /** kind of secret ('GitHub token', 'private key', ...) to how many of them were hidden */
  kinds: Record<string, number>;
  /**
   * Where each hidden value was in the text given (start inclusive, end exclusive, in order), for a caller
   * that must put it back (the workspace's push restores what it handed out as placeholders). Absent from
   * filters that hide nothing.
   */
  spans?: ReadonlyArray<{ readonly start: number; readonly end: number }>;
}

/**
 * Both methods are asynchronous because the detector (secretlint) is. Pass only text: binary content is
 * not scanned, deciding what is binary is the caller's job.
 */
export interface AnswerFilter {
  /** Replaces each secret-looking value with `[hidden: <kind>]`. Rejects when detection fails: callers fail closed. */
  redact(text: string): Promise<Redaction>;
  /** Kinds of credentials in content about to be written, never the values. Empty when clean. Rejects on failure. */
  findCredentials(text: string): Promise<string[]>;
}

/** The identity filter: hides nothing, finds nothing. */
export const NO_FILTER: AnswerFilter = {
  redact: (text) => Promise.resolve({ text, hidden: 0, kinds: {} }),
  findCredentials: () => Promise.resolve([]),
};
