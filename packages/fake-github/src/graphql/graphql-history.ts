import { GraphQLError } from 'graphql';
import { gitText } from '../git/git.js';
import type { FakeRepo } from '../repo.js';

type Value = Record<string, unknown>;

/**
 * `Commit.history(path:, first:, after:)` over `git rev-list` (the commits reachable from the commit, newest
 * first, only those changing `path` when given: as REST's `GET commits?path=` lists them), and
 * `Repository.ref(qualifiedName:)`. A cursor is "<oid> <offset>", the form GitHub's history cursors take; the
 * stand-in accepts only cursors of the commit whose history is asked.
 */
export function historyValue(
  repo: FakeRepo,
  oid: string,
  args: { path?: string; first?: number; last?: number; after?: string; before?: string },
  commitValue: (repo: FakeRepo, oid: string) => Promise<Value | null>,
): Value {
  if (args.last !== undefined || args.before !== undefined)
    throw new GraphQLError('The stand-in serves history with `first` and `after` only.');
  let offset = 0;
  if (args.after !== undefined && args.after !== null) {
    const match = /^([0-9a-f]{40}) (\d+)$/.exec(args.after);
    if (!match || match[1] !== oid)
      throw new GraphQLError(`\`${args.after}\` does not appear to be a valid cursor.`);
    offset = Number(match[2]) + 1;
  }
  const first = args.first ?? 100;
  const pathspec = args.path ? ['--', `:(literal)${args.path}`] : [];
  const listed = gitText(repo.dir, [
    'rev-list',
    `--skip=${offset}`,
    `--max-count=${first + 1}`,
    oid,
    ...pathspec,
  ]).then((out) => out.split('\n').filter(Boolean));
  const page = listed.then((shas) => shas.slice(0, first));
  const cursor = (i: number) => `${oid} ${offset + i}`;
  return {
    totalCount: async () =>
      Number((await gitText(repo.dir, ['rev-list', '--count', oid, ...pathspec])).trim()),
    nodes: async () => (await page).map((sha) => commitValue(repo, sha)),
    edges: async () => (await page).map((sha, i) => ({ cursor: cursor(i), node: commitValue(repo, sha) })),
    pageInfo: async () => {
      const shas = await listed;
      const count = Math.min(shas.length, first);
      return {
        hasNextPage: shas.length > first,
        hasPreviousPage: offset > 0,
        startCursor: count > 0 ? cursor(0) : null,
        endCursor: count > 0 ? cursor(count - 1) : null,
      };
    },
  };
}

/** `Repository.ref(qualifiedName:)`: a branch or tag by its full name or short branch name; null when absent. */
export async function refValue(
  repo: FakeRepo,
  qualifiedName: string,
  objectValue: (repo: FakeRepo, name: string) => Promise<Value | null>,
): Promise<Value | null> {
  const full = qualifiedName.startsWith('refs/') ? qualifiedName : `refs/heads/${qualifiedName}`;
  const sha = await repo.refValue(full);
  if (!sha) return null;
  const slash = full.indexOf('/', 5);
  return {
    __typename: 'Ref',
    id: `REF_${repo.id}_${full}`,
    name: full.slice(slash + 1),
    prefix: full.slice(0, slash + 1),
    target: objectValue(repo, sha),
  };
}
