import { createHash } from 'node:crypto';

/**
 * The stand-in's web-flow key: GitHub signs the commits it makes itself (the web editor, merges, and API
 * commits without a custom author or committer) with its web-flow key, and shows them Verified; a signature
 * is checked against the commit's payload (the commit object without its gpgsig header), so one copied onto
 * another commit, or onto a commit written elsewhere that names web-flow as committer, does not verify.
 * https://docs.github.com/authentication/managing-commit-signature-verification/about-commit-signature-verification
 * The signature here is a digest, not PGP: nobody outside the stand-in makes one, as nobody outside GitHub
 * holds its key.
 */
export function signAsWebFlow(payload: string): string {
  const digest = createHash('sha256').update(payload).digest('base64');
  return [
    '-----BEGIN PGP SIGNATURE-----',
    '',
    `wsBcBAABCAAQBQJ${digest}`,
    '=fake',
    '-----END PGP SIGNATURE-----',
  ].join('\n');
}

/** Whether `signature` is web-flow's over exactly `payload`. */
export function isWebFlowSignature(signature: string, payload: string): boolean {
  return signature === signAsWebFlow(payload);
}
