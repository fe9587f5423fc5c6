import { DOWNLOAD_URL_TTL_MS, type ArtifactStore, type StoredArtifact } from '../actions/artifact-store.js';
import { HttpError, linkHeader, notFound, pageParams } from '../http-util.js';
import type { ApiResponse } from '../http-util.js';
import { route } from '../router.js';
import type { Route, RouteContext } from '../router.js';
import { repoApi } from '../shapes.js';

/**
 * The REST side of workflow artifacts, for another job or an owner: list a run's artifacts, get one, and
 * download it, which answers 302 with a signed URL in Location that expires after a minute.
 * https://docs.github.com/rest/actions/artifacts
 */
const iso = (date: Date): string => date.toISOString().replace(/\.\d+Z$/, 'Z');

function artifactJson(ctx: RouteContext, a: StoredArtifact): Record<string, unknown> {
  const url = `${repoApi(ctx.base, ctx.repo)}/actions/artifacts/${a.id}`;
  return {
    id: a.id,
    node_id: Buffer.from(`06:Artifact${a.id}`).toString('base64'),
    name: a.name,
    size_in_bytes: a.size,
    url,
    archive_download_url: `${url}/zip`,
    expired: a.expiresAt.getTime() <= Date.now(),
    created_at: iso(a.createdAt),
    expires_at: iso(a.expiresAt),
    updated_at: iso(a.finalizedAt ?? a.createdAt),
    digest: a.digest,
    workflow_run: { id: a.runId, repository_id: ctx.repo.id, head_repository_id: ctx.repo.id },
  };
}

export function artifactRoutes(store: ArtifactStore): Route[] {
  const ofRepo = (ctx: RouteContext) => (a: StoredArtifact) =>
    a.repository.toLowerCase() === ctx.repo.fullName.toLowerCase();

  function page(ctx: RouteContext, list: StoredArtifact[]): ApiResponse {
    const name = ctx.url.searchParams.get('name');
    const chosen = list.filter((a) => name === null || a.name === name);
    if (ctx.url.searchParams.get('direction') !== 'asc') chosen.reverse();
    const { perPage, page: at } = pageParams(ctx.url);
    const lastPage = Math.max(1, Math.ceil(chosen.length / perPage));
    const link = linkHeader(ctx.url, at, at < lastPage, lastPage);
    return {
      status: 200,
      body: {
        total_count: chosen.length,
        artifacts: chosen.slice((at - 1) * perPage, at * perPage).map((a) => artifactJson(ctx, a)),
      },
      headers: link ? { link } : {},
    };
  }

  function one(ctx: RouteContext): StoredArtifact {
    const id = Number(ctx.params.artifact_id);
    const found = store.finalized(ofRepo(ctx)).find((a) => a.id === id);
    if (!found) throw notFound();
    return found;
  }

  return [
    route('GET', '/repos/{owner}/{repo}/actions/artifacts', async (ctx) =>
      page(ctx, store.finalized(ofRepo(ctx))),
    ),
    route('GET', '/repos/{owner}/{repo}/actions/runs/{run_id}/artifacts', async (ctx) => {
      const runId = Number(ctx.params.run_id);
      if (store.runtime.runBackendId(ctx.repo.fullName, runId) === undefined) throw notFound();
      return page(
        ctx,
        store.finalized((a) => ofRepo(ctx)(a) && a.runId === runId),
      );
    }),
    route('GET', '/repos/{owner}/{repo}/actions/artifacts/{artifact_id}', async (ctx) => ({
      status: 200,
      body: artifactJson(ctx, one(ctx)),
    })),
    route('GET', '/repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}', async (ctx) => {
      if (ctx.params.archive_format !== 'zip') throw notFound();
      const artifact = one(ctx);
      if (artifact.expiresAt.getTime() <= Date.now()) throw new HttpError(410, 'Artifact has expired');
      return { status: 302, headers: { location: store.signedUrl(artifact, 'r', DOWNLOAD_URL_TTL_MS) } };
    }),
    route('DELETE', '/repos/{owner}/{repo}/actions/artifacts/{artifact_id}', async (ctx) => {
      store.remove(one(ctx));
      return { status: 204 };
    }),
  ];
}
