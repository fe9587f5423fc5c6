import { HttpError, missing, notFound } from '../http-util.js';
import type { ApiResponse } from '../http-util.js';
import { route } from '../router.js';
import type { Route, RouteContext } from '../router.js';
import { htmlUrl, repoApi } from '../shapes.js';

/** Answers of the contents API carry the content only up to 1 MB. */
const CONTENTS_INLINE_LIMIT = 1024 * 1024;

function contentEntry(
  ctx: RouteContext,
  path: string,
  sha: string,
  type: string,
  size: number,
  ref: string,
): Record<string, unknown> {
  const api = repoApi(ctx.base, ctx.repo);
  const encoded = path.split('/').map(encodeURIComponent).join('/');
  const kind = type === 'tree' ? 'dir' : type === 'commit' ? 'submodule' : 'file';
  const self = `${api}/contents/${encoded}?ref=${encodeURIComponent(ref)}`;
  const git = type === 'commit' ? null : `${api}/git/${type}s/${sha}`;
  const html = `${htmlUrl(ctx.base, ctx.repo)}/${type === 'tree' ? 'tree' : 'blob'}/${ref}/${encoded}`;
  return {
    type: kind,
    size,
    name: path.split('/').pop() ?? path,
    path,
    sha,
    url: self,
    git_url: git,
    html_url: html,
    download_url: kind === 'file' ? `${htmlUrl(ctx.base, ctx.repo)}/raw/${ref}/${encoded}` : null,
    _links: { self, git, html },
  };
}

async function getContents(ctx: RouteContext): Promise<ApiResponse> {
  const ref = ctx.url.searchParams.get('ref') ?? (await ctx.repo.defaultBranch());
  const commit = await ctx.repo.resolveCommit(ref);
  if (!commit) throw await missing(ctx.repo, notFound, () => new HttpError(404, 'This repository is empty.'));
  const path = (ctx.params.path ?? '').replace(/^\/+|\/+$/g, '');
  const object = await ctx.repo.readObject(path === '' ? `${commit}^{tree}` : `${commit}:${path}`);
  if (!object) throw notFound();
  if (object.type === 'tree') {
    const entries = await ctx.repo.lsTree(object.sha, false);
    const prefix = path === '' ? '' : `${path}/`;
    return {
      status: 200,
      body: entries.map((e) => contentEntry(ctx, `${prefix}${e.path}`, e.sha, e.type, e.size ?? 0, ref)),
    };
  }
  if (/application\/vnd\.github(\.v3)?\.raw/.test(String(ctx.req.headers.accept ?? ''))) {
    return { status: 200, body: object.data, headers: { 'content-type': 'application/vnd.github.raw' } };
  }
  const parent = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '';
  const listing = await ctx.repo.lsTree(parent === '' ? `${commit}^{tree}` : `${commit}:${parent}`, false);
  const mode = listing.find((e) => e.path === path.split('/').pop())?.mode;
  const entry = contentEntry(ctx, path, object.sha, object.type, object.data.length, ref);
  if (mode === '120000')
    return { status: 200, body: { ...entry, type: 'symlink', target: object.data.toString('utf8') } };
  const inline = object.data.length <= CONTENTS_INLINE_LIMIT;
  const content = inline ? (object.data.toString('base64').match(/.{1,60}/g) ?? []).join('\n') + '\n' : '';
  return { status: 200, body: { ...entry, content, encoding: inline ? 'base64' : 'none' } };
}

export const contentRoutes: Route[] = [route('GET', '/repos/{owner}/{repo}/contents/{path*}', getContents)];
