/**
 * The tree at one path in many commits and in each one's first parent, in one GraphQL call: each commit
 * under an alias, `file(path:)` on it and on `parents(first: 1)`. Each `parents` is a connection, one
 * request by GitHub's count: 50 commits make 50, which GitHub rounds to 1 point
 * (https://docs.github.com/en/graphql/overview/rate-limits-and-query-limits-for-the-graphql-api).
 */
export const COMMITS_PER_CALL = 50;

const side = 'file(path: $path) { type oid }';

export function pathTreesQuery(commits: string[]): string {
  const aliases = commits.map(
    (sha, i) =>
      `c${i}: object(oid: "${sha}") { ... on Commit { ${side} parents(first: 1) { nodes { ${side} } } } }`,
  );
  return `query($owner: String!, $name: String!, $path: String!) { repository(owner: $owner, name: $name) { ${aliases.join(' ')} } }`;
}

interface Side {
  type: string;
  oid: string;
}

export interface PathTreesAnswer {
  repository: Record<
    string,
    { file?: Side | null; parents?: { nodes?: Array<{ file?: Side | null } | null> } } | null
  > | null;
}

/** The tree at the path in a commit and in its first parent: a tree SHA, or null where the path is absent. */
export interface PathTrees {
  tree: string | null;
  /** null also for a commit without parents */
  parentTree: string | null;
}

/** Per commit, the two trees at the path; a commit is left out when the path is a file or submodule on either side, or the answer is not as asked. */
export function pathTreesOf(commits: string[], answer: PathTreesAnswer): Map<string, PathTrees> {
  const trees = new Map<string, PathTrees>();
  const sideTree = (s: Side | null | undefined): string | null | undefined => {
    if (s === null || s === undefined) return null;
    return s.type === 'tree' && /^[0-9a-f]{40}$/.test(s.oid) ? s.oid : undefined;
  };
  commits.forEach((sha, i) => {
    const node = answer.repository?.[`c${i}`];
    if (!node || !node.parents || !Array.isArray(node.parents.nodes)) return;
    const tree = sideTree(node.file);
    const first = node.parents.nodes[0];
    const parentTree = first === undefined ? null : first === null ? undefined : sideTree(first.file);
    if (tree === undefined || parentTree === undefined) return;
    trees.set(sha, { tree, parentTree });
  });
  return trees;
}
