import type { AnswerFilter } from './answer-filter.js';
import { decodeText, readableRuns } from './binary-text.js';

/** What a scan of one file's content found: kinds of credentials (never values), and what it could not see. */
export interface ContentScan {
  kinds: string[];
  /** why part of the content could not be scanned (a compressed or encrypted binary format), or null */
  unscanned: string | null;
}

/**
 * The credentials in a file's content: text as it is, binary by its readable runs (what is compressed or
 * encrypted cannot be scanned, and says so). The gateway refuses a push by this scan and every judge of a
 * commit (the receipt, apply, the gate, replay) refuses a commit by it, so no route lands a weaker commit.
 */
export async function scanContent(
  filter: AnswerFilter,
  bytes: Uint8Array,
  text: string | null = decodeText(bytes),
): Promise<ContentScan> {
  if (text !== null) return { kinds: unique(await filter.findCredentials(text)), unscanned: null };
  const runs = readableRuns(bytes);
  return {
    kinds: unique(await filter.findCredentials(runs.text)),
    unscanned: runs.packed === null ? null : `${runs.packed}; only its uncompressed parts were scanned`,
  };
}

const unique = (kinds: string[]): string[] => [...new Set(kinds)];
