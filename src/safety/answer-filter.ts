/** What the gateway knows of content safety: one filter every answer passes through, one check every write. */

export interface Redaction {
  text: string;
  /** how many values were replaced */
  hidden: number;
  /** kind of secret ('GitHub token', 'private key', ...) to how many of them were hidden */
  kinds: Record<string, number>;
}

export interface AnswerFilter {
  /** Replaces each secret-looking value with `[hidden: <kind>]`. Throws when detection fails: callers fail closed. */
  redact(text: string): Redaction;
  /** Kinds of credentials in content about to be written, never the values. Empty when clean. */
  findCredentials(text: string): string[];
}

/** The identity filter: hides nothing, finds nothing. */
export const NO_FILTER: AnswerFilter = {
  redact: (text) => ({ text, hidden: 0, kinds: {} }),
  findCredentials: () => [],
};
