/**
 * The record of a run, as a runner runs the built bundles: post uploads the JSON receipt and the ledger (never
 * its key) as one workflow artifact through the stand-in's artifact service (the runtime token the runner hands
 * the action), and another job or an owner downloads it through the REST API.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkChain } from '../../src/ledger/index.js';
import { parseReceiptJson, RECORD_FILES } from '../../src/verify/index.js';
import { REPOSITORY, text, type Job } from '@perimeter/test-rigs';
import { runCli } from '../cli/run-cli.js';
import { downloadRecord } from './support/record-download.js';
import { jobSuite } from './support/suite.js';

const { started } = jobSuite();
const scratch = mkdtempSync(join(tmpdir(), 'perimeter-record-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** An artifact uploaded by someone else in the same run (the agent, with a runtime token it took). */
async function uploadFirst(j: Job, name: string): Promise<void> {
  const other = j.gh.startJob({ repository: REPOSITORY, runId: 4242, job: 'rogue' });
  const call = async (method: string, body: Record<string, unknown>) => {
    const response = await fetch(
      `${j.gh.url}/twirp/github.actions.results.api.v1.ArtifactService/${method}`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${other.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          workflow_run_backend_id: other.runBackendId,
          workflow_job_run_backend_id: other.jobBackendId,
          name,
          ...body,
        }),
      },
    );
    return (await response.json()) as Record<string, string>;
  };
  const { signed_upload_url: url } = await call('CreateArtifact', { version: 7 });
  await fetch(url!, { method: 'PUT', headers: { 'x-ms-blob-type': 'BlockBlob' }, body: 'forged' });
  expect((await call('FinalizeArtifact', { size: '6' })).ok).toBe(true);
}

describe('the record of a run', { timeout: 180_000 }, () => {
  describe('when the agent works through the gateway', () => {
    it('is uploaded as one artifact: receipt and ledger without its key, which agree', async () => {
      const j = await started();
      const agent = await j.agent('implementer');
      const pushed = await agent.callTool({
        name: 'push_files',
        arguments: { message: 'Count', files: [{ path: 'src/count.ts', content: 'export const n = 1;\n' }] },
      });
      expect(pushed.isError, text(pushed)).toBeFalsy();
      const post = await j.post();
      expect(post.exitCode, post.log + post.stderr).toBe(0);
      expect(post.summary).toMatch(/Record: workflow artifact perimeter-implement-1 \(id \d+\)/);

      const { zip, files } = await downloadRecord(j.gh, j.token, 'perimeter-implement-1');
      // push mode: no change set (writes: stage adds staged.json, test/action/staged-writes.test.ts)
      // the key stays on the runner: beside the ledger, it would let whoever holds the record seal another
      expect([...files.keys()].sort()).toEqual([RECORD_FILES.ledger, RECORD_FILES.receipt].sort());
      const key = j.runner.main!.state.ledgerKey!;
      expect(zip.includes(Buffer.from(key))).toBe(false);
      const receipt = parseReceiptJson(files.get(RECORD_FILES.receipt)!.toString('utf8'));
      const end = await j.head();
      expect(receipt).toMatchObject({
        state: 'success',
        repository: REPOSITORY,
        branch: j.branch,
        run: { id: '4242', attempt: '1', job: 'implement' },
        config: { file: 'perimeters.yml', ref: 'main' },
        heads: { end },
        violations: [],
        unchecked: [],
        files: [{ path: 'src/count.ts', kind: 'modified', allowed: true, perimeter: 'implementer' }],
        commits: { gateway: [end], direct: [] },
        ledger: { included: true, ok: true, problem: null },
      });
      const chain = checkChain(files.get(RECORD_FILES.ledger)!.toString('utf8'), key);
      expect(chain.ok).toBe(true);
      expect(receipt.ledger.records).toBe(chain.records);
      expect(receipt.ledger.head).toBe(chain.verified.at(-1)!.mac);

      // verify-ledger reads the download as it comes, with a key its holder kept, never one from a record
      writeFileSync(join(scratch, 'record.zip'), zip);
      writeFileSync(join(scratch, 'kept.key'), `${key}\n`);
      const keyless = await runCli(['verify-ledger', '--json', 'record.zip'], scratch);
      expect(keyless.code).toBe(2);
      expect(keyless.stderr).toContain('--key-file FILE is required: a record carries no ledger key');
      const checked = await runCli(
        ['verify-ledger', '--key-file', 'kept.key', '--json', 'record.zip'],
        scratch,
      );
      expect(checked.code, checked.stderr).toBe(0);
      expect(JSON.parse(checked.stdout)).toEqual({ ledger: 'record.zip', ok: true, records: chain.records });
    });
  });

  describe('when the upload fails', () => {
    it('fails loudly when the name was taken, and leaves a failure a failure', async () => {
      const j = await started();
      // the name is taken in the run before post comes to it
      await uploadFirst(j, 'perimeter-implement-1');
      await j.push({ 'docs/roadmap.md': '# changed\n' });
      const post = await j.post();
      expect(post.exitCode).toBe(1);
      const [status] = await j.statuses(await j.head());
      expect(status).toMatchObject({
        state: 'failure',
        description: expect.stringContaining('docs/roadmap.md'),
      });
      expect(post.annotations).toContainEqual(
        expect.objectContaining({
          level: 'error',
          title: 'Perimeter: record name taken',
          message: expect.stringContaining('an artifact with this name already exists on the workflow run'),
        }),
      );
      expect(post.summary).toContain('Record: not uploaded');
    });

    it('fails the step on a taken name even when nothing was out of scope: the verdict stands', async () => {
      const j = await started();
      await uploadFirst(j, 'perimeter-implement-1');
      const post = await j.post();
      expect(post.exitCode).toBe(1);
      expect(post.log).toContain("The artifact perimeter-implement-1 is not this job's record");
      const [status] = await j.statuses(await j.head());
      expect(status?.state).toBe('success');
    });

    it('leaves a success a success, with the reason in the summary', async () => {
      // a runner that gives the action no runtime token
      const j = await started({ runner: { actionsRuntime: false } });
      const post = await j.post();
      expect(post.exitCode, post.log).toBe(0);
      const [status] = await j.statuses(await j.head());
      expect(status?.state).toBe('success');
      expect(post.summary).toContain(
        'Record: not uploaded (Unable to get the ACTIONS&#95;RUNTIME&#95;TOKEN env variable)',
      );
    });
  });
});
