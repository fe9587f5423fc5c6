import { RANK, type Finding } from './finding.js';
import { formatFindings } from './format-rules.js';
import { secretlintFindings } from './secretlint-detector.js';

/**
 * Credentials under one layer of encoding: a provider token or private key written in base64 (or
 * base64url), or URL-encoded, and a PEM private key's body without its BEGIN and END lines. Each encoded
 * run is decoded once; the decoded texts go, in one batch, through the format rules (provider formats,
 * key blocks, URL passwords) and secretlint's; a run whose decoding holds a credential is hidden whole,
 * under that credential's kind. Only credentials count: a setting or a word in prose is no proof once
 * decoded. Pure, and linear: each run is decoded once, and only runs that decode to text are scanned.
 */

/** Shorter runs cannot hold the shortest provider format after encoding. */
const MIN_BASE64 = 24;
const MAX_RUN = 1 << 20;
const BASE64_RUN = /(?<![A-Za-z0-9+/_=-])[A-Za-z0-9+/_-]{24,}={0,2}(?![A-Za-z0-9+/_=-])/g;
/** A PEM body: two or more lines of base64 alone on their lines (indented, as in YAML, or not). */
const PEM_BODY =
  /(?:^[ \t]*[A-Za-z0-9+/]{40,128}={0,2}[ \t]*\r?\n){2,}(?:[ \t]*[A-Za-z0-9+/]{4,128}={0,2}[ \t]*$)?/gm;
/** An escape, and the characters a URL-encoded value runs over around it. */
const ESCAPE = /%[0-9A-Fa-f]{2}/g;
const URL_RUN_CHAR = /[^\s"'`<>&=?#]/;
/** base64 of `openssh-key-v1`: an OpenSSH private key's body. */
const OPENSSH_BODY = /^b3BlbnNzaC1rZXktdjE/;

/** Decoded bytes a person could read: printable ASCII and whitespace, nearly all of them. */
function readable(bytes: Buffer): boolean {
  if (bytes.length === 0) return false;
  let printable = 0;
  for (const byte of bytes)
    if ((byte >= 0x20 && byte < 0x7f) || byte === 9 || byte === 10 || byte === 13) printable++;
  return printable / bytes.length >= 0.95;
}

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

/** An encoded run, and the text it decodes to (to be scanned) or the credential it is already known to be. */
interface Candidate {
  start: number;
  end: number;
  decoded?: string;
  kind?: string;
}

function fromBase64(start: number, end: number, encoded: string): Candidate | null {
  if (OPENSSH_BODY.test(encoded)) return { start, end, kind: 'private key' };
  const bytes = Buffer.from(encoded, 'base64');
  if (bytes.length >= 64 && derPrivateKey(bytes)) return { start, end, kind: 'private key' };
  return readable(bytes) ? { start, end, decoded: bytes.toString('latin1') } : null;
}

function base64Candidates(text: string): Candidate[] {
  const found: Candidate[] = [];
  for (const m of text.matchAll(BASE64_RUN)) {
    if (m[0].length < MIN_BASE64 || m[0].length > MAX_RUN) continue;
    const candidate = fromBase64(m.index, m.index + m[0].length, m[0]);
    if (candidate) found.push(candidate);
  }
  return found;
}

function pemBodyCandidates(text: string): Candidate[] {
  const found: Candidate[] = [];
  for (const m of text.matchAll(PEM_BODY)) {
    const joined = m[0].replace(/\s+/g, '');
    if (joined.length > MAX_RUN) continue;
    const start = m.index + (m[0].length - m[0].trimStart().length);
    const candidate = fromBase64(start, m.index + m[0].trimEnd().length, joined);
    if (candidate?.kind !== undefined) found.push(candidate);
  }
  return found;
}

/** Each run around a %XX escape, widened by hand from the escape: a regex would rescan long runs. */
function urlEncodedCandidates(text: string): Candidate[] {
  const found: Candidate[] = [];
  if (!text.includes('%')) return found;
  let covered = 0;
  for (const m of text.matchAll(ESCAPE)) {
    if (m.index < covered) continue;
    let start = m.index;
    let end = m.index + 3;
    while (start > covered && URL_RUN_CHAR.test(text[start - 1]!)) start--;
    while (end < text.length && URL_RUN_CHAR.test(text[end]!)) end++;
    covered = end;
    if (end - start > MAX_RUN) continue;
    try {
      found.push({ start, end, decoded: decodeURIComponent(text.slice(start, end)) });
    } catch {
      // a stray `%` that is no escape
    }
  }
  return found;
}

const hide = (start: number, end: number, kind: string): Finding => ({
  start,
  end,
  kind,
  credential: true,
  rank: RANK.format,
});

/** Between decoded texts in one batch: plain, so no rule joins two of them into one value. */
const SEPARATOR = '\n\n\n';

async function credentialsIn(candidates: Candidate[]): Promise<Finding[]> {
  const found: Finding[] = [];
  const batch: Array<{ at: number; candidate: Candidate }> = [];
  let joined = '';
  for (const candidate of candidates) {
    if (candidate.kind !== undefined) found.push(hide(candidate.start, candidate.end, candidate.kind));
    else if (candidate.decoded !== undefined) {
      batch.push({ at: joined.length, candidate });
      joined += candidate.decoded + SEPARATOR;
    }
  }
  if (batch.length === 0) return found;
  const named = new Map<Candidate, string>();
  const inner = formatFindings(joined).concat(await secretlintFindings(joined));
  for (const finding of inner) {
    if (!finding.credential) continue;
    // the last batch entry starting at or before the finding holds it
    let low = 0;
    let high = batch.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (batch[middle]!.at <= finding.start) low = middle;
      else high = middle - 1;
    }
    const { candidate } = batch[low]!;
    // one span per run, named by the first rule that found it (format rules before secretlint's)
    if (!named.has(candidate)) named.set(candidate, finding.kind);
  }
  for (const [candidate, kind] of named) found.push(hide(candidate.start, candidate.end, kind));
  return found;
}

export async function encodedFindings(text: string): Promise<Finding[]> {
  return credentialsIn([
    ...base64Candidates(text),
    ...pemBodyCandidates(text),
    ...urlEncodedCandidates(text),
  ]);
}
