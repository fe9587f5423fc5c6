import { blobSha } from '../git-objects.js';

/**
 * Many blobs in one GraphQL call: each asked by its SHA under an alias (`object(oid:)`), as text. A Blob's
 * fields are `byteSize`, `isBinary`, `isTruncated` and `text` ("UTF8 text data or null if the Blob is
 * binary") (https://docs.github.com/en/graphql/reference/objects#blob). No connection is asked for, so the
 * call costs 1 point of GraphQL's own budget, apart from REST's 1,000 requests an hour
 * (https://docs.github.com/en/graphql/overview/rate-limits-and-query-limits-for-the-graphql-api).
 *
 * GitHub documents neither the size above which `text` is truncated nor a cap on aliases; a call asks for at
 * most BLOBS_PER_CALL blobs and BYTES_PER_CALL bytes by their tree entries' sizes (our choice, far below the
 * 10-second timeout GitHub ends calls at), and only blobs up to GRAPHQL_BLOB_MAX bytes. What GraphQL cannot
 * prove (binary, truncated, text that does not hash to the SHA asked) is for REST.
 */
export const BLOBS_PER_CALL = 100;
export const BYTES_PER_CALL = 4 * 1024 * 1024;
/** larger blobs go to REST at once: the contents API too answers whole only up to 1 MB */
export const GRAPHQL_BLOB_MAX = 1024 * 1024;

export interface BlobWanted {
  sha: string;
  /** the size its tree entry gives; unknown sizes count as GRAPHQL_BLOB_MAX */
  size?: number | undefined;
}

/** The query for these blobs (SHAs already checked as 40 hex digits). */
export function blobsQuery(shas: string[]): string {
  const aliases = shas.map(
    (sha, i) => `b${i}: object(oid: "${sha}") { ... on Blob { byteSize isBinary isTruncated text } }`,
  );
  return `query($owner: String!, $name: String!) { repository(owner: $owner, name: $name) { ${aliases.join(' ')} } }`;
}

export interface BlobsAnswer {
  repository: Record<
    string,
    { byteSize?: number; isBinary?: boolean; isTruncated?: boolean; text?: string | null } | null
  > | null;
}

/** The blobs to ask GraphQL for, in calls of at most BLOBS_PER_CALL blobs and BYTES_PER_CALL bytes. */
export function blobCalls(wanted: BlobWanted[]): { calls: string[][]; rest: string[] } {
  const calls: string[][] = [];
  const rest: string[] = [];
  let call: string[] = [];
  let bytes = 0;
  for (const { sha, size } of wanted) {
    const weight = size ?? GRAPHQL_BLOB_MAX;
    if (weight > GRAPHQL_BLOB_MAX) {
      rest.push(sha);
      continue;
    }
    if (call.length > 0 && (call.length >= BLOBS_PER_CALL || bytes + weight > BYTES_PER_CALL)) {
      calls.push(call);
      call = [];
      bytes = 0;
    }
    call.push(sha);
    bytes += weight;
  }
  if (call.length > 0) calls.push(call);
  return { calls, rest };
}

/**
 * The contents the answer proves, by SHA: a blob is kept only when it is text, not truncated, and its UTF-8
 * bytes hash to the SHA it was asked under (so a lossy decoding of a non-UTF-8 file is never taken for it).
 */
export function blobsOf(shas: string[], answer: BlobsAnswer): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  shas.forEach((sha, i) => {
    const blob = answer.repository?.[`b${i}`];
    if (!blob || blob.isBinary !== false || blob.isTruncated !== false || typeof blob.text !== 'string')
      return;
    const bytes = new Uint8Array(Buffer.from(blob.text, 'utf8'));
    if (bytes.byteLength !== blob.byteSize || blobSha(bytes) !== sha) return;
    out.set(sha, bytes);
  });
  return out;
}
