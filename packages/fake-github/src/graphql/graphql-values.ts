import { historyValue, refValue } from './graphql-history.js';
import type { RawTreeEntry, FakeRepo, Person, StoredCheckRun, StoredStatus } from '../repo.js';

/**
 * The part of GitHub's GraphQL object graph the stand-in serves, as plain values for graphql-js's default
 * resolvers (a function-valued field is called): `repository(owner:, name:) { object(oid:|expression:) }`
 * for trees, blobs and commits, with a tree's `entries` and each entry's `object`. Fields not served
 * resolve to null (an error for a non-null one).
 */

type Value = Record<string, unknown>;

/** git's octal mode as GraphQL gives it: an Int (33188 for 100644). */
const modeInt = (mode: string): number => parseInt(mode, 8);

/**
 * The trees below one asked tree, from one `git ls-tree -r -t` (a tree's entries by its path below it):
 * nested `entries` are answered from it instead of a git process per tree.
 */
type Below = Promise<Map<string, RawTreeEntry[]>>;

function below(repo: FakeRepo, oid: string): Below {
  return repo.lsTree(oid, true).then((all) => {
    const dirs = new Map<string, RawTreeEntry[]>([['', []]]);
    for (const raw of all) {
      const slash = raw.path.lastIndexOf('/');
      const dir = slash < 0 ? '' : raw.path.slice(0, slash);
      const list = dirs.get(dir) ?? [];
      dirs.set(dir, list);
      list.push({ ...raw, path: raw.path.slice(slash + 1) });
    }
    return dirs;
  });
}

function entryValue(repo: FakeRepo, tree: Below | undefined, dir: string, raw: RawTreeEntry): Value {
  const dot = raw.path.lastIndexOf('.');
  const path = dir === '' ? raw.path : `${dir}/${raw.path}`;
  return {
    name: raw.path,
    nameRaw: Buffer.from(raw.path).toString('base64'),
    path,
    mode: modeInt(raw.mode),
    type: raw.type,
    oid: raw.sha,
    size: raw.size ?? 0,
    extension: raw.type === 'blob' && dot > 0 ? raw.path.slice(dot) : null,
    isGenerated: false,
    // a blob's fields are read only when asked for, as a tree entry's object is usually asked for its trees
    object: () =>
      raw.type === 'tree'
        ? treeValue(repo, raw.sha, tree, tree ? path : '')
        : raw.type === 'blob'
          ? blobValue(repo, raw.sha)
          : null,
  };
}

function treeValue(repo: FakeRepo, oid: string, tree?: Below, dir = ''): Value {
  // listed only when its entries are asked for: a commit's tree is often only named
  let listing = tree;
  const listed = (): Below => (listing ??= below(repo, oid));
  return {
    __typename: 'Tree',
    oid,
    abbreviatedOid: oid.slice(0, 7),
    entries: async () => ((await listed()).get(dir) ?? []).map((raw) => entryValue(repo, listed(), dir, raw)),
  };
}

/**
 * Where the stand-in cuts a Blob's `text`. GitHub documents `isTruncated` ("Indicates whether the contents is
 * truncated") and `text` ("UTF8 text data or null if the Blob is binary") but not the size it truncates at
 * (https://docs.github.com/en/graphql/reference/objects#blob); 512 KiB is the stand-in's choice, below the
 * 1 MiB a client may ask for, so that clients must cope with it.
 */
export const BLOB_TEXT_LIMIT = 512 * 1024;

function blobValue(repo: FakeRepo, oid: string): Value {
  let data: Promise<Buffer> | undefined;
  const bytes = () => (data ??= repo.readObject(oid).then((o) => o?.data ?? Buffer.alloc(0)));
  return {
    __typename: 'Blob',
    oid,
    abbreviatedOid: oid.slice(0, 7),
    byteSize: async () => (await bytes()).length,
    isBinary: async () => (await bytes()).includes(0),
    isTruncated: async () => (await bytes()).length > BLOB_TEXT_LIMIT,
    // text is decoded as UTF-8 whatever the bytes are: a file in another encoding comes back changed
    text: async () => {
      const b = await bytes();
      return b.includes(0) ? null : b.subarray(0, BLOB_TEXT_LIMIT).toString('utf8');
    },
  };
}

/** The entry at `path` in a commit's tree (a TreeEntry value), or null. */
async function fileAt(repo: FakeRepo, commit: string, path: string): Promise<Value | null> {
  const slash = path.lastIndexOf('/');
  const dir = slash < 0 ? '' : path.slice(0, slash);
  if (path === '' || /[\0\n]/.test(path)) return null;
  const parent = await repo.readObject(`${commit}:${dir}`);
  if (!parent || parent.type !== 'tree') return null;
  const raw = (await repo.lsTree(parent.sha, false)).find((e) => e.path === path.slice(slash + 1));
  return raw ? entryValue(repo, undefined, dir, raw) : null;
}

function actorValue(person: Person): Value {
  return { __typename: 'GitActor', name: person.name, email: person.email, date: person.date, user: null };
}

