import { RANK, type Finding } from '../finding.js';
import { BASE64_RUN, MAX_RUN } from './layers.js';

/**
 * A private key's body without its BEGIN and END lines: lines of base64 (indented, as in YAML, or not),
 * or one run of it, whose bytes are a DER private key or an OpenSSH key. A certificate's or a public key's
 * body stays: it is recognised by its structure, not hidden for looking like base64.
 */

/** Two or more lines of base64 alone on their lines, and a shorter last line. */
const PEM_BODY =
  /(?:^[ \t]*[A-Za-z0-9+/]{40,128}={0,2}[ \t]*\r?\n){2,}(?:[ \t]*[A-Za-z0-9+/]{4,128}={0,2}[ \t]*$)?/gm;
/** base64 of `openssh-key-v1`: an OpenSSH private key's body. */
const OPENSSH_BODY = /^b3BlbnNzaC1rZXktdjE/;
/** The smallest DER private key (an Ed25519 PKCS#8 key) is 48 bytes: 64 characters of base64. */
const MIN_KEY_RUN = 64;

/**
 * A DER private key: a SEQUENCE whose first element is the INTEGER version 0 or 1 (PKCS#1, PKCS#8,
 * SEC1, DSA). A certificate or a public key opens its SEQUENCE with another SEQUENCE, or with a long
 * INTEGER (an RSA modulus), so it stays.
 */
function derPrivateKey(bytes: Buffer): boolean {
  if (bytes[0] !== 0x30) return false;
  const lengthBytes = bytes[1]! < 0x80 ? 0 : bytes[1]! - 0x80;
  if (lengthBytes > 4) return false;
  const at = 2 + lengthBytes;
  return bytes[at] === 0x02 && bytes[at + 1] === 0x01 && (bytes[at + 2] === 0x00 || bytes[at + 2] === 0x01);
}

export function isKeyBody(base64: string): boolean {
  return OPENSSH_BODY.test(base64) || derPrivateKey(Buffer.from(base64.slice(0, 16), 'base64'));
}

const finding = (start: number, end: number): Finding => ({
  start,
  end,
  kind: 'private key',
  credential: true,
  rank: RANK.format,
});

export function pemBodyFindings(text: string): Finding[] {
  const found: Finding[] = [];
  for (const m of text.matchAll(PEM_BODY)) {
    const joined = m[0].replace(/\s+/g, '');
    if (joined.length > MAX_RUN || !isKeyBody(joined)) continue;
    found.push(finding(m.index + (m[0].length - m[0].trimStart().length), m.index + m[0].trimEnd().length));
  }
  const bodies = found.length;
  let body = 0;
  for (const m of text.matchAll(BASE64_RUN)) {
    // a line of a body found above is no key of its own
    while (body < bodies && found[body]!.end <= m.index) body++;
    if (body < bodies && found[body]!.start <= m.index) continue;
    if (m[0].length >= MIN_KEY_RUN && m[0].length <= MAX_RUN && isKeyBody(m[0]))
      found.push(finding(m.index, m.index + m[0].length));
  }
  return found;
}
