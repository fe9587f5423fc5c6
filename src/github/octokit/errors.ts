import type { Scrubber } from '../../safety/secret-forms.js';
import { UpstreamError, type UpstreamErrorCode } from '../upstream.js';

const MAX_UPSTREAM_MESSAGE = 200;

interface RequestErrorLike {
  status?: number;
  message?: string;
  response?: { headers?: Record<string, string | undefined>; data?: unknown };
}

/**
 * GitHub's own short error message, with the messages of its validation errors (`errors[].message`, where
 * a 422 says what failed), vetted: one line, no control characters, bounded, scrubbed.
 * https://docs.github.com/rest/using-the-rest-api/troubleshooting-the-rest-api#validation-failed
 */
function upstreamMessage(error: RequestErrorLike, scrub: Scrubber): string {
  const data = (error.response?.data ?? {}) as { message?: unknown; errors?: unknown };
  const message = typeof data.message === 'string' ? data.message : '';
  const details = Array.isArray(data.errors)
    ? data.errors
        .map((item) => (item as { message?: unknown } | null)?.message)
        .filter((text): text is string => typeof text === 'string' && text !== '')
    : [];
  const raw = details.length > 0 ? `${message} (${details.join('; ')})` : message;
  // eslint-disable-next-line no-control-regex
  const clean = scrub(raw.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim());
  return clean.length > MAX_UPSTREAM_MESSAGE ? `${clean.slice(0, MAX_UPSTREAM_MESSAGE)}…` : clean;
}

function isRateLimited(error: RequestErrorLike): boolean {
  if (error.status === 429) return true;
  if (error.status !== 403) return false;
  const headers = error.response?.headers ?? {};
  if (headers['x-ratelimit-remaining'] === '0' || headers['retry-after'] !== undefined) return true;
  return /rate limit/i.test(upstreamMessage(error, (text) => text));
}

function codeFor(status: number | undefined, error: RequestErrorLike): UpstreamErrorCode {
  if (status === undefined || status >= 500) return 'unavailable';
  if (isRateLimited(error)) return 'rate_limited';
  if (status === 401 || status === 403) return 'forbidden';
  if (status === 404 || status === 410) return 'not_found';
  if (status === 409) return 'conflict';
  return 'invalid';
}

/** Turns anything thrown by Octokit into an UpstreamError whose message names the operation, never a secret. */
export function toUpstreamError(error: unknown, operation: string, scrub: Scrubber): UpstreamError {
  if (error instanceof UpstreamError) return error;
  const e = (error && typeof error === 'object' ? error : {}) as RequestErrorLike;
  const status = typeof e.status === 'number' ? e.status : undefined;
  const hasResponse = e.response !== undefined;
  if (!hasResponse) {
    const reason = scrub(String(e.message ?? error)).slice(0, MAX_UPSTREAM_MESSAGE);
    return new UpstreamError('unavailable', `${operation}: GitHub could not be reached (${reason})`);
  }
  const code = codeFor(status, e);
  const detail = upstreamMessage(e, scrub);
  const text = `${operation}: GitHub answered ${status}${detail ? `: ${detail}` : ''}`;
  return new UpstreamError(code, code === 'rate_limited' ? `${text} (rate limited)` : text, status);
}
