import { createHash } from 'node:crypto';
import type { CommitInfo, Signature, TreeEntry } from './upstream.js';

/**
 * Git's object encoding, so objects made outside GitHub get the SHAs git (and GitHub) gives them:
 * `<type> <size>\0<body>` hashed with SHA-1. https://git-scm.com/book/en/v2/Git-Internals-Git-Objects
 */
function objectSha(type: 'blob' | 'tree' | 'commit', body: Uint8Array): string {
  return createHash('sha1').update(`${type} ${body.byteLength}\0`).update(body).digest('hex');
}

export function blobSha(content: Uint8Array): string {
  return objectSha('blob', content);
}

/** What a tree object records of an entry; its name is given beside it. */
export type HashedEntry = Pick<TreeEntry, 'mode' | 'type' | 'sha'>;

/** Git orders tree entries by name, a tree's name compared as if it ended in "/". */
function sortKey(name: string, entry: HashedEntry): Buffer {
  return Buffer.from(entry.type === 'tree' ? `${name}/` : name, 'utf8');
}

/** Entries in the order git writes them. */
export function sortTreeEntries(entries: readonly TreeEntry[]): TreeEntry[] {
  return [...entries].sort((a, b) => Buffer.compare(sortKey(a.path, a), sortKey(b.path, b)));
}

/** The body of a tree object: per entry `<mode> <name>\0<20-byte sha>`, trees' mode written "40000". */
function encodeTree(named: ReadonlyArray<readonly [string, HashedEntry]>): Buffer {
  const sorted = [...named].sort(([a, x], [b, y]) => Buffer.compare(sortKey(a, x), sortKey(b, y)));
  const parts: Buffer[] = [];
  for (const [name, entry] of sorted) {
    const mode = entry.mode.replace(/^0+/, '');
    parts.push(Buffer.from(`${mode} ${name}\0`, 'utf8'), Buffer.from(entry.sha, 'hex'));
  }
  return Buffer.concat(parts);
}

/**
 * git's id of a tree holding these entries, by name (an entry's own `path`, if it has one, is not read), so
 * what a listing claims can be checked against the SHA that names it.
 */
export function treeSha(entries: ReadonlyMap<string, HashedEntry>): string {
  return objectSha('tree', encodeTree([...entries]));
}

/** treeSha of one tree's direct listing, each entry named by its `path` (as getTree gives them). */
export function listingTreeSha(entries: readonly TreeEntry[]): string {
  return objectSha('tree', encodeTree(entries.map((e) => [e.path, e] as const)));
}

/** `Name <email> <unix seconds> <+hhmm>` from an ISO date (written in UTC). */
function signatureLine(signature: Signature): string {
  const seconds = Math.floor(Date.parse(signature.date) / 1000);
  return `${signature.name} <${signature.email}> ${seconds} +0000`;
}

/** The body of an unsigned commit object. */
export function encodeCommit(commit: Omit<CommitInfo, 'sha'>): Buffer {
  const lines = [
    `tree ${commit.tree}`,
    ...commit.parents.map((p) => `parent ${p}`),
    `author ${signatureLine(commit.author)}`,
    `committer ${signatureLine(commit.committer)}`,
  ];
  return Buffer.from(`${lines.join('\n')}\n\n${commit.message}`, 'utf8');
}

export function commitSha(commit: Omit<CommitInfo, 'sha'>): string {
  return objectSha('commit', encodeCommit(commit));
}
