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
