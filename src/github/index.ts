// The one way into src/github from the rest of src (eslint.config.js says so).
export type * from './upstream.js';
export { UpstreamError } from './upstream.js';
export { blobSha, commitSha, listingTreeSha, treeSha, type HashedEntry } from './git-objects.js';
export { cloneUrl } from './git-blobs.js';
export { differsWhere, prefetchDiff, type TreePair } from './batched-diff.js';
export { WholeTrees } from './whole-tree.js';
export { createOctokitUpstream, type OctokitUpstreamOptions } from './octokit/octokit-upstream.js';
export { COMMITS_PER_CALL } from './octokit/graphql-path-trees.js';
export { ChangeSetError, readChangeSet } from './staged/change-set.js';
export { StagedUpstream, type StagedChangeSet, type StagingOptions } from './staged/staged-upstream.js';
export { readBlobs, REST_BLOB_LIMIT, type BlobReading } from './read-blobs.js';
export { findTrustedBinary, TRUSTED_PATH, trustedGit } from './trusted-binary.js';
