import { addListings, entriesSelection, type GqlEntry } from './graphql-trees.js';
import type { CommitInfo, PathCommit, PathHistoryPage, Signature, TreeEntry } from '../upstream.js';

/**
 * A branch's head and one page of the commits changing a path, in one GraphQL call: `ref(qualifiedName:)` for
 * the head (as fresh as REST's ref read), `history(path:, first:, after:)` on it
 * (https://docs.github.com/en/graphql/reference/objects#commit), and for each commit the tree at the path with
 * its entries `levels` levels down (`file(path:)`, a plain list: no nodes, no points) and its parents with the
 * tree at the path in each. Points: the history connection is 1 request and `parents` one per commit, so up to
 * 100 commits cost 1 point
 * (https://docs.github.com/en/graphql/overview/rate-limits-and-query-limits-for-the-graphql-api).
 */
export const MAX_PARENTS = 8;

const actor = 'name email date';

export function pathHistoryQuery(levels: number): string {
  const commit = `oid message tree { oid } author { ${actor} } committer { ${actor} }`;
  return `query($owner: String!, $name: String!, $ref: String!, $path: String!, $first: Int!, $after: String) {
  repository(owner: $owner, name: $name) {
    ref(qualifiedName: $ref) { target { ... on Commit { ${commit} parents(first: ${MAX_PARENTS}) { totalCount nodes { oid } }
      history(path: $path, first: $first, after: $after) {
        pageInfo { hasNextPage endCursor }
        nodes { ${commit}
          file(path: $path) { type oid object { ... on Tree { ${entriesSelection(levels)} } } }
          parents(first: ${MAX_PARENTS}) { totalCount nodes { oid file(path: $path) { type oid } } }
        }
      }
    } } }
  }
}`;
}

interface Actor {
  name: string | null;
  email: string | null;
  date: string | null;
}

interface Side {
  type: string;
  oid: string;
  object?: { entries?: GqlEntry[] | null } | null;
}

interface GqlCommit {
  oid: string;
  message: string;
  tree: { oid: string } | null;
  author: Actor | null;
  committer: Actor | null;
  parents: { totalCount: number; nodes: Array<{ oid: string; file?: Side | null } | null> } | null;
  file?: Side | null;
}

export interface PathHistoryAnswer {
  repository: {
    ref: {
      target:
        | (GqlCommit & {
            history?: {
              pageInfo: { hasNextPage: boolean; endCursor: string | null };
              nodes: Array<GqlCommit | null>;
            };
          })
        | null;
    } | null;
  } | null;
}

const SHA = /^[0-9a-f]{40}$/;

const signature = (a: Actor | null): Signature => ({
  name: a?.name ?? '',
  email: a?.email ?? '',
  date: a?.date ?? new Date(0).toISOString(),
});

function commitInfo(c: GqlCommit | null | undefined): CommitInfo | null {
  if (!c || !SHA.test(c.oid) || !SHA.test(c.tree?.oid ?? '') || !c.parents) return null;
  const parents = c.parents.nodes.map((p) => p?.oid ?? '');
  if (c.parents.totalCount !== parents.length || !parents.every((p) => SHA.test(p))) return null;
  return {
    sha: c.oid,
    tree: c.tree!.oid,
    parents,
    message: c.message,
    author: signature(c.author),
    committer: signature(c.committer),
  };
}

const treeOf = (side: Side | null | undefined): string | null | undefined =>
  side === null || side === undefined
    ? null
    : side.type === 'tree' && SHA.test(side.oid)
      ? side.oid
      : undefined;

/**
 * The page as Perimeter keeps it, and every tree listing it holds (`listings`, checked against the tree's
 * SHA). Null when the branch is missing or the answer is not as asked (the caller reads REST instead).
 */
export function pathHistoryOf(
  answer: PathHistoryAnswer,
  listings: Map<string, TreeEntry[]>,
): PathHistoryPage | null {
  const target = answer.repository?.ref?.target;
  const head = commitInfo(target);
  const history = target?.history;
  if (!head || !history || !Array.isArray(history.nodes)) return null;
  const commits: PathCommit[] = [];
  for (const node of history.nodes) {
    const commit = commitInfo(node);
    if (!commit || !node) return null;
    const tree = treeOf(node.file);
    if (tree) addListings(listings, tree, node.file?.object?.entries);
    const first = node.parents!.nodes[0];
    commits.push({ commit, tree, parentTree: first ? treeOf(first.file) : null });
  }
  return {
    head,
    commits,
    hasNextPage: Boolean(history.pageInfo?.hasNextPage),
    endCursor: history.pageInfo?.endCursor ?? null,
  };
}
