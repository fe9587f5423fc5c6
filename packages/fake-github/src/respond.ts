import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DOCS, EncodedJson } from './http-util.js';

export function errorBody(status: number, message: string): Record<string, unknown> {
  return { message, documentation_url: DOCS, status: String(status) };
}

export const RATE_LIMITED =
  'API rate limit exceeded for installation. If you reach out to GitHub Support for help, please include the request ID.';
export const SECONDARY_LIMITED =
  'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.';

/** Serializes an answer body once: JSON, or raw bytes for the raw media type. */
export function encodeBody(body: unknown): Buffer {
  if (Buffer.isBuffer(body)) return body;
  if (body instanceof EncodedJson) return Buffer.from(body.text);
  return body === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(body));
}

export function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  sendEncoded(res, status, encodeBody(body), Buffer.isBuffer(body), headers);
}

/** Sends an already encoded body (`raw` = bytes of the raw media type rather than JSON). */
export function sendEncoded(
  res: ServerResponse,
  status: number,
  data: Buffer,
  raw: boolean,
  headers: Record<string, string>,
): void {
  res.writeHead(status, {
    'content-type': raw ? 'application/octet-stream' : 'application/json; charset=utf-8',
    'x-github-media-type': 'github.v3; format=json',
    'x-github-request-id': randomUUID(),
    ...headers,
  });
  res.end(status === 204 || status === 304 ? undefined : data);
}

/**
 * The login of the presented token: undefined when none was presented, null when it is unknown.
 * REST takes `token X`, `Bearer X` or Basic with the token as password; git takes Basic only.
 */
export function identify(
  req: IncomingMessage,
  tokens: Map<string, string>,
  gitOnly: boolean,
): string | null | undefined {
  const presented = presentedToken(req, gitOnly);
  return presented === undefined ? undefined : (tokens.get(presented) ?? null);
}

/** The login of a REST or GraphQL request's token; null after answering 401 as GitHub does when there is none. */
export function authenticated(
  req: IncomingMessage,
  res: ServerResponse,
  tokens: Map<string, string>,
): string | null {
  const login = identify(req, tokens, false);
  if (login) return login;
  send(res, 401, errorBody(401, login === undefined ? 'Requires authentication' : 'Bad credentials'));
  return null;
}

/** The token a request presents ('' for a scheme that does not count), undefined when there is none. */
export function presentedToken(req: IncomingMessage, gitOnly: boolean): string | undefined {
  const header = String(req.headers.authorization ?? '');
  if (header === '') return undefined;
  const [scheme = '', value = ''] = header.split(/\s+/, 2);
  if (/^basic$/i.test(scheme)) {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    return decoded.slice(decoded.indexOf(':') + 1);
  }
  return !gitOnly && /^(token|bearer)$/i.test(scheme) ? value : '';
}

/**
 * GitHub's answer to a GITHUB_TOKEN without the permission a request needs (e.g. `contents: read` and a
 * write): 403 "Resource not accessible by integration".
 * https://docs.github.com/actions/security-for-github-actions/security-guides/automatic-token-authentication#modifying-the-permissions-for-the-github_token
 */
export const NOT_ACCESSIBLE = 'Resource not accessible by integration';
