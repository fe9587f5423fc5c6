import { blobSha } from './git-objects.js';
import { UpstreamError, type RepoReads } from './upstream.js';

/** REST blob reads allowed beside the batched GraphQL ones, by default: one request each, so capped. */
export const REST_BLOB_LIMIT = 200;
const REST_CONCURRENCY = 8;

export interface BlobReading {
  /** every blob read, by SHA, each checked to hash to its SHA */
  blobs: Map<string, Uint8Array>;
  /** blobs left unread, by SHA, with the reason */
  withheld: Map<string, string>;
  /** how many came over git, from GraphQL, from REST (one request each) */
  byGit: number;
  byGraphql: number;
  byRest: number;
}

/**
 * Many blobs the cheap way: all of them over git's smart HTTP in one or a few fetches (getBlobsOverGit, off
 * the REST and GraphQL budgets); what git did not bring (git refused or missing), text in batched GraphQL
 * calls (getBlobs), the rest (binary, truncated by GitHub, large, or all of them when GraphQL failed) one
 * REST request each, at most `restLimit` of them; beyond that they are withheld, not read one by one. Every
 * blob is checked against its SHA: git's or GraphQL's that does not hash to it goes the next way, a REST
 * answer that does not is refused (UpstreamError invalid), never handed on.
 */
export async function readBlobs(
  reads: Pick<RepoReads, 'getBlob' | 'getBlobs' | 'getBlobsOverGit'>,
  wanted: Array<{ sha: string; size?: number | undefined }>,
  options: { restLimit?: number } = {},
): Promise<BlobReading> {
  const restLimit = options.restLimit ?? REST_BLOB_LIMIT;
  const unique = [...new Map(wanted.map((w) => [w.sha, w])).values()];
  const blobs = new Map<string, Uint8Array>();
  if (reads.getBlobsOverGit)
    for (const [sha, bytes] of await reads.getBlobsOverGit(unique.map((w) => w.sha)))
      // git names objects by their content already; checked again here, as cheap as it is final
      if (blobSha(bytes) === sha) blobs.set(sha, bytes);
  const byGit = blobs.size;
  const unread = unique.filter((w) => !blobs.has(w.sha));
  if (reads.getBlobs && unread.length > 0)
    for (const [sha, bytes] of await reads.getBlobs(unread)) blobs.set(sha, bytes);
  const byGraphql = blobs.size - byGit;
  const missing = unique.filter((w) => !blobs.has(w.sha));
  const withheld = new Map<string, string>();
  for (const { sha } of missing.slice(restLimit))
    withheld.set(sha, `binary or large: more than ${restLimit} such files would take a request each`);
  const queue = missing.slice(0, restLimit);
  const worker = async (): Promise<void> => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const bytes = await reads.getBlob(next.sha);
      if (blobSha(bytes) !== next.sha)
        throw new UpstreamError(
          'invalid',
          `blob ${next.sha}: the content GitHub sent does not hash to its SHA`,
        );
      blobs.set(next.sha, bytes);
    }
  };
  await Promise.all(Array.from({ length: Math.min(REST_CONCURRENCY, queue.length) }, worker));
  return { blobs, withheld, byGit, byGraphql, byRest: blobs.size - byGit - byGraphql };
}
