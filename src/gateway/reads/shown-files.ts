import { readBlobs } from '../../github/index.js';
import type { AnswerFilter } from '../../safety/answer-filter.js';
import { decodeText } from '../../safety/binary-text.js';
import { Redactor } from '../redactor.js';
import { MAX_READ_BYTES } from './file-answer.js';
import type { RepoView } from './repo-view.js';

/**
 * A blob's text as the tools that decide on content see it: what the secret filter leaves of it, each hidden
 * value already a `[hidden: <kind>]` placeholder, the placeholder that get_file shows in its place. Search
 * matches this text, blame and diff compare it, so no match, no line number and no changed line can depend on
 * a value the filter hides. `note` instead of `text` for what get_file does not show as text either.
 */
export type ShownBlob = { text: string } | { note: string };

/** Texts redacted in one filter call at most: the filter's batches stay small enough to cache. */
const BATCH_CHARS = 512 * 1024;
/** Characters of shown text kept per view; the oldest go first. Blobs never change, so a hit is always right. */
const CACHE_CHARS = 64 * 1_048_576;

interface Cache {
  texts: Map<string, ShownBlob>;
  size: number;
}
const caches = new WeakMap<RepoView, Cache>();

/**
 * The shown text of many blobs (by SHA, with their sizes from the tree), read together: over git in one or a
 * few fetches where the upstream has it (readBlobs), never one request per file; a blob that could not be
 * read is in the answer with a note. Callers pass readable files only: what is asked for here is read.
 */
export async function shownBlobs(
  view: RepoView,
  filter: AnswerFilter,
  wanted: ReadonlyArray<{ sha: string; size?: number | undefined }>,
): Promise<Map<string, ShownBlob>> {
  let cache = caches.get(view);
  if (!cache) caches.set(view, (cache = { texts: new Map(), size: 0 }));
  const out = new Map<string, ShownBlob>();
  const toRead: Array<{ sha: string; size?: number | undefined }> = [];
  for (const blob of wanted) {
    const known = cache.texts.get(blob.sha);
    if (known) out.set(blob.sha, known);
    else if (blob.size !== undefined && blob.size > MAX_READ_BYTES) out.set(blob.sha, tooLarge(blob.size));
    else if (!out.has(blob.sha)) toRead.push(blob);
  }
  if (toRead.length === 0) return out;
  const { blobs, withheld } = await readBlobs(view.upstream, toRead);
  const texts: Array<{ sha: string; text: string }> = [];
  for (const { sha } of toRead) {
    const bytes = blobs.get(sha);
    if (!bytes) {
      out.set(sha, { note: `not read: ${withheld.get(sha) ?? 'GitHub did not send it'}` });
      continue;
    }
    if (bytes.length > MAX_READ_BYTES) {
      remember(cache, sha, tooLarge(bytes.length));
      out.set(sha, tooLarge(bytes.length));
      continue;
    }
    const text = decodeText(bytes);
    if (text === null) {
      const binary = { note: `binary file, ${bytes.length} bytes` };
      remember(cache, sha, binary);
      out.set(sha, binary);
    } else texts.push({ sha, text });
  }
  for (let i = 0; i < texts.length;) {
    const batch: typeof texts = [];
    for (let chars = 0; i < texts.length && (batch.length === 0 || chars < BATCH_CHARS); i++) {
      batch.push(texts[i]!);
      chars += texts[i]!.text.length;
    }
    // rejects when the filter fails: the caller's answer fails closed, as every answer does
    const redacted = await new Redactor(filter).walk(batch.map((b) => b.text));
    batch.forEach(({ sha }, j) => {
      const shown = { text: redacted[j]! };
      remember(cache, sha, shown);
      out.set(sha, shown);
    });
  }
  return out;
}

function tooLarge(size: number): ShownBlob {
  return { note: `file too large to show: ${size} bytes, the limit is ${MAX_READ_BYTES}` };
}

function remember(cache: Cache, sha: string, shown: ShownBlob): void {
  if (cache.texts.has(sha)) return;
  cache.texts.set(sha, shown);
  cache.size += 'text' in shown ? shown.text.length : 0;
  for (const [oldest, entry] of cache.texts) {
    if (cache.size <= CACHE_CHARS) break;
    cache.texts.delete(oldest);
    cache.size -= 'text' in entry ? entry.text.length : 0;
  }
}

/** A shown text's lines, without their line ends (a last line end starts no line). */
export function linesOf(text: string): string[] {
  const lines = text.split(/\r?\n/);
  if (lines.length > 1 && lines.at(-1) === '') lines.pop();
  return lines;
}
