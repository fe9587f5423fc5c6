import {
  EncodedJson,
  missing,
  emptyRepository,
  isSha,
  readJson,
  unprocessable,
  validationFailed,
} from '../http-util.js';
import type { ApiResponse } from '../http-util.js';
import type { RawTreeEntry } from '../repo.js';
import { buildTree } from '../git/tree-builder.js';
import type { TreeWrite } from '../git/tree-builder.js';
import { route } from '../router.js';
import type { Route, RouteContext } from '../router.js';
import { writeCommit, type Identity } from '../git/commit-writer.js';
import { gitCommitJson, repoApi } from '../shapes.js';

/**
 * GitHub's caps on a recursive tree answer: "The limit for the tree array is 100,000 entries with a maximum
 * size of 7 MB when using the recursive parameter" (https://docs.github.com/en/rest/git/trees#get-a-tree).
 * Whichever is reached first truncates the answer. At about 200 bytes an entry the byte cap comes first,
 * near 35,000 entries. Tests may lower both through the server options.
 */
export const TREE_ENTRY_LIMIT = 100_000;
export const TREE_BYTE_LIMIT = 7 * 1024 * 1024;

export interface TreeLimits {
  entries: number;
  bytes: number;
}

async function refuseEmpty(ctx: RouteContext): Promise<void> {
  if (await ctx.repo.isEmpty()) throw emptyRepository();
}

function wrapBase64(data: Buffer): string {
  return (data.toString('base64').match(/.{1,60}/g) ?? []).join('\n') + '\n';
}

function wantsRaw(ctx: RouteContext): boolean {
  return /application\/vnd\.github(\.v3)?\.raw/.test(String(ctx.req.headers.accept ?? ''));
}

export function treeRoutes(limits: TreeLimits): Route[] {
  return [
    route('GET', '/repos/{owner}/{repo}/git/trees/{sha}', async (ctx) => {
      const tree = await ctx.repo.readObject(`${ctx.params.sha}^{tree}`);
      if (!tree || tree.type !== 'tree') throw await missing(ctx.repo);
      const recursive = ctx.url.searchParams.has('recursive');
      const entries = await ctx.repo.lsTree(tree.sha, recursive);
      const caps = recursive ? limits : { entries: Infinity, bytes: Infinity };
      return { status: 200, body: treeJson(repoApi(ctx.base, ctx.repo), tree.sha, entries, caps) };
    }),

    route('POST', '/repos/{owner}/{repo}/git/trees', async (ctx) => {
      const body = await readJson(ctx.req);
      await refuseEmpty(ctx);
      if (!Array.isArray(body.tree)) throw unprocessable('Invalid request.\n\n"tree" wasn\'t supplied.');
      if (body.base_tree !== undefined && body.base_tree !== null) {
        const base =
          typeof body.base_tree === 'string' ? await ctx.repo.readObject(`${body.base_tree}^{tree}`) : null;
        if (!base || !isSha(body.base_tree)) throw unprocessable('base_tree is not a valid tree oid');
      }
      const writes = (body.tree as unknown[]).map(parseTreeWrite);
      const sha = await buildTree(
        ctx.repo,
        typeof body.base_tree === 'string' ? body.base_tree : null,
        writes,
      );
      const tree = await ctx.repo.lsTree(sha, false);
      const api = repoApi(ctx.base, ctx.repo);
      return {
        status: 201,
        body: {
          sha,
          url: `${api}/git/trees/${sha}`,
          tree: tree.map((e) => ({
            path: e.path,
            mode: e.mode,
            type: e.type,
            sha: e.sha,
            size: e.size,
            url: e.type === 'commit' ? undefined : `${api}/git/${e.type}s/${e.sha}`,
          })),
          truncated: false,
        },
      };
    }),

    route('GET', '/repos/{owner}/{repo}/git/blobs/{sha}', async (ctx) => {
      const blob = isSha(ctx.params.sha) ? await ctx.repo.readObject(ctx.params.sha!) : null;
      if (!blob || blob.type !== 'blob') throw await missing(ctx.repo);
      if (wantsRaw(ctx))
        return { status: 200, body: blob.data, headers: { 'content-type': 'application/vnd.github.raw' } };
      return {
        status: 200,
        body: {
          sha: blob.sha,
          node_id: Buffer.from(`Blob:${blob.sha}`).toString('base64'),
          size: blob.data.length,
          url: `${repoApi(ctx.base, ctx.repo)}/git/blobs/${blob.sha}`,
          content: wrapBase64(blob.data),
          encoding: 'base64',
        },
      };
    }),

    route('POST', '/repos/{owner}/{repo}/git/blobs', async (ctx) => {
      const body = await readJson(ctx.req);
      await refuseEmpty(ctx);
      if (typeof body.content !== 'string')
        throw unprocessable('Invalid request.\n\n"content" wasn\'t supplied.');
      const encoding = body.encoding ?? 'utf-8';
      if (encoding !== 'utf-8' && encoding !== 'utf8' && encoding !== 'base64') {
        throw validationFailed('Blob', 'encoding', 'custom', `encoding must be one of: utf-8, base64`);
      }
      const data =
        encoding === 'base64' ? Buffer.from(body.content, 'base64') : Buffer.from(body.content, 'utf8');
      const sha = await ctx.repo.hashObject('blob', data);
      return { status: 201, body: { url: `${repoApi(ctx.base, ctx.repo)}/git/blobs/${sha}`, sha } };
    }),

    route('GET', '/repos/{owner}/{repo}/git/commits/{sha}', async (ctx) => {
      const commit = isSha(ctx.params.sha) ? await ctx.repo.readCommit(ctx.params.sha!) : null;
      if (!commit) throw await missing(ctx.repo);
      return { status: 200, body: gitCommitJson(ctx.base, ctx.repo, commit) };
    }),

    route('POST', '/repos/{owner}/{repo}/git/commits', createCommit),
  ];
}

