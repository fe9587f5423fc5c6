import { addListings, entriesSelection, type GqlEntry } from './graphql-trees.js';
import type { CommitInfo, Signature, TreeEntry } from '../upstream.js';

/**
 * Several commits in one GraphQL call, each under an alias (`object(oid:)`): the commit itself, its root
 * tree with the entries `levels` levels down, and its parents with the root tree of each, as deep. A
 * tree's `entries` is a plain list, not a connection: no nodes, no points. Each commit's `parents` is a
 * connection, one request by GitHub's count, MAX_PARENTS nodes: 50 commits make 50 requests and 400 nodes,
 * which GitHub rounds to 1 point of GraphQL's own budget (1,000 points an hour for GITHUB_TOKEN, apart
 * from REST's 1,000 requests); the node limit is 500,000
 * (https://docs.github.com/en/graphql/overview/rate-limits-and-node-limits-for-the-graphql-api).
 */
export const COMMIT_TREES_PER_CALL = 50;
export const MAX_PARENTS = 8;

const actor = 'name email date';

/**
 * The query for these commits (SHAs already checked as 40 hex digits); levels 0: the trees' SHAs only.
 * `trees` are more trees listed in the same call, `levels` deep, each by its SHA (`t0`, `t1`, ...).
 */
export function commitTreesQuery(
  commits: string[],
  levels: number,
  parentLevels: number,
  trees: string[] = [],
): string {
  const tree = (n: number) => (n > 0 ? `tree { oid ${entriesSelection(n)} }` : 'tree { oid }');
  const aliases = commits.map(
    (sha, i) =>
      `c${i}: object(oid: "${sha}") { ... on Commit { oid message author { ${actor} } committer { ${actor} } ${tree(levels)} ` +
      `parents(first: ${MAX_PARENTS}) { totalCount nodes { oid ${tree(parentLevels)} } } } }`,
  );
  const listed = trees.map(
    (sha, i) => `t${i}: object(oid: "${sha}") { ... on Tree { ${entriesSelection(Math.max(levels, 1))} } }`,
  );
  return `query($owner: String!, $name: String!) { repository(owner: $owner, name: $name) { ${[...aliases, ...listed].join(' ')} } }`;
}

interface Actor {
  name: string | null;
  email: string | null;
  date: string | null;
}

interface GqlTree {
  oid: string;
  entries?: GqlEntry[] | null;
}

interface GqlCommit {
  oid: string;
  message: string;
  author: Actor | null;
  committer: Actor | null;
  tree: GqlTree | null;
  parents: { totalCount: number; nodes: Array<{ oid: string; tree: GqlTree | null } | null> } | null;
}

export interface CommitTreesAnswer {
  /** `c<i>`: a commit asked; `t<i>`: a tree asked */
  repository: Record<string, GqlCommit | null> | null;
}

/** A commit, and the root tree of each of its parents (in the commit's order of parents). */
export interface CommitTrees {
  commit: CommitInfo;
  parentTrees: string[];
}

const SHA = /^[0-9a-f]{40}$/;

/**
 * GraphQL gives a GitActor's date in the commit's own offset (2024-05-01T12:34:56+02:00), REST in UTC
 * (2024-05-01T10:34:56Z): written as REST writes it, so an answer is the same whichever way it came.
 */
const utc = (date: string | null | undefined): string => {
  const time = Date.parse(date ?? '');
  return new Date(Number.isNaN(time) ? 0 : time).toISOString().replace('.000Z', 'Z');
};

const signature = (a: Actor | null): Signature => ({
  name: a?.name ?? '',
  email: a?.email ?? '',
  date: utc(a?.date),
});

/**
 * Each commit the answer holds whole (every parent listed, every SHA well formed, the commit the one asked
 * for), and into `listings` every tree listing it holds that hashes to its SHA, those of `trees` included. A commit not as asked is
 * left out (the caller reads it by REST).
 */
export function commitTreesOf(
  commits: string[],
  answer: CommitTreesAnswer,
  listings: Map<string, TreeEntry[]>,
  trees: string[] = [],
): Map<string, CommitTrees> {
  const out = new Map<string, CommitTrees>();
  trees.forEach((sha, i) =>
    addListings(listings, sha, (answer.repository?.[`t${i}`] as GqlTree | null | undefined)?.entries),
  );
  commits.forEach((sha, i) => {
    const c = answer.repository?.[`c${i}`];
    if (!c || c.oid !== sha || !SHA.test(c.tree?.oid ?? '') || !c.parents) return;
    const nodes = c.parents.nodes;
    if (!Array.isArray(nodes) || c.parents.totalCount !== nodes.length) return;
    const parents: string[] = [];
    const parentTrees: string[] = [];
    for (const p of nodes) {
      if (!p || !SHA.test(p.oid) || !SHA.test(p.tree?.oid ?? '')) return;
      parents.push(p.oid);
      parentTrees.push(p.tree!.oid);
    }
    for (const t of [c.tree!, ...nodes.map((p) => p!.tree!)]) addListings(listings, t.oid, t.entries);
    out.set(sha, {
      commit: {
        sha,
        tree: c.tree!.oid,
        parents,
        message: c.message,
        author: signature(c.author),
        committer: signature(c.committer),
      },
      parentTrees,
    });
  });
  return out;
}
