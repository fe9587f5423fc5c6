import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JobRun } from './actions-runtime.js';
import {
  DEFAULT_RETENTION_DAYS,
  DOWNLOAD_URL_TTL_MS,
  UPLOAD_URL_TTL_MS,
  type ArtifactStore,
  type StoredArtifact,
} from './artifact-store.js';
import { readBody } from '../http-util.js';

/**
 * The results service's ArtifactService as @actions/artifact (v2+) calls it at ACTIONS_RESULTS_URL: Twirp
 * over JSON, `POST /twirp/github.actions.results.api.v1.ArtifactService/<Method>`, the runtime token as
 * bearer, proto field names in requests, int64 as strings, Timestamp as RFC 3339. Errors are Twirp's
 * `{code, msg}` with the code's HTTP status (https://twitchtv.github.io/twirp/docs/spec_v7.html).
 * Every request names the run and job backend IDs; they must be the token's own.
 */
export const TWIRP_PREFIX = '/twirp/github.actions.results.api.v1.ArtifactService/';

const STATUS: Record<string, number> = {
  invalid_argument: 400,
  malformed: 400,
  unauthenticated: 401,
  permission_denied: 403,
  not_found: 404,
  bad_route: 404,
  already_exists: 409,
  failed_precondition: 412,
};

class TwirpError extends Error {
  constructor(
    readonly code: keyof typeof STATUS,
    message: string,
  ) {
    super(message);
  }
}

type Request = Record<string, unknown>;

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const ts = (date: Date): string => date.toISOString();

function ownJob(job: JobRun, request: Request): void {
  if (text(request.workflow_run_backend_id) !== job.runBackendId)
    throw new TwirpError('permission_denied', "the workflow run backend ID is not the token's run");
  if (text(request.workflow_job_run_backend_id) !== job.jobBackendId)
    throw new TwirpError('permission_denied', "the workflow job run backend ID is not the token's job");
}

function ownRun(job: JobRun, request: Request): void {
  if (text(request.workflow_run_backend_id) !== job.runBackendId)
    throw new TwirpError('permission_denied', "the workflow run backend ID is not the token's run");
}

function name(request: Request): string {
  const value = text(request.name);
  if (value === '') throw new TwirpError('invalid_argument', 'name is required');
  return value;
}

function expiry(request: Request): Date {
  if (request.expires_at === undefined) return new Date(Date.now() + DEFAULT_RETENTION_DAYS * 86_400_000);
  const at = new Date(text(request.expires_at));
  if (Number.isNaN(at.getTime())) throw new TwirpError('invalid_argument', 'expires_at is not a timestamp');
  if (at.getTime() <= Date.now()) throw new TwirpError('invalid_argument', 'expires_at is in the past');
  return at;
}

function integer(value: unknown, field: string): number {
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n)) throw new TwirpError('invalid_argument', `${field} is not an int64`);
  return n;
}

function monolith(artifact: StoredArtifact): Record<string, unknown> {
  return {
    workflow_run_backend_id: artifact.runBackendId,
    workflow_job_run_backend_id: artifact.jobBackendId,
    database_id: String(artifact.id),
    name: artifact.name,
    size: String(artifact.size),
    created_at: ts(artifact.createdAt),
    ...(artifact.digest ? { digest: artifact.digest } : {}),
  };
}

const METHODS: Record<string, (store: ArtifactStore, job: JobRun, request: Request) => Request> = {
  CreateArtifact(store, job, request) {
    ownJob(job, request);
    const artifactName = name(request);
    if (typeof request.version !== 'number' || request.version < 4)
      throw new TwirpError('invalid_argument', 'version must be 4 or later');
    if (store.inRun(job.runBackendId, artifactName))
      throw new TwirpError('already_exists', 'an artifact with this name already exists on the workflow run');
    const artifact = store.create({
      name: artifactName,
      repository: job.repository,
      runId: job.runId,
      runBackendId: job.runBackendId,
      jobBackendId: job.jobBackendId,
      mimeType: text(request.mime_type) || 'application/zip',
      expiresAt: expiry(request),
    });
    return { ok: true, signed_upload_url: store.signedUrl(artifact, 'cw', UPLOAD_URL_TTL_MS) };
  },
  FinalizeArtifact(store, job, request) {
    ownJob(job, request);
    const artifact = store.inRun(job.runBackendId, name(request));
    if (!artifact || artifact.jobBackendId !== job.jobBackendId)
      throw new TwirpError('not_found', 'no artifact of this name was created by this job');
    if (artifact.finalizedAt)
      throw new TwirpError('failed_precondition', 'the artifact is already finalized');
    const size = integer(request.size ?? '0', 'size');
    const problem = store.finalize(artifact, size, request.hash === undefined ? null : text(request.hash));
    if (problem) throw new TwirpError('invalid_argument', problem);
    return { ok: true, artifact_id: String(artifact.id) };
  },
  ListArtifacts(store, job, request) {
    ownRun(job, request);
    const byName = request.name_filter === undefined ? null : text(request.name_filter);
    const byId = request.id_filter === undefined ? null : integer(request.id_filter, 'id_filter');
    const listed = store.finalized(
      (a) =>
        a.runBackendId === job.runBackendId &&
        a.expiresAt.getTime() > Date.now() &&
        (byName === null || a.name === byName) &&
        (byId === null || a.id === byId),
    );
    return { artifacts: listed.map(monolith) };
  },
  GetSignedArtifactURL(store, job, request) {
    ownRun(job, request);
    const artifact = store.inRun(job.runBackendId, name(request));
    if (!artifact?.finalizedAt || artifact.expiresAt.getTime() <= Date.now())
      throw new TwirpError('not_found', 'artifact not found');
    return { signed_url: store.signedUrl(artifact, 'r', DOWNLOAD_URL_TTL_MS) };
  },
  DeleteArtifact(store, job, request) {
    ownRun(job, request);
    const artifact = store.inRun(job.runBackendId, name(request));
    if (!artifact?.finalizedAt) throw new TwirpError('not_found', 'artifact not found');
    store.remove(artifact);
    return { ok: true, artifact_id: String(artifact.id) };
  },
};

export async function handleResults(
  store: ArtifactStore,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
): Promise<void> {
  const reply = (status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  try {
    const method = METHODS[path.slice(TWIRP_PREFIX.length)];
    if (req.method !== 'POST' || !method)
      throw new TwirpError('bad_route', `no such method: ${req.method} ${path}`);
    const job = store.runtime.authenticate(req.headers.authorization);
    if ('refused' in job) throw new TwirpError('unauthenticated', job.refused);
    if (!String(req.headers['content-type'] ?? '').startsWith('application/json'))
      throw new TwirpError('bad_route', 'only application/json is served here');
    let request: unknown;
    try {
      request = JSON.parse((await readBody(req)).toString('utf8'));
    } catch {
      throw new TwirpError('malformed', 'the body is not JSON');
    }
    if (typeof request !== 'object' || request === null || Array.isArray(request))
      throw new TwirpError('malformed', 'the body is not a JSON object');
    reply(200, method(store, job, request as Request));
  } catch (error) {
    if (!(error instanceof TwirpError)) throw error;
    reply(STATUS[error.code]!, { code: error.code, msg: error.message });
  }
}
