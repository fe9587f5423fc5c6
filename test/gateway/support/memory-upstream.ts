/**
 * A small in-memory repository for unit tests of tool logic, with the Upstream roles the gateway takes:
 * coordinates, reads and writes. Blobs and trees have git's own SHAs (so a tree the gateway builds after a
 * push is proven against the upstream's as against GitHub's); commits are content-addressed in a form of
 * their own. SHA-addressed reads count one request the first time only (like the Octokit implementation's cache),
 * and the branch head costs one request per check.
 */
import { createHash } from 'node:crypto';
import { blobSha, listingTreeSha } from '../../../src/github/git-objects.js';
import {
  UpstreamError,
  type CommitInfo,
  type RepoCoordinates,
  type RepoReads,
  type RepoWrites,
  type TreeChange,
  type TreeEntry,
  type UpstreamStats,
} from '../../../src/github/upstream.js';

type Stored =
  | { kind: 'blob'; data: Uint8Array }
  | { kind: 'tree'; entries: TreeEntry[] }
  | { kind: 'commit'; info: CommitInfo };

export interface MemoryUpstream extends RepoCoordinates, RepoReads, RepoWrites {
  /** Commits files (null deletes) directly on a branch, like someone else's push. */
  commitDirect(
    branch: string,
    files: Record<string, string | Uint8Array | null>,
    message?: string,
  ): Promise<string>;
  /** Runs once before the next updateBranch, e.g. to move the branch meanwhile. */
  beforeNextUpdate(hook: () => Promise<void>): void;
  /** Every request by name, in order. */
  log: string[];
}

function hashOf(kind: string, body: Uint8Array | string): string {
  return createHash('sha1').update(`${kind}\0`).update(body).digest('hex');
}

