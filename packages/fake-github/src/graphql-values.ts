import type { RawTreeEntry, FakeRepo } from './repo.js';

/**
 * The part of GitHub's GraphQL object graph the stand-in serves, as plain values for graphql-js's default
 * resolvers (a function-valued field is called): `repository(owner:, name:) { object(oid:|expression:) }`
 * for trees, blobs and commits, with a tree's `entries` and each entry's `object`. Fields not served
 * resolve to null (an error for a non-null one).
 */

type Value = Record<string, unknown>;

/** git's octal mode as GraphQL gives it: an Int (33188 for 100644). */
const modeInt = (mode: string): number => parseInt(mode, 8);

function entryValue(repo: FakeRepo, base: string, raw: RawTreeEntry): Value {
  const dot = raw.path.lastIndexOf('.');
  return {
    name: raw.path,
    nameRaw: Buffer.from(raw.path).toString('base64'),
    path: base === '' ? null : `${base}/${raw.path}`,
    mode: modeInt(raw.mode),
    type: raw.type,
    oid: raw.sha,
    size: raw.size ?? 0,
    extension: raw.type === 'blob' && dot > 0 ? raw.path.slice(dot) : null,
    isGenerated: false,
    object: () => objectValue(repo, raw.sha, base === '' ? null : `${base}/${raw.path}`),
  };
}

function treeValue(repo: FakeRepo, oid: string, path: string | null): Value {
  return {
    __typename: 'Tree',
    oid,
    abbreviatedOid: oid.slice(0, 7),
    entries: async () =>
      (await repo.lsTree(oid, false)).map((raw) => entryValue(repo, path === null ? '' : path, raw)),
  };
}

/** A git object by name (a SHA, or an expression git understands such as `main:src`); null when absent. */
export async function objectValue(
  repo: FakeRepo,
  name: string,
  path: string | null = null,
): Promise<Value | null> {
  if (/[\0\n]/.test(name)) return null;
  const object = await repo.readObject(name);
  if (!object) return null;
  if (object.type === 'tree') return treeValue(repo, object.sha, path);
  if (object.type === 'blob') {
    const text = object.data.includes(0) ? null : object.data.toString('utf8');
    return {
      __typename: 'Blob',
      oid: object.sha,
      abbreviatedOid: object.sha.slice(0, 7),
      byteSize: object.data.length,
      isBinary: text === null,
      isTruncated: false,
      text,
    };
  }
  if (object.type === 'commit') {
    const commit = await repo.readCommit(object.sha);
    return {
      __typename: 'Commit',
      oid: object.sha,
      abbreviatedOid: object.sha.slice(0, 7),
      message: commit?.message ?? '',
      tree: commit ? treeValue(repo, commit.tree, null) : null,
    };
  }
  return null;
}

export function repositoryValue(repo: FakeRepo): Value {
  return {
    __typename: 'Repository',
    name: repo.name,
    nameWithOwner: repo.fullName,
    object: ({ oid, expression }: { oid?: string; expression?: string }) =>
      objectValue(repo, oid ?? expression ?? ''),
  };
}
