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

/** Git orders tree entries by name, a tree's name compared as if it ended in "/". */
function sortKey(entry: TreeEntry): Buffer {
  return Buffer.from(entry.type === 'tree' ? `${entry.path}/` : entry.path, 'utf8');
}

/** Entries in the order git writes them. */
export function sortTreeEntries(entries: readonly TreeEntry[]): TreeEntry[] {
  return [...entries].sort((a, b) => Buffer.compare(sortKey(a), sortKey(b)));
}

/** The body of a tree object: per entry `<mode> <name>\0<20-byte sha>`, trees' mode written "40000". */
export function encodeTree(entries: readonly TreeEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const entry of sortTreeEntries(entries)) {
    const mode = entry.mode.replace(/^0+/, '');
    parts.push(Buffer.from(`${mode} ${entry.path}\0`, 'utf8'), Buffer.from(entry.sha, 'hex'));
  }
  return Buffer.concat(parts);
}

export function treeSha(entries: readonly TreeEntry[]): string {
  return objectSha('tree', encodeTree(entries));
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
