/** One changed path. A rename is a deleted path plus an added path; a mode change is `modified`. */
export interface Change {
  path: string;
  kind: 'added' | 'modified' | 'deleted';
  oldMode?: string;
  newMode?: string;
  oldSha?: string;
  newSha?: string;
  /** set when the tree entry itself is malformed (a name git forbids, a name listed twice): never allowed */
  problem?: string;
}

/** One commit and what it changes against its first parent. */
export interface CommitChanges {
  sha: string;
  changes: Change[];
}

/** What every judge knows of a blob a commit adds or modifies: its size, and the credentials in it. */
export interface BlobFacts {
  size: number;
  /** kinds of credentials its content holds (scanContent), never the values; empty when clean */
  credentials: readonly string[];
}
