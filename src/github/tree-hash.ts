import { createHash } from 'node:crypto';
import type { TreeEntry } from './upstream.js';

/**
 * git's object ids, computed locally: what a listing claims can be checked against the SHA that names it.
 * GitHub's repositories use SHA-1 object ids; a mismatch only ever means "not proven", never a wrong answer.
 */
export type HashedEntry = Pick<TreeEntry, 'mode' | 'type' | 'sha'>;

/** git's object id of a tree with these entries by name (trees sort as if their name ended in "/"). */
export function treeSha(entries: Map<string, HashedEntry>): string {
  const key = (name: string, entry: HashedEntry) => Buffer.from(entry.type === 'tree' ? `${name}/` : name);
  const sorted = [...entries].sort(([a, x], [b, y]) => Buffer.compare(key(a, x), key(b, y)));
  const body = Buffer.concat(
    sorted.map(([name, entry]) =>
      Buffer.concat([
        Buffer.from(`${entry.type === 'tree' ? '40000' : entry.mode} ${name}\0`),
        Buffer.from(entry.sha, 'hex'),
      ]),
    ),
  );
  return createHash('sha1').update(`tree ${body.length}\0`).update(body).digest('hex');
}

/** git's object id of a blob with these bytes. */
export function blobSha(bytes: Uint8Array): string {
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}
