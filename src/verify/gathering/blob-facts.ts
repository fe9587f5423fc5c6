import { readBlobs, type RepoReads } from '../../github/index.js';
import { scanContent, type AnswerFilter } from '../../safety/index.js';
import type { BlobFacts, Change } from '../change.js';

/** a submodule's entry names a commit, not a blob */
const SUBMODULE = '160000';

export interface BlobFactsReading {
  /** by blob SHA: what judgeCommit needs of every blob the commits add or modify */
  facts: Map<string, BlobFacts>;
  /** blobs that could not be read or only partly scanned, and why: unchecked, never success */
  unread: string[];
}

/**
 * The size and the credentials of every blob the given changes add or modify, read the cheap way (readBlobs:
 * over git first) and scanned as the gateway scans a push (scanContent). A blob that could not be read is
 * missing from `facts`, so judgeCommit calls its commit unchecked rather than judging it blind.
 */
export async function readBlobFacts(
  reads: Pick<RepoReads, 'getBlob' | 'getBlobs' | 'getBlobsOverGit'>,
  changes: readonly Change[],
  filter: AnswerFilter,
): Promise<BlobFactsReading> {
  const wanted = [
    ...new Set(
      changes.flatMap((c) =>
        c.kind !== 'deleted' && c.newSha !== undefined && c.newMode !== SUBMODULE ? [c.newSha] : [],
      ),
    ),
  ];
  const facts = new Map<string, BlobFacts>();
  if (wanted.length === 0) return { facts, unread: [] };
  const reading = await readBlobs(
    reads,
    wanted.map((sha) => ({ sha })),
  );
  const unread = [...reading.withheld].map(([sha, why]) => `blob ${sha.slice(0, 7)}: ${why}`);
  for (const [sha, bytes] of reading.blobs) facts.set(sha, await blobFactsOf(bytes, filter));
  return { facts, unread };
}

/** One blob's size and the credentials in it, scanned as the gateway scans a push (scanContent). */
export async function blobFactsOf(bytes: Uint8Array, filter: AnswerFilter): Promise<BlobFacts> {
  return { size: bytes.byteLength, credentials: (await scanContent(filter, bytes)).kinds };
}
