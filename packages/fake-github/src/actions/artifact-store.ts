import { createHash } from 'node:crypto';
import type { ActionsRuntime } from './actions-runtime.js';

/**
 * Workflow artifacts (v4, the results service): created, uploaded to blob storage through a signed URL,
 * then finalized with their size and SHA-256. Only a finalized artifact is listed or downloadable; its
 * content never changes after that (GitHub: "artifacts are immutable").
 * https://docs.github.com/actions/writing-workflows/choosing-what-your-workflow-does/storing-and-sharing-data-from-a-workflow
 */
export interface StoredArtifact {
  id: number;
  name: string;
  /** 'owner/name' */
  repository: string;
  runId: number;
  runBackendId: string;
  jobBackendId: string;
  mimeType: string;
  createdAt: Date;
  expiresAt: Date;
  finalizedAt: Date | null;
  size: number;
  /** 'sha256:<hex>' once finalized */
  digest: string | null;
  /** path of its blob under the storage account, e.g. '/fakeartifacts/actions-results/<run>/<job>/<name>.zip' */
  blobPath: string;
}

export interface Blob {
  /** uncommitted blocks by block ID */
  staged: Map<string, Buffer>;
  committed: Buffer | null;
  contentType: string;
}

/** The storage account's first path segment (an IP host makes the Azure SDK read paths as /account/container/blob). */
export const BLOB_ACCOUNT = 'fakeartifacts';
const CONTAINER = 'actions-results';
/** GitHub: "The download URL expires after 1 minute" (REST zip redirect); uploads get longer. */
export const DOWNLOAD_URL_TTL_MS = 60_000;
export const UPLOAD_URL_TTL_MS = 6 * 3600_000;
/** A repository's default artifact retention. */
export const DEFAULT_RETENTION_DAYS = 90;

export class ArtifactStore {
  readonly artifacts: StoredArtifact[] = [];
  readonly blobs = new Map<string, Blob>();
  private nextId = 7000;

  constructor(
    readonly runtime: ActionsRuntime,
    private readonly baseUrl: () => string,
  ) {}

  create(fields: Omit<StoredArtifact, 'id' | 'createdAt' | 'finalizedAt' | 'size' | 'digest' | 'blobPath'>) {
    const id = this.nextId++;
    const artifact: StoredArtifact = {
      ...fields,
      id,
      createdAt: new Date(),
      finalizedAt: null,
      size: 0,
      digest: null,
      blobPath: `/${BLOB_ACCOUNT}/${CONTAINER}/${fields.runBackendId}/${fields.jobBackendId}/${encodeURIComponent(fields.name)}-${id}.zip`,
    };
    this.artifacts.push(artifact);
    this.blobs.set(artifact.blobPath, { staged: new Map(), committed: null, contentType: fields.mimeType });
    return artifact;
  }

  /** The artifact of a run by name (finalized or not); names are unique in a run. */
  inRun(runBackendId: string, name: string): StoredArtifact | undefined {
    return this.artifacts.find((a) => a.runBackendId === runBackendId && a.name === name);
  }

  finalized(filter: (a: StoredArtifact) => boolean): StoredArtifact[] {
    return this.artifacts.filter((a) => a.finalizedAt !== null && filter(a));
  }

  byBlobPath(path: string): StoredArtifact | undefined {
    return this.artifacts.find((a) => a.blobPath === path);
  }

  remove(artifact: StoredArtifact): void {
    this.artifacts.splice(this.artifacts.indexOf(artifact), 1);
    this.blobs.delete(artifact.blobPath);
  }

  /** Checks the uploaded blob against what the client says it uploaded, then seals the artifact. */
  finalize(artifact: StoredArtifact, size: number, hash: string | null): string | null {
    const blob = this.blobs.get(artifact.blobPath);
    if (!blob?.committed) return 'the artifact has no uploaded content (its block list was never committed)';
    if (blob.committed.length !== size)
      return `the size given, ${size} bytes, is not the uploaded content's ${blob.committed.length} bytes`;
    const digest = `sha256:${createHash('sha256').update(blob.committed).digest('hex')}`;
    if (hash !== null && hash !== digest)
      return `the hash given, ${hash}, is not the uploaded content's ${digest}`;
    artifact.size = size;
    artifact.digest = digest;
    artifact.finalizedAt = new Date();
    return null;
  }

  /** A SAS-style URL to the artifact's blob: `sp` the permissions (cw: write, r: read), `se` the expiry. */
  signedUrl(artifact: StoredArtifact, permissions: 'cw' | 'r', ttlMs: number): string {
    const url = new URL(artifact.blobPath, this.baseUrl());
    const expiry = new Date(Date.now() + ttlMs).toISOString().replace(/\.\d+Z$/, 'Z');
    url.searchParams.set('sv', '2025-01-05');
    url.searchParams.set('se', expiry);
    url.searchParams.set('sr', 'b');
    url.searchParams.set('sp', permissions);
    url.searchParams.set('sig', this.signature(url.pathname, permissions, expiry));
    return url.href;
  }

  signature(path: string, permissions: string, expiry: string): string {
    return this.runtime.sign(`${permissions}\n${expiry}\n${path}`);
  }
}
