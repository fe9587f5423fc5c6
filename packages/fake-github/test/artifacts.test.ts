import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedRepo, startFakeGithub } from '../src/index.js';
import type { ActionsJob, FakeGithub } from '../src/index.js';
import { restClient, scratchDir } from './test-support.js';
import type { Api } from './test-support.js';

/**
 * The artifact service as @actions/artifact really talks to it: the results service's Twirp methods with the
 * runtime token, the signed blob upload through @azure/storage-blob, and the REST side for other runs.
 */
type ArtifactModule = typeof import('@actions/artifact');
const SERVICE = '/twirp/github.actions.results.api.v1.ArtifactService';

describe('the artifact service', () => {
  let gh: FakeGithub;
  let api: Api;
  let dir: string;
  let cleanup: () => Promise<void>;
  let artifact: ArtifactModule;
  let files: string[];

  /** Env as a runner gives an action step of `job`; @actions/artifact reads it on every call. */
  function asJob(job: ActionsJob): void {
    process.env.ACTIONS_RUNTIME_TOKEN = job.token;
    process.env.ACTIONS_RESULTS_URL = job.resultsUrl;
  }
  const start = (runId: number, job = 'implement') => gh.startJob({ repository: 'acme/app', runId, job });

  /** A Twirp call as the client makes it. */
  async function twirp(job: ActionsJob, method: string, body: unknown, token = job.token) {
    const response = await fetch(`${gh.url}${SERVICE}/${method}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, string> };
  }
  const ids = (job: ActionsJob) => ({
    workflow_run_backend_id: job.runBackendId,
    workflow_job_run_backend_id: job.jobBackendId,
  });

  beforeAll(async () => {
    const scratch = await scratchDir();
    cleanup = scratch.cleanup;
    dir = scratch.dir;
    await seedRepo(join(dir, 'repo.git'), { 'README.md': '# hi\n' });
    gh = await startFakeGithub({ repos: { 'acme/app': join(dir, 'repo.git') } });
    api = restClient(gh.url);
    // @actions/github reads the API URL when it is loaded
    process.env.GITHUB_API_URL = gh.url;
    process.env.GITHUB_SERVER_URL = 'https://github.com';
    process.env.GITHUB_WORKSPACE = dir;
    artifact = await import('@actions/artifact');
    await mkdir(join(dir, 'record'));
    files = [join(dir, 'record', 'ledger.jsonl'), join(dir, 'record', 'receipt.json')];
    await writeFile(files[0]!, '{"seq":1}\n');
    await writeFile(files[1]!, '{"state":"success"}\n');
  }, 60_000);
  afterAll(async () => {
    await gh.stop();
    await cleanup();
  });

  describe('when a job uploads with its runtime token', () => {
    it('is listed and downloadable in the run, by the REST API and from another run', async () => {
      const job = start(101);
      asJob(job);
      const client = new artifact.DefaultArtifactClient();
      const uploaded = await client.uploadArtifact('record-a', files, join(dir, 'record'), {
        retentionDays: 5,
      });
      const id = uploaded.id!;
      const stored = gh.artifacts().find((a) => a.id === id)!;
      expect(`sha256:${uploaded.digest}`).toBe(stored.digest);
      expect(uploaded.size).toBe(stored.content.length);

      const { artifacts } = await client.listArtifacts();
      expect(artifacts.map((a) => a.name)).toEqual(['record-a']);
      const into = join(dir, 'down-internal');
      await client.downloadArtifact(id, { path: into });
      expect(await readFile(join(into, 'receipt.json'), 'utf8')).toBe('{"state":"success"}\n');

      // another run, with a token that may read actions: the REST list and the 302 to a signed URL
      asJob(start(102, 'audit'));
      const findBy = {
        token: 'test-token',
        workflowRunId: 101,
        repositoryOwner: 'acme',
        repositoryName: 'app',
      };
      const found = await client.getArtifact('record-a', { findBy });
      expect(found.artifact.id).toBe(id);
      const elsewhere = join(dir, 'down-public');
      const { digestMismatch } = await client.downloadArtifact(id, {
        path: elsewhere,
        findBy,
        expectedHash: stored.digest,
      });
      expect(digestMismatch).toBe(false);
      expect(await readFile(join(elsewhere, 'ledger.jsonl'), 'utf8')).toBe('{"seq":1}\n');

      const list = await api('GET', '/repos/acme/app/actions/runs/101/artifacts');
      expect(list.body.total_count).toBe(1);
      expect(list.body.artifacts[0]).toMatchObject({
        name: 'record-a',
        digest: stored.digest,
        expired: false,
      });
      const zip = await fetch(`${gh.url}/repos/acme/app/actions/artifacts/${id}/zip`, {
        headers: { authorization: 'token test-token' },
        redirect: 'manual',
      });
      expect(zip.status).toBe(302);
      const blob = await fetch(zip.headers.get('location')!);
      expect(Buffer.from(await blob.arrayBuffer()).equals(stored.content)).toBe(true);
      expect((await api('GET', '/repos/acme/app/actions/runs/999/artifacts')).status).toBe(404);
    }, 60_000);
  });

  describe('when the upload is not as the service wants it', () => {
    it('refuses a token it did not issue, a tampered one and one of a job that ended', async () => {
      const job = start(201);
      const [head, , sig] = job.token.split('.');
      const forged = `${head}.${Buffer.from(JSON.stringify({ scp: `Actions.Results:${job.runBackendId}:${job.jobBackendId}`, exp: 4e9 })).toString('base64url')}.${sig}`;
      asJob({ ...job, token: forged });
      const client = new artifact.DefaultArtifactClient();
      await expect(client.uploadArtifact('x', files, join(dir, 'record'))).rejects.toThrow(
        /\(401\) Unauthorized: the token signature does not verify/,
      );
      gh.endJob(job.jobBackendId);
      asJob(job);
      await expect(client.uploadArtifact('x', files, join(dir, 'record'))).rejects.toThrow(
        /the job of this token has ended/,
      );
    });

    it('refuses a second artifact of the same name in a run, from any job', async () => {
      const first = start(301, 'one');
      asJob(first);
      const client = new artifact.DefaultArtifactClient();
      await client.uploadArtifact('same', files, join(dir, 'record'));
      asJob(start(301, 'two'));
      await expect(client.uploadArtifact('same', files, join(dir, 'record'))).rejects.toThrow(
        '(409) Conflict: an artifact with this name already exists on the workflow run',
      );
    });

    it('lists nothing that was not finalized, and finalizes only the size and hash that were uploaded', async () => {
      const job = start(401);
      const created = await twirp(job, 'CreateArtifact', { ...ids(job), name: 'raw', version: 7 });
      expect(created.status).toBe(200);
      const uploadUrl = created.body.signed_upload_url!;
      // not finalized: not listed, no signed URL, not on the REST side
      expect((await twirp(job, 'ListArtifacts', ids(job))).body.artifacts).toEqual([]);
      expect((await twirp(job, 'GetSignedArtifactURL', { ...ids(job), name: 'raw' })).status).toBe(404);
      expect(gh.artifacts().some((a) => a.name === 'raw')).toBe(false);
      expect(
        (await twirp(job, 'FinalizeArtifact', { ...ids(job), name: 'raw', size: '0' })).body.msg,
      ).toMatch(/no uploaded content/);
      const put = await fetch(uploadUrl, {
        method: 'PUT',
        headers: { 'x-ms-blob-type': 'BlockBlob' },
        body: 'twelve bytes',
      });
      expect(put.status).toBe(201);
      const wrongSize = await twirp(job, 'FinalizeArtifact', { ...ids(job), name: 'raw', size: '11' });
      expect(wrongSize).toMatchObject({ status: 400, body: { code: 'invalid_argument' } });
      const wrongHash = await twirp(job, 'FinalizeArtifact', {
        ...ids(job),
        name: 'raw',
        size: '12',
        hash: `sha256:${'0'.repeat(64)}`,
      });
      expect(wrongHash.body.msg).toMatch(/the hash given/);
      const ok = await twirp(job, 'FinalizeArtifact', { ...ids(job), name: 'raw', size: '12' });
      expect(ok.body.ok).toBe(true);
      // sealed: the upload URL writes nothing more
      const again = await fetch(uploadUrl, {
        method: 'PUT',
        headers: { 'x-ms-blob-type': 'BlockBlob' },
        body: 'x',
      });
      expect(again.status).toBe(409);
    });

    it("refuses another job's IDs, and blob URLs whose signature or permission do not fit", async () => {
      const job = start(501);
      const other = start(502);
      const theirs = await twirp(job, 'CreateArtifact', { ...ids(other), name: 'n', version: 7 });
      expect(theirs).toMatchObject({ status: 403, body: { code: 'permission_denied' } });
      const created = await twirp(job, 'CreateArtifact', { ...ids(job), name: 'n', version: 7 });
      const url = new URL(created.body.signed_upload_url!);
      url.searchParams.set('sig', `${url.searchParams.get('sig')!.slice(0, -2)}AA`);
      expect(
        (await fetch(url, { method: 'PUT', headers: { 'x-ms-blob-type': 'BlockBlob' }, body: 'x' })).status,
      ).toBe(403);
      url.searchParams.set('sp', 'rcw');
      expect(
        (await fetch(url, { method: 'PUT', headers: { 'x-ms-blob-type': 'BlockBlob' }, body: 'x' })).status,
      ).toBe(403);
      // a read URL cannot write
      const writeUrl = created.body.signed_upload_url!;
      await fetch(writeUrl, { method: 'PUT', headers: { 'x-ms-blob-type': 'BlockBlob' }, body: 'x' });
      await twirp(job, 'FinalizeArtifact', { ...ids(job), name: 'n', size: '1' });
      const read = (await twirp(job, 'GetSignedArtifactURL', { ...ids(job), name: 'n' })).body.signed_url!;
      expect((await fetch(read)).status).toBe(200);
      expect((await fetch(read.replace('/n-', '/m-'))).status).toBe(403);
      expect(
        (await fetch(read, { method: 'PUT', headers: { 'x-ms-blob-type': 'BlockBlob' }, body: 'y' })).status,
      ).toBe(403);
    });
  });
});