async function commitValue(repo: FakeRepo, oid: string): Promise<Value | null> {
  const commit = await repo.readCommit(oid);
  if (!commit) return null;
  return {
    __typename: 'Commit',
    oid,
    abbreviatedOid: oid.slice(0, 7),
    message: commit.message,
    messageHeadline: commit.message.split('\n')[0],
    messageBody: commit.message.split('\n').slice(1).join('\n').replace(/^\n/, ''),
    author: actorValue(commit.author),
    committer: actorValue(commit.committer),
    authoredDate: commit.author.date,
    committedDate: commit.committer.date,
    // GitHub signs what it commits for the API; the stand-in's signature is a stand-in too
    signature: commit.signature
      ? {
          __typename: 'GpgSignature',
          isValid: true,
          state: 'VALID',
          wasSignedByGitHub: true,
          email: commit.committer.email,
          payload: commit.payload,
          signature: commit.signature,
          signer: null,
          keyId: null,
        }
      : null,
    tree: treeValue(repo, commit.tree),
    file: ({ path }: { path: string }) => fileAt(repo, oid, path),
    history: (args: { path?: string; first?: number; after?: string }) =>
      historyValue(repo, oid, args, commitValue),
    status: () => statusValue(repo, oid),
    checkSuites: (args: { first?: number }) => checkSuitesValue(repo, oid, args),
    parents: ({ first, last }: { first?: number; last?: number }) => {
      const all = commit.parents;
      const nodes = first !== undefined ? all.slice(0, first) : last !== undefined ? all.slice(-last) : all;
      return { totalCount: all.length, nodes: nodes.map((p) => commitValue(repo, p)) };
    },
  };
}

/**
 * `Commit.status`: null without any status; else the newest status of each context (`contexts`,
 * `context(name:)`), as GitHub keeps no older ones in GraphQL, and their combined `state`.
 * https://docs.github.com/en/graphql/reference/objects#status
 */
function statusValue(repo: FakeRepo, oid: string): Value | null {
  const newest = new Map<string, StoredStatus>();
  for (const status of repo.statuses) if (status.sha === oid) newest.set(status.context, status);
  if (newest.size === 0) return null;
  const contextValue = (s: StoredStatus): Value => ({
    __typename: 'StatusContext',
    id: `SC_${repo.id}_${s.id}`,
    context: s.context,
    state: s.state.toUpperCase(),
    description: s.description,
    targetUrl: s.target_url,
    createdAt: s.created_at,
    creator: { __typename: 'Bot', login: s.creator },
    isRequired: false,
  });
  const states = [...newest.values()].map((s) => s.state);
  const state = states.some((s) => s === 'error' || s === 'failure')
    ? 'FAILURE'
    : states.some((s) => s === 'pending')
      ? 'PENDING'
      : 'SUCCESS';
  return {
    __typename: 'Status',
    id: `ST_${repo.id}_${oid}`,
    state,
    contexts: [...newest.values()].map(contextValue),
    context: ({ name }: { name: string }) => {
      const found = newest.get(name);
      return found ? contextValue(found) : null;
    },
  };
}

/**
 * `Commit.checkSuites(first:)`: one suite per App that made check runs on the commit (GitHub makes one a
 * commit and App), each with `checkRuns(first:, filterBy: { checkName, checkType })` newest first
 * (`checkType` LATEST, the default, keeps the newest run of each name). No `after`: the stand-in serves the
 * first page, with `totalCount` so a client knows when there are more.
 * https://docs.github.com/en/graphql/reference/objects#checksuite
 */
function checkSuitesValue(repo: FakeRepo, oid: string, args: { first?: number }): Value {
  const byApp = new Map<number, StoredCheckRun[]>();
  for (const run of repo.checkRuns)
    if (run.headSha === oid) byApp.set(run.app.id, [...(byApp.get(run.app.id) ?? []), run]);
  const suites = [...byApp.values()].map((runs) => ({
    __typename: 'CheckSuite',
    app: { __typename: 'App', slug: runs[0]!.app.slug, name: runs[0]!.app.name, databaseId: runs[0]!.app.id },
    checkRuns: (a: {
      first?: number;
      filterBy?: { checkName?: string | null; checkType?: string | null };
    }) => {
      let listed = runs.filter((r) => !a.filterBy?.checkName || r.name === a.filterBy.checkName).reverse();
      if ((a.filterBy?.checkType ?? 'LATEST') === 'LATEST') {
        const seen = new Set<string>();
        listed = listed.filter((r) => !seen.has(r.name) && seen.add(r.name));
      }
      return {
        totalCount: listed.length,
        nodes: listed.slice(0, a.first ?? 100).map((r) => ({
          __typename: 'CheckRun',
          databaseId: r.id,
          name: r.name,
          status: r.status.toUpperCase(),
          conclusion: r.conclusion === null ? null : r.conclusion.toUpperCase(),
          title: r.output.title,
          startedAt: r.startedAt,
          completedAt: r.completedAt,
        })),
      };
    },
  }));
  return { totalCount: suites.length, nodes: suites.slice(0, args.first ?? 100) };
}

/** A git object by name (a SHA, or an expression git understands such as `main:src`); null when absent. */
export async function objectValue(repo: FakeRepo, name: string): Promise<Value | null> {
  if (/[\0\n]/.test(name)) return null;
  const object = await repo.readObject(name);
  if (!object) return null;
  if (object.type === 'tree') return treeValue(repo, object.sha);
  if (object.type === 'blob') return blobValue(repo, object.sha);
  if (object.type === 'commit') return commitValue(repo, object.sha);
  return null;
}

export function repositoryValue(repo: FakeRepo): Value {
  return {
    __typename: 'Repository',
    name: repo.name,
    nameWithOwner: repo.fullName,
    isPrivate: repo.isPrivate,
    defaultBranchRef: async () => refValue(repo, await repo.defaultBranch(), objectValue),
    object: ({ oid, expression }: { oid?: string; expression?: string }) =>
      objectValue(repo, oid ?? expression ?? ''),
    ref: ({ qualifiedName }: { qualifiedName: string }) => refValue(repo, qualifiedName, objectValue),
  };
}
