// One digest over everything a bundle is built from, so a build can tell whether dist/ is stale.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

const INPUTS = [
  'src',
  'package-lock.json',
  'tsconfig.json',
  'scripts/bundle.mjs',
  'scripts/source-digest.mjs',
];

function files(root, path) {
  const full = join(root, path);
  if (!statSync(full, { throwIfNoEntry: false })) return [];
  if (statSync(full).isFile()) return [path];
  return readdirSync(full).flatMap((name) => files(root, join(path, name)));
}

/** sha256 over the sorted repository-relative paths and contents of the bundle inputs. */
export function sourceDigest(root) {
  const hash = createHash('sha256');
  const all = INPUTS.flatMap((p) => files(root, p)).map((p) =>
    relative(root, join(root, p)).split(sep).join('/'),
  );
  for (const path of all.sort()) {
    hash.update(`${path}\0`);
    hash.update(readFileSync(join(root, path)));
    hash.update('\0');
  }
  return hash.digest('hex');
}
