import { RANK, type Finding } from './finding.js';

/**
 * The run's own secrets (the token, the endpoint secrets, the ledger key) in every form they can be written
 * in, found in text and scrubbed from it. The one rule set for everything Perimeter says: the gateway's
 * answers and ledger, its log, GitHub's error messages, main's and post's messages and the log tail post
 * quotes in the job summary.
 */

/**
 * Shorter values would hide ordinary words. Every secret of a run is longer: endpoint secrets have at least
 * 32 characters, the ledger key 43, and the token input is refused below this length (src/action/inputs.ts).
 */
export const MIN_SCRUBBED_LENGTH = 8;

/**
 * The part of base64(secret) that does not depend on the bytes around it, for each of the three
 * alignments the secret can have inside a longer encoded text (`x-access-token:<token>` in a Basic
 * header, say): characters fully made of the secret's own bits.
 */
function base64Cores(secret: Buffer): string[] {
  const cores: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), secret]).toString('base64');
    const first = Math.ceil((offset * 8) / 6);
    const last = Math.floor(((offset + secret.length) * 8) / 6);
    cores.push(encoded.slice(first, last));
  }
  return cores;
}

/**
 * Every written form of each secret, longest first: raw, URL-encoded (upper- and lower-case escapes), hex,
 * base64 and base64url at any alignment.
 */
export function secretForms(secrets: readonly string[]): string[] {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (secret.length < MIN_SCRUBBED_LENGTH) continue;
    forms.add(secret);
    forms.add(encodeURIComponent(secret));
    forms.add(encodeURIComponent(secret).replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()));
    const bytes = Buffer.from(secret, 'utf8');
    forms.add(bytes.toString('hex'));
    forms.add(bytes.toString('base64'));
    for (const core of base64Cores(bytes)) {
      if (core.length < MIN_SCRUBBED_LENGTH) continue;
      forms.add(core);
      forms.add(core.replace(/\+/g, '-').replace(/\//g, '_'));
    }
  }
  return [...forms].sort((a, b) => b.length - a.length);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A matcher for the forms; null when there is nothing to look for. */
export function secretMatcher(secrets: readonly string[]): RegExp | null {
  const forms = secretForms(secrets);
  return forms.length === 0 ? null : new RegExp(forms.map(escapeRegExp).join('|'), 'g');
}

const ENCODED_CHAR = /[A-Za-z0-9+/=_-]/;

/**
 * Each match widens to the whole run of base64 characters around it: the few characters where an
 * encoded secret mixes with its neighbours' bits would otherwise show part of it.
 */
export function secretFindings(text: string, matcher: RegExp | null): Finding[] {
  if (matcher === null) return [];
  const found: Finding[] = [];
  for (const m of text.matchAll(matcher)) {
    let start = m.index ?? 0;
    let end = start + m[0].length;
    const floor = found.at(-1)?.end ?? 0;
    if (start < floor) continue;
    while (start > floor && ENCODED_CHAR.test(text[start - 1] ?? '')) start--;
    while (end < text.length && ENCODED_CHAR.test(text[end] ?? '')) end++;
    found.push({ start, end, kind: 'secret', credential: true, rank: RANK.extraSecret });
  }
  return found;
}

export type Scrubber = (text: string) => string;

/** Replaces every form of every secret (widened as secretFindings widens it) with `***`. */
export function makeScrubber(secrets: readonly string[]): Scrubber {
  const matcher = secretMatcher(secrets);
  return (text) => {
    let out = '';
    let at = 0;
    for (const { start, end } of secretFindings(text, matcher)) {
      out += `${text.slice(at, start)}***`;
      at = end;
    }
    return out + text.slice(at);
  };
}