/**
 * The tree answer written as JSON text directly: a recursive tree can hold 100,000 entries, and
 * building objects to stringify them doubles the time of the request. Entries are listed in git's order
 * until the next one would pass either cap (the answer's size in UTF-8 bytes, or the entry count).
 */
function treeJson(api: string, sha: string, entries: RawTreeEntry[], limits: TreeLimits): EncodedJson {
  const apiText = JSON.stringify(api).slice(1, -1);
  const head = `{"sha":"${sha}","url":"${apiText}/git/trees/${sha}","tree":[`;
  const tail = (truncated: boolean) => `],"truncated":${truncated}}`;
  let bytes = Buffer.byteLength(head) + Buffer.byteLength(tail(false));
  const parts: string[] = [];
  for (const e of entries) {
    const size = e.size === undefined ? '' : `,"size":${e.size}`;
    const url = e.type === 'commit' ? '' : `,"url":"${apiText}/git/${e.type}s/${e.sha}"`;
    const part = `{"path":${JSON.stringify(e.path)},"mode":"${e.mode}","type":"${e.type}","sha":"${e.sha}"${size}${url}}`;
    bytes += Buffer.byteLength(part) + (parts.length > 0 ? 1 : 0);
    if (parts.length >= limits.entries || bytes > limits.bytes) break;
    parts.push(part);
  }
  return new EncodedJson(head + parts.join(',') + tail(parts.length < entries.length));
}

function parseTreeWrite(item: unknown): TreeWrite {
  const bad = (why: string): never => {
    throw unprocessable(`Invalid tree info: ${why}`);
  };
  if (typeof item !== 'object' || item === null) return bad('entries must be objects');
  const entry = item as Record<string, unknown>;
  const { path, mode, type, sha, content } = entry;
  if (typeof path !== 'string' || path === '') return bad('path is required');
  if (typeof mode !== 'string' || !['100644', '100755', '040000', '160000', '120000'].includes(mode)) {
    return bad(`mode must be one of 100644, 100755, 040000, 160000, 120000 (got ${JSON.stringify(mode)})`);
  }
  const kind = type ?? (mode === '040000' ? 'tree' : mode === '160000' ? 'commit' : 'blob');
  if (kind !== 'blob' && kind !== 'tree' && kind !== 'commit')
    return bad(`type must be blob, tree or commit`);
  if ('sha' in entry && content !== undefined) return bad('give either sha or content, not both');
  if (content !== undefined) {
    if (typeof content !== 'string') return bad('content must be a string');
    if (kind !== 'blob') return bad('content is only allowed for blobs');
    return { path, mode, type: 'blob', content };
  }
  if (sha === null) return { path, mode, type: kind, sha: null };
  if (!isSha(sha)) return bad(`sha must be a 40-character SHA or null`);
  return { path, mode, type: kind, sha };
}

function identity(value: unknown, field: string): Identity | null {
  if (value === undefined || value === null) return null;
  const v = value as Record<string, unknown>;
  if (typeof v !== 'object' || typeof v.name !== 'string' || typeof v.email !== 'string') {
    throw validationFailed('Commit', field, 'invalid', `${field} needs a name and an email`);
  }
  const date = typeof v.date === 'string' ? v.date : new Date().toISOString();
  if (Number.isNaN(Date.parse(date))) throw validationFailed('Commit', `${field}.date`, 'invalid');
  return { name: v.name, email: v.email, date };
}

async function createCommit(ctx: RouteContext): Promise<ApiResponse> {
  const body = await readJson(ctx.req);
  await refuseEmpty(ctx);
  if (typeof body.message !== 'string')
    throw unprocessable('Invalid request.\n\n"message" wasn\'t supplied.');
  const tree = isSha(body.tree) ? await ctx.repo.readObject(body.tree) : null;
  if (!tree || tree.type !== 'tree') throw unprocessable('Tree SHA does not exist');
  const parents = body.parents ?? [];
  if (!Array.isArray(parents))
    throw unprocessable("Invalid request.\n\nFor 'properties/parents', not an array.");
  for (const parent of parents) {
    const commit = isSha(parent) ? await ctx.repo.readCommit(parent) : null;
    if (!commit) throw unprocessable('Parent SHA does not exist or is not a commit object');
  }
  const now = new Date().toISOString();
  const author = identity(body.author, 'author');
  const committer = identity(body.committer, 'committer');
  const sha = await writeCommit(ctx.repo, {
    tree: tree.sha,
    parents: parents as string[],
    message: body.message,
    actor: ctx.actor,
    ...(author ? { author } : {}),
    ...(committer ? { committer } : {}),
    now,
  });
  const commit = await ctx.repo.readCommit(sha);
  return { status: 201, body: gitCommitJson(ctx.base, ctx.repo, commit!) };
}
