import { createHash, timingSafeEqual } from 'node:crypto';

/** SHA-256 of a secret: compared digest to digest, so neither content nor length leaks through timing. */
export function secretDigest(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/** Whether an Authorization header carries the bearer secret with this digest. */
export function bearerMatches(header: string | undefined, expected: Buffer): boolean {
  const match = /^Bearer +(\S+) *$/i.exec(header ?? '');
  const given = secretDigest(match?.[1] ?? '');
  return timingSafeEqual(given, expected) && match !== null;
}

const LOOPBACK_HOST = /^(?:127\.0\.0\.1|localhost|\[::1\])(?::(\d{1,5}))?$/i;

/**
 * DNS rebinding protection: a browser page on another name resolving to 127.0.0.1 still sends its own
 * name in Host, and its own origin in Origin.
 */
export function loopbackRequest(host: string | undefined, origin: string | undefined): boolean {
  if (host === undefined || !LOOPBACK_HOST.test(host)) return false;
  if (origin === undefined) return true;
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_HOST.test(url.host);
  } catch {
    return false;
  }
}
