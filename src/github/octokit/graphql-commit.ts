import type { Scrubber } from '../../safety/secret-forms.js';
import { UpstreamError, type CommitInfo, type UpstreamErrorCode } from '../upstream.js';

/**
 * One commit on a branch by GitHub's GraphQL `createCommitOnBranch`
 * (https://docs.github.com/en/graphql/reference/mutations#createcommitonbranch): any number of files, text or
 * binary (base64 `contents`), and deletions, in one request; it lands only while the branch is at
 * `expectedHeadOid`, and GitHub signs the commit (Verified) with the token's identity as author. What it
 * cannot do (https://docs.github.com/en/graphql/reference/input-objects#filechanges): set a file mode (every
 * file is written 100644, so an executable file would lose its bit), write a symlink or a submodule.
 * GitHub documents no size limit for it; the landing sends larger pushes through the Git Data API.
 */
export const COMMIT_ON_BRANCH = `mutation($input: CreateCommitOnBranchInput!) {
  createCommitOnBranch(input: $input) {
    commit {
      oid message tree { oid }
      parents(first: 2) { totalCount nodes { oid } }
      author { name email date }
      committer { name email date }
    }
  }
}`;

export interface FileChanges {
  additions: Array<{ path: string; bytes: Uint8Array }>;
  deletions: string[];
}

/**
 * The mutation's input. GitHub takes the message as a headline and a body and joins them with a blank
 * line; a message whose second line is not blank gains one.
 */
export function commitInput(
  nameWithOwner: string,
  branch: string,
  expectedHead: string,
  message: string,
  changes: FileChanges,
): Record<string, unknown> {
  const newline = message.indexOf('\n');
  const headline = newline < 0 ? message : message.slice(0, newline);
  const body = newline < 0 ? '' : message.slice(newline + 1).replace(/^\n/, '');
  return {
    branch: { repositoryNameWithOwner: nameWithOwner, branchName: branch },
    expectedHeadOid: expectedHead,
    message: body === '' ? { headline } : { headline, body },
    fileChanges: {
      additions: changes.additions.map((a) => ({
        path: a.path,
        contents: Buffer.from(a.bytes).toString('base64'),
      })),
      deletions: changes.deletions.map((path) => ({ path })),
    },
  };
}

interface Actor {
  name: string | null;
  email: string | null;
  date: string | null;
}

export interface CommitAnswer {
  createCommitOnBranch: {
    commit: {
      oid: string;
      message: string;
      tree: { oid: string };
      parents: { totalCount: number; nodes: Array<{ oid: string }> };
      author: Actor | null;
      committer: Actor | null;
    } | null;
  } | null;
}

const signature = (actor: Actor | null) => ({
  name: actor?.name ?? '',
  email: actor?.email ?? '',
  date: actor?.date ?? new Date(0).toISOString(),
});

/** The new commit as Perimeter keeps commits; throws when the answer is not the commit asked for. */
export function committed(answer: CommitAnswer, expectedHead: string): CommitInfo {
  const commit = answer.createCommitOnBranch?.commit;
  const sha = /^[0-9a-f]{40}$/;
  if (
    !commit ||
    !sha.test(commit.oid) ||
    !sha.test(commit.tree?.oid ?? '') ||
    commit.parents?.totalCount !== 1 ||
    commit.parents.nodes[0]?.oid !== expectedHead
  )
    throw new UpstreamError('invalid', 'create commit on branch: GitHub answered without the new commit');
  return {
    sha: commit.oid,
    tree: commit.tree.oid,
    parents: [expectedHead],
    message: commit.message,
    author: signature(commit.author),
    committer: signature(commit.committer),
  };
}

/** GraphQL's error `type`s that mean the call was refused before it changed anything, and their codes. */
const REFUSALS: Record<string, UpstreamErrorCode> = {
  STALE_DATA: 'not_fast_forward',
  RATE_LIMITED: 'rate_limited',
  NOT_FOUND: 'not_found',
  FORBIDDEN: 'forbidden',
  UNPROCESSABLE: 'invalid',
};

interface GraphqlErrorLike {
  errors?: Array<{ type?: string; message?: string }>;
  data?: { errors?: Array<{ type?: string; message?: string }> };
  response?: { data?: { errors?: Array<{ type?: string; message?: string }> } };
}

/**
 * The UpstreamError for an answer with GraphQL `errors` (HTTP 200; Octokit throws it, the throttling plugin as
 * "GraphQL Rate Limit Exceeded" for RATE_LIMITED), or null when the error carries none. Only the error types
 * that mean the call changed nothing get their own code; anything else (an untyped error such as GitHub's
 * "Something went wrong while executing your query") is `unavailable`: whether the commit landed is not known.
 */
export function graphqlFailure(error: unknown, operation: string, scrub: Scrubber): UpstreamError | null {
  const e = (error && typeof error === 'object' ? error : {}) as GraphqlErrorLike;
  const list = e.errors ?? e.data?.errors ?? e.response?.data?.errors;
  if (!Array.isArray(list) || list.length === 0) return null;
  const first = list[0]!;
  // eslint-disable-next-line no-control-regex
  const text = scrub(String(first.message ?? '').replace(/[\u0000-\u001f\u007f]+/g, ' ')).slice(0, 200);
  // status 200: GitHub answered, so `rate_limited` here is GraphQL's own budget, not a secondary limit
  return new UpstreamError(
    REFUSALS[first.type ?? ''] ?? 'unavailable',
    `${operation}: GitHub answered: ${text}`,
    200,
  );
}
