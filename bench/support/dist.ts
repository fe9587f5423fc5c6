/** The committed bundles: where they are, their sizes, and whether they match the sources. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { sourceDigest } from '../../scripts/source-digest.mjs';
import { REPO_ROOT } from '@perimeter/test-rigs';

export const DIST = join(REPO_ROOT, 'dist');

/** Whether dist/ was built from the sources as they are now (dist/sources.json holds the digest). */
export function distIsFresh(): boolean {
  try {
    const committed = (JSON.parse(readFileSync(join(DIST, 'sources.json'), 'utf8')) as { digest?: string })
      .digest;
    return committed === sourceDigest(REPO_ROOT);
  } catch {
    return false;
  }
}

/** Bytes per bundle directory (dist/main, dist/post, ...): every file in it, and its index.js. */
export function bundleSizes(): Record<string, { total_bytes: number; index_js_bytes: number }> {
  const sizes: Record<string, { total_bytes: number; index_js_bytes: number }> = {};
  for (const entry of readdirSync(DIST, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const dir = join(DIST, entry.name);
    let total = 0;
    for (const file of readdirSync(dir)) total += statSync(join(dir, file)).size;
    const index = statSync(join(dir, 'index.js'), { throwIfNoEntry: false })?.size ?? 0;
    sizes[entry.name] = { total_bytes: total, index_js_bytes: index };
  }
  return sizes;
}
