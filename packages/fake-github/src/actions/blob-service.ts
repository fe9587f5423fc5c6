import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ArtifactStore } from './artifact-store.js';
import { readBody } from '../http-util.js';

/**
 * The blob storage behind a signed artifact URL, as the Azure SDK (@azure/storage-blob, which
 * @actions/artifact uploads with) and a plain GET use it: Put Block (`?comp=block&blockid=`), Put Block List
 * (`?comp=blocklist`, XML), Put Blob, Get Blob. The URL's signature, expiry and permissions are checked on
 * every request; errors are Azure's XML. https://learn.microsoft.com/rest/api/storageservices/put-block-list
 */
function fail(res: ServerResponse, status: number, code: string, message: string): void {
  res.writeHead(status, { 'content-type': 'application/xml', 'x-ms-error-code': code });
  res.end(
    `<?xml version="1.0" encoding="utf-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`,
  );
}

function done(
  res: ServerResponse,
  status: number,
  headers: Record<string, string> = {},
  body?: Buffer,
): void {
  res.writeHead(status, {
    'x-ms-request-id': randomUUID(),
    'x-ms-version': '2025-01-05',
    date: new Date().toUTCString(),
    ...headers,
  });
  res.end(body);
}

/** The permission a request needs from the URL's `sp`. */
const needs = (method: string): string => (method === 'GET' || method === 'HEAD' ? 'r' : 'w');

export async function handleBlob(
  store: ArtifactStore,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  const method = req.method ?? 'GET';
  const q = url.searchParams;
  const [sp, se, sig] = [q.get('sp') ?? '', q.get('se') ?? '', q.get('sig') ?? ''];
  if (sig === '' || sig !== store.signature(url.pathname, sp, se))
    return fail(
      res,
      403,
      'AuthenticationFailed',
      'Server failed to authenticate the request. Make sure the value of Authorization header is formed correctly including the signature.',
    );
  if (!(Date.parse(se) > Date.now()))
    return fail(res, 403, 'AuthenticationFailed', 'Signed expiry time has passed.');
  if (!sp.includes(needs(method)))
    return fail(
      res,
      403,
      'AuthorizationPermissionMismatch',
      'This request is not authorized to perform this operation using this permission.',
    );
  const artifact = store.byBlobPath(url.pathname);
  const blob = store.blobs.get(url.pathname);
  if (!artifact || !blob) return fail(res, 404, 'BlobNotFound', 'The specified blob does not exist.');

  if (method === 'GET' || method === 'HEAD') {
    if (!blob.committed) return fail(res, 404, 'BlobNotFound', 'The specified blob does not exist.');
    return done(
      res,
      200,
      {
        'content-type': blob.contentType,
        'content-length': String(blob.committed.length),
        'x-ms-blob-type': 'BlockBlob',
      },
      method === 'GET' ? blob.committed : undefined,
    );
  }
  if (method !== 'PUT')
    return fail(res, 405, 'UnsupportedHttpVerb', "The resource doesn't support the specified HTTP verb.");
  // GitHub seals an artifact when it is finalized: its content never changes after that.
  if (artifact.finalizedAt)
    return fail(
      res,
      409,
      'BlobImmutableDueToPolicy',
      'This operation is not permitted as the blob is immutable due to a policy.',
    );

  const body = await readBody(req);
  const comp = q.get('comp');
  if (comp === 'block') {
    const id = q.get('blockid') ?? '';
    const raw = Buffer.from(id, 'base64');
    const sameLength = [...blob.staged.keys()].every((other) => other.length === id.length);
    if (id === '' || raw.length > 64 || raw.toString('base64') !== id || !sameLength)
      return fail(
        res,
        400,
        'InvalidQueryParameterValue',
        'Value for one of the query parameters specified in the request URI is invalid.',
      );
    blob.staged.set(id, body);
    return done(res, 201, { 'x-ms-request-server-encrypted': 'true' });
  }
  if (comp === 'blocklist') {
    const ids = [...body.toString('utf8').matchAll(/<(Latest|Uncommitted)>([^<]*)<\/\1>/g)].map((m) => m[2]!);
    if (ids.length === 0 || ids.some((id) => !blob.staged.has(id)))
      return fail(res, 400, 'InvalidBlockList', 'The specified block list is invalid.');
    blob.committed = Buffer.concat(ids.map((id) => blob.staged.get(id)!));
    blob.staged.clear();
    blob.contentType = String(req.headers['x-ms-blob-content-type'] ?? blob.contentType);
    return done(res, 201, {
      etag: `"0x${Date.now().toString(16)}"`,
      'last-modified': new Date().toUTCString(),
    });
  }
  if (comp === null && req.headers['x-ms-blob-type'] === 'BlockBlob') {
    blob.committed = body;
    blob.contentType = String(
      req.headers['x-ms-blob-content-type'] ?? req.headers['content-type'] ?? blob.contentType,
    );
    return done(res, 201, {
      etag: `"0x${Date.now().toString(16)}"`,
      'last-modified': new Date().toUTCString(),
    });
  }
  return fail(
    res,
    400,
    'InvalidQueryParameterValue',
    'Value for one of the query parameters specified in the request URI is invalid.',
  );
}
