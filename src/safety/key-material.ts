import { RANK, type Finding } from './finding.js';

/**
 * Credentials that no single pattern names: a PEM private key written as one base64 line (kubeconfig's
 * `client-key-data`, Kubernetes secrets), and an AWS secret access key beside its key ID (40 characters
 * of base64 that only the ID nearby makes recognisable).
 */

/** base64 of `-----BEGI`: how a base64-encoded PEM block starts. */
const ENCODED_PEM = /(?<![A-Za-z0-9+/])LS0tLS1CRUdJT[A-Za-z0-9+/]{16,}={0,2}/g;
const HEADER_CHARS = 120;

function encodedKeys(text: string): Finding[] {
  const found: Finding[] = [];
  for (const m of text.matchAll(ENCODED_PEM)) {
    const head = m[0].slice(0, HEADER_CHARS - (HEADER_CHARS % 4));
    // only keys: an encoded certificate (client-certificate-data) is public
    if (!/PRIVATE KEY/.test(Buffer.from(head, 'base64').toString('latin1'))) continue;
    const start = m.index ?? 0;
    found.push({ start, end: start + m[0].length, kind: 'private key', credential: true, rank: RANK.format });
  }
  return found;
}

const AWS_KEY_ID = /(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}(?![A-Za-z0-9])/g;
const AWS_SECRET =
  /(?<![A-Za-z0-9/+])(?=[A-Za-z0-9/+]{0,39}[0-9])(?=[A-Za-z0-9/+]{0,39}[a-z])(?=[A-Za-z0-9/+]{0,39}[A-Z])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g;
/** How far from its key ID a secret is looked for: a line or two of config, a CSV row. */
const PAIR_WINDOW = 300;

const BASE64_CHAR = /[A-Za-z0-9/+=]/;

function awsSecrets(text: string): Finding[] {
  const found: Finding[] = [];
  let searchedTo = 0;
  for (const id of text.matchAll(AWS_KEY_ID)) {
    const idStart = id.index ?? 0;
    let from = Math.max(searchedTo, idStart - PAIR_WINDOW);
    let to = Math.min(text.length, idStart + id[0].length + PAIR_WINDOW);
    // widen to whole runs, so the lookarounds see a run's true ends (a run longer than 40 is no key)
    for (let n = 0; n < 64 && from > searchedTo && BASE64_CHAR.test(text[from - 1] ?? ''); n++) from--;
    for (let n = 0; n < 64 && to < text.length && BASE64_CHAR.test(text[to] ?? ''); n++) to++;
    if (from >= to) continue;
    for (const s of text.slice(from, to).matchAll(AWS_SECRET)) {
      const start = from + (s.index ?? 0);
      found.push({
        start,
        end: start + 40,
        kind: 'AWS secret access key',
        credential: true,
        rank: RANK.format,
      });
    }
    searchedTo = to;
  }
  return found;
}

export function keyMaterialFindings(text: string): Finding[] {
  return [...encodedKeys(text), ...awsSecrets(text)];
}