export async function createMemoryUpstream(
  files: Record<string, string | Uint8Array>,
  options: { branch?: string } = {},
): Promise<MemoryUpstream> {
  const objects = new Map<string, Stored>();
  const refs = new Map<string, string>();
  const fetched = new Set<string>();
  const stats: UpstreamStats = { requests: 0, notModified: 0 };
  const lastSeenHead = new Map<string, string>();
  const log: string[] = [];
  let hook: (() => Promise<void>) | null = null;
  let clock = Date.UTC(2026, 0, 1);

  const count = (name: string, key?: string): void => {
    if (key !== undefined) {
      if (fetched.has(key)) return;
      fetched.add(key);
    }
    stats.requests++;
    log.push(name);
  };
  const get = (sha: string, kind: Stored['kind']): Stored => {
    const found = objects.get(sha);
    if (!found || found.kind !== kind) throw new UpstreamError('not_found', `No ${kind} ${sha}`, 404);
    return found;
  };
  const putBlob = (data: Uint8Array): string => {
    const sha = blobSha(data);
    objects.set(sha, { kind: 'blob', data });
    return sha;
  };
  const putTree = (entries: TreeEntry[]): string => {
    const sorted = [...entries].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const sha = listingTreeSha(sorted);
    objects.set(sha, { kind: 'tree', entries: sorted });
    return sha;
  };
  const flatten = (treeSha: string, prefix = ''): Map<string, TreeEntry> => {
    const out = new Map<string, TreeEntry>();
    for (const entry of (get(treeSha, 'tree') as { entries: TreeEntry[] }).entries) {
      const path = prefix + entry.path;
      if (entry.type === 'tree') for (const [p, e] of flatten(entry.sha, `${path}/`)) out.set(p, e);
      else out.set(path, { ...entry, path });
    }
    return out;
  };
  const build = (flat: Map<string, TreeEntry>): string => {
    const dirs = new Map<string, Map<string, TreeEntry>>();
    for (const [path, entry] of flat) {
      const slash = path.indexOf('/');
      const top = slash < 0 ? '' : path.slice(0, slash);
      const rest = path.slice(slash + 1);
      if (!dirs.has(top)) dirs.set(top, new Map());
      dirs.get(top)!.set(slash < 0 ? path : rest, { ...entry, path: slash < 0 ? path : rest });
    }
    const entries: TreeEntry[] = [...(dirs.get('') ?? new Map()).values()];
    for (const [dir, inner] of dirs)
      if (dir !== '') entries.push({ path: dir, mode: '040000', type: 'tree', sha: build(inner) });
    return putTree(entries);
  };
  const changedPaths = (a: string | null, b: string): string[] => {
    const before = a ? flatten(a) : new Map<string, TreeEntry>();
    const after = flatten(b);
    const out: string[] = [];
    for (const [p, e] of after)
      if (before.get(p)?.sha !== e.sha || before.get(p)?.mode !== e.mode) out.push(p);
    for (const p of before.keys()) if (!after.has(p)) out.push(p);
    return out;
  };
  const commitInfo = (sha: string): CommitInfo => (get(sha, 'commit') as { info: CommitInfo }).info;
  const putCommit = (message: string, tree: string, parents: string[]): string => {
    clock += 60_000;
    const who = {
      name: 'github-actions[bot]',
      email: 'bot@example.com',
      date: new Date(clock).toISOString(),
    };
    const info = { tree, parents, message, author: who, committer: who };
    const sha = hashOf('commit', JSON.stringify(info));
    objects.set(sha, { kind: 'commit', info: { sha, ...info } });
    return sha;
  };
  const toFlatChanges = (
    base: Map<string, TreeEntry>,
    files: Record<string, string | Uint8Array | null>,
  ): Map<string, TreeEntry> => {
    const flat = new Map(base);
    for (const [path, content] of Object.entries(files)) {
      if (content === null) flat.delete(path);
      else {
        const data = typeof content === 'string' ? new TextEncoder().encode(content) : content;
        flat.set(path, { path, mode: '100644', type: 'blob', sha: putBlob(data), size: data.length });
      }
    }
    return flat;
  };

  const branch = options.branch ?? 'main';
  const root = build(toFlatChanges(new Map(), files));
  refs.set(`refs/heads/${branch}`, putCommit('initial', root, []));

  const headOf = (name: string): string => {
    const sha = refs.get(`refs/heads/${name}`);
    if (!sha) throw new UpstreamError('not_found', `Branch ${name} not found`, 404);
    return sha;
  };

  const upstream: MemoryUpstream = {
    owner: 'octo',
    repo: 'memory',
    log,
    stats: () => ({ ...stats }),
    async getRepository() {
      count('getRepository');
      return { defaultBranch: branch, private: true };
    },
    async getBranchHead(name) {
      count('getBranchHead');
      const sha = headOf(name);
      if (lastSeenHead.get(name) === sha) stats.notModified++;
      lastSeenHead.set(name, sha);
      return sha;
    },
    async tryGetBranchHead(name) {
      try {
        return await upstream.getBranchHead(name);
      } catch (error) {
        if (error instanceof UpstreamError && error.code === 'not_found') return null;
        throw error;
      }
    },
    async listRefs() {
      count('listRefs');
      return new Map(refs);
    },
    async getCommit(sha) {
      count('getCommit', sha);
      return commitInfo(sha);
    },
    async getTree(sha) {
      count('getTree', sha);
      return (get(sha, 'tree') as { entries: TreeEntry[] }).entries.map((e) => ({ ...e }));
    },
    async getTreeRecursive(sha) {
      count('getTreeRecursive', `r${sha}`);
      const out: TreeEntry[] = [];
      const walk = (treeSha: string, prefix: string): void => {
        for (const entry of (get(treeSha, 'tree') as { entries: TreeEntry[] }).entries) {
          out.push({ ...entry, path: prefix + entry.path });
          if (entry.type === 'tree') walk(entry.sha, `${prefix}${entry.path}/`);
        }
      };
      walk(sha, '');
      return { entries: out, truncated: false };
    },
    async getBlob(sha) {
      count('getBlob', sha);
      return (get(sha, 'blob') as { data: Uint8Array }).data;
    },
    async getCommitFiles(sha) {
      count('getCommitFiles', `f${sha}`);
      const info = commitInfo(sha);
      return {
        paths: changedPaths(info.parents[0] ? commitInfo(info.parents[0]).tree : null, info.tree),
        complete: true,
      };
    },
    async listCommits({ sha, path, perPage = 30, page = 1 }) {
      count('listCommits');
      const seen = new Set<string>();
      const all: CommitInfo[] = [];
      const queue = [sha];
      while (queue.length > 0) {
        const next = queue.shift()!;
        if (seen.has(next)) continue;
        seen.add(next);
        const info = commitInfo(next);
        all.push(info);
        queue.push(...info.parents);
      }
      all.sort((a, b) => (a.committer.date < b.committer.date ? 1 : -1));
      const touching = path
        ? all.filter((c) =>
            changedPaths(c.parents[0] ? commitInfo(c.parents[0]).tree : null, c.tree).some(
              (p) => p === path || p.startsWith(`${path}/`),
            ),
          )
        : all;
      return touching.slice((page - 1) * perPage, page * perPage);
    },
    async isAncestor(ancestor, descendant) {
      count('isAncestor');
      get(ancestor, 'commit');
      const queue = [descendant];
      const seen = new Set<string>();
      while (queue.length > 0) {
        const next = queue.shift()!;
        if (next === ancestor) return true;
        if (seen.has(next)) continue;
        seen.add(next);
        queue.push(...commitInfo(next).parents);
      }
      return false;
    },
    async compare() {
      throw new UpstreamError('unavailable', 'compare is not emulated here');
    },
    async serverTime() {
      return new Date(clock).toISOString();
    },
    async listActivity() {
      count('listActivity');
      return { items: [], complete: true };
    },
    async createBlob(content) {
      count('createBlob');
      return putBlob(content);
    },
    async createTree(baseTree, changes: TreeChange[]) {
      count('createTree');
      const flat = flatten(baseTree);
      for (const change of changes) {
        if ('content' in change) {
          const data = new TextEncoder().encode(change.content);
          flat.set(change.path, {
            path: change.path,
            mode: change.mode,
            type: 'blob',
            sha: putBlob(data),
            size: data.length,
          });
        } else if (change.sha === null) flat.delete(change.path);
        else {
          const blob = get(change.sha, 'blob') as { data: Uint8Array };
          flat.set(change.path, {
            path: change.path,
            mode: change.mode,
            type: 'blob',
            sha: change.sha,
            size: blob.data.length,
          });
        }
      }
      return build(flat);
    },
    async createCommit(message, tree, parents) {
      count('createCommit');
      get(tree, 'tree');
      return putCommit(message, tree, parents);
    },
    async createBranch() {
      throw new UpstreamError('unavailable', 'branches are not created here');
    },
    async deleteBranch() {
      throw new UpstreamError('unavailable', 'branches are not deleted here');
    },
    async updateBranch(name, sha) {
      count('updateBranch');
      if (hook) {
        const run = hook;
        hook = null;
        await run();
      }
      const current = headOf(name);
      const reachable = await (async () => {
        const queue = [sha];
        const seen = new Set<string>();
        while (queue.length > 0) {
          const next = queue.shift()!;
          if (next === current) return true;
          if (seen.has(next)) continue;
          seen.add(next);
          queue.push(...commitInfo(next).parents);
        }
        return false;
      })();
      if (!reachable) throw new UpstreamError('not_fast_forward', 'Update is not a fast forward', 422);
      refs.set(`refs/heads/${name}`, sha);
    },
    async getFileAtRef() {
      throw new UpstreamError('not_found', 'not supported here', 404);
    },
    async listRulesets() {
      return [];
    },
    async commitDirect(name, changes, message = 'direct push') {
      const head = headOf(name);
      const flat = toFlatChanges(flatten(commitInfo(head).tree), changes);
      const sha = putCommit(message, build(flat), [head]);
      refs.set(`refs/heads/${name}`, sha);
      return sha;
    },
    beforeNextUpdate(next) {
      hook = next;
    },
  };
  return upstream;
}
