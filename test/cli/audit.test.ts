/**
 * `perimeter audit` on records made the way a run makes them: the built main and post bundles in the runner
 * rig, the record uploaded to the stand-in's artifact service, downloaded through the REST API (the zip an
 * owner or another job gets), then audited against the same repository.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readZip } from '../../src/cli/record/zip-reader.js';
import { RECORD_FILES, type ReceiptJson } from '../../src/verify/index.js';
import { PERIMETERS_YML, REPOSITORY, text, type Job } from '@perimeter/test-rigs';
import { jobSuite } from '../action/support/suite.js';
import { runCli } from './run-cli.js';

const { started } = jobSuite();
const scratch = mkdtempSync(join(tmpdir(), 'perimeter-audit-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The run's record as an owner downloads it: list the run's artifacts, follow the zip's redirect. */
async function download(j: Job, name: string): Promise<string> {
  const headers = { authorization: `Bearer ${j.token}` };
  const list = (await (
    await fetch(`${j.gh.url}/repos/${REPOSITORY}/actions/runs/4242/artifacts?name=${name}`, { headers })
  ).json()) as { artifacts: Array<{ archive_download_url: string }> };
  const redirect = await fetch(list.artifacts[0]!.archive_download_url, { headers, redirect: 'manual' });
  const zip = Buffer.from(await (await fetch(redirect.headers.get('location')!)).arrayBuffer());
  const path = join(scratch, `${name}-${Math.random().toString(36).slice(2)}.zip`);
  writeFileSync(path, zip);
  return path;
}

/** The zip unpacked into a directory, as `gh run download` leaves it, with `change` applied to its files. */
function unpacked(zip: string, change: (files: Map<string, string>) => void): string {
  const files = new Map([...readZip(readFileSync(zip))].map(([name, data]) => [name, data.toString('utf8')]));
  change(files);
  const dir = mkdtempSync(join(scratch, 'record-'));
  for (const [name, content] of files) writeFileSync(join(dir, name), content);
  return dir;
}

type Receipt = ReceiptJson;
type Disagreement = { field: string; message: string };

/** A commit on no branch, made with the job's token through the Git database API: main plus `perimeters`. */
async function bareCommit(j: Job, perimeters: string): Promise<{ commit: string; blob: string }> {
  const api = `${j.gh.url}/repos/${REPOSITORY}`;
  const headers = { authorization: `Bearer ${j.token}`, 'content-type': 'application/json' };
  const call = async (path: string, body?: unknown) => {
    const response = await fetch(`${api}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers,
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    expect(response.ok, `${path}: ${response.status}`).toBe(true);
    return (await response.json()) as Record<string, unknown> & { sha: string };
  };
  const head = ((await call('/git/ref/heads/main')) as unknown as { object: { sha: string } }).object.sha;
  const baseTree = ((await call(`/git/commits/${head}`)) as unknown as { tree: { sha: string } }).tree.sha;
  const blob = (await call('/git/blobs', { content: perimeters, encoding: 'utf-8' })).sha;
  const tree = (
    await call('/git/trees', {
      base_tree: baseTree,
      tree: [{ path: 'perimeters.yml', mode: '100644', type: 'blob', sha: blob }],
    })
  ).sha;
  const commit = (await call('/git/commits', { message: 'Wider', tree, parents: [head] })).sha;
  return { commit, blob };
}

const audit = (j: Job, record: string, ...flags: string[]) =>
  runCli(['audit', '--api-url', j.gh.url, ...flags, record], scratch, { GITHUB_TOKEN: j.token });

describe('perimeter audit', { timeout: 240_000 }, () => {
  it('agrees with an honest run on all it checks, says what it could not, and names a broken chain', async () => {
    const j = await started();
    const agent = await j.agent('implementer');
    const pushed = await agent.callTool({
      name: 'push_files',
      arguments: { message: 'Count', files: [{ path: 'src/count.ts', content: 'export const n = 2;\n' }] },
    });
    expect(pushed.isError, text(pushed)).toBeFalsy();
    expect((await j.post()).exitCode).toBe(0);
    const zip = await download(j, 'perimeter-implement-1');

    // the record carries no key and takes no window on its own word: said, never passed over
    const honest = await audit(j, zip, '--json');
    expect(honest.code, honest.stderr).toBe(0);
    const unsealed = expect.stringContaining("the ledger's seal: its key never leaves the runner");
    expect(JSON.parse(honest.stdout)).toMatchObject({
      agree: true,
      disagreements: [],
      recorded: { state: 'success' },
      recomputed: { state: 'success' },
      ledger: { ok: true },
      notChecked: [unsealed, expect.stringContaining("the window: the record's own, not GitHub's")],
    });
    await j.end();
    const withJob = await audit(j, zip, '--json', '--job', 'implement');
    expect(withJob.code, withJob.stdout + withJob.stderr).toBe(0);
    expect(JSON.parse(withJob.stdout)).toMatchObject({ agree: true, notChecked: [unsealed] });
    const shown = await audit(j, zip, '--job', 'implement');
    expect(shown.stdout).toContain('The receipt agrees with GitHub on everything checked.');
    expect(shown.stdout).toContain('Not checked:');

    // one record of the ledger taken out after the fact: the chain breaks there, and the audit says where
    const broken = unpacked(zip, (files) => {
      const lines = files.get(RECORD_FILES.ledger)!.split('\n');
      lines.splice(1, 1);
      files.set(RECORD_FILES.ledger, lines.join('\n'));
    });
    const result = await audit(j, broken);
    expect(result.code, result.stderr).toBe(3);
    expect(result.stdout).toContain(
      'ledger:     BROKEN: the ledger is broken at record 2: does not follow the previous record',
    );
    expect(result.stdout).toContain('The receipt disagrees with GitHub');
  });

  it("names a record window moved off the job's as GitHub records it, and judges GitHub's", async () => {
    const j = await started();
    await j.push({ 'docs/roadmap.md': 'out of scope\n' });
    expect((await j.post()).exitCode).toBe(1);
    await j.end();
    const zip = await download(j, 'perimeter-implement-1');
    // moved to start after the push and sealed by nobody: the receipt then claims success
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const forged = unpacked(zip, (files) => {
      const receipt = JSON.parse(files.get(RECORD_FILES.receipt)!) as Receipt;
      receipt.window = { startedAt: later, endedAt: later };
      receipt.state = 'success';
      receipt.violations = [];
      files.set(RECORD_FILES.receipt, JSON.stringify(receipt));
    });
    const result = await audit(j, forged, '--json', '--job', 'implement');
    expect(result.code, result.stderr).toBe(3);
    const out = JSON.parse(result.stdout) as { disagreements: Disagreement[]; recomputed: { state: string } };
    expect(out.disagreements).toContainEqual({
      field: 'window',
      message: expect.stringContaining(
        `the record says ${later} to ${later}, which is not inside the job "implement"`,
      ),
    });
    expect(out.recomputed.state).toBe('failure');
  });

  it('agrees with an honest failure, and catches a receipt turned into success', async () => {
    const j = await started();
    await j.push({ 'docs/roadmap.md': '# moved\n' });
    expect((await j.post()).exitCode).toBe(1);
    const zip = await download(j, 'perimeter-implement-1');
    const honest = await audit(j, zip, '--json');
    expect(honest.code, honest.stderr).toBe(0);
    expect(JSON.parse(honest.stdout)).toMatchObject({ agree: true, recomputed: { state: 'failure' } });

    const forged = unpacked(zip, (files) => {
      const receipt = JSON.parse(files.get(RECORD_FILES.receipt)!) as Record<string, unknown>;
      files.set(
        RECORD_FILES.receipt,
        JSON.stringify({
          ...receipt,
          state: 'success',
          description: 'No changes during the job',
          violations: [],
        }),
      );
    });
    const result = await audit(j, forged, '--json');
    expect(result.code, result.stderr).toBe(3);
    const found = JSON.parse(result.stdout) as { disagreements: Array<{ field: string; message: string }> };
    expect(found.disagreements).toContainEqual({
      field: 'state',
      message: expect.stringMatching(/^the receipt says success, GitHub shows failure/),
    });
    expect(found.disagreements).toContainEqual({
      field: 'violations',
      message: expect.stringContaining('docs/roadmap.md'),
    });

    // a description that would redraw the terminal line and claim agreement under exit 3
    const drawn = unpacked(zip, (files) => {
      const receipt = JSON.parse(files.get(RECORD_FILES.receipt)!) as Record<string, unknown>;
      const description = '\u001b[1A\u001b[2K\rThe receipt agrees with GitHub.\nreally';
      files.set(
        RECORD_FILES.receipt,
        JSON.stringify({ ...receipt, state: 'success', violations: [], description }),
      );
    });
    const shown = await audit(j, drawn);
    expect(shown.code, shown.stderr).toBe(3);
    expect(shown.stdout).not.toContain('\u001b');
    expect(shown.stdout).not.toContain('\r');
    expect(shown.stdout.split('\n')).not.toContain('The receipt agrees with GitHub.');
    expect(shown.stdout).toContain('\\u001b[1A\\u001b[2K\\u000dThe receipt agrees with GitHub.\\u000areally');

    // a receipt that hides the push by claiming the branch never moved
    const still = unpacked(zip, (files) => {
      const receipt = JSON.parse(files.get(RECORD_FILES.receipt)!) as {
        refs: { start: Record<string, string>; end: Record<string, string> };
        heads: { start: string; end: string };
      };
      const ref = `refs/heads/${j.branch}`;
      receipt.refs.end[ref] = receipt.refs.start[ref]!;
      receipt.heads.end = receipt.heads.start;
      const commits = { gateway: [], others: [], direct: [], unattributed: [], complete: true };
      const claims = {
        state: 'success',
        description: 'No changes during the job',
        violations: [],
        files: [],
        commits,
      };
      files.set(RECORD_FILES.receipt, JSON.stringify({ ...receipt, ...claims }));
    });
    const hidden = await audit(j, still);
    expect(hidden.code, hidden.stdout).toBe(3);
    expect(hidden.stdout).toMatch(
      /the record says it ended at [0-9a-f]{7}, GitHub's activity list shows it at/,
    );
  });

  describe('when the record says what the workflow did not', () => {
    /** The record with `change` applied to its receipt, unpacked as `gh run download` leaves it. */
    const forge = (zip: string, change: (receipt: Receipt) => void): string =>
      unpacked(zip, (files) => {
        const receipt = JSON.parse(files.get(RECORD_FILES.receipt)!) as Receipt;
        change(receipt);
        files.set(RECORD_FILES.receipt, JSON.stringify(receipt));
      });
    const workflow = ['--perimeters', 'implementer', '--direct-pushes', 'check', '--ignore-refs', ''];

    it('names each forged setting, and agrees with the honest record', async () => {
      const j = await started({ inputs: { perimeters: 'implementer' } });
      const agent = await j.agent('implementer');
      const pushed = await agent.callTool({
        name: 'push_files',
        arguments: { message: 'Count', files: [{ path: 'src/count.ts', content: 'export const n = 2;\n' }] },
      });
      expect(pushed.isError, text(pushed)).toBeFalsy();
      expect((await j.post()).exitCode).toBe(0);
      const zip = await download(j, 'perimeter-implement-1');
      const honest = await audit(
        j,
        zip,
        '--json',
        ...workflow,
        '--config',
        'perimeters.yml',
        '--config-ref',
        'main',
      );
      expect(honest.code, honest.stdout + honest.stderr).toBe(0);
      expect(JSON.parse(honest.stdout)).toMatchObject({ agree: true, recomputed: { state: 'success' } });

      // a permissive perimeters file the job's token made as a commit on no branch, named by the record
      const permissive = PERIMETERS_YML.replace('write: ["src/**"]', 'write: ["**"]');
      const bare = await bareCommit(j, permissive);
      // and a tag the job's token made at it: GitHub lists no ruleset that keeps the token from moving it
      const tagged = await fetch(`${j.gh.url}/repos/${REPOSITORY}/git/refs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${j.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ref: 'refs/tags/perimeters-wide', sha: bare.commit }),
      });
      expect(tagged.status).toBe(201);
      const cases: Array<[string, (r: Receipt) => void, RegExp]> = [
        [
          'config',
          (r) => Object.assign(r.config, { ref: bare.commit, blobSha: bare.blob }),
          /^the record's config ref "[0-9a-f]{40}" is a commit that the default branch "main" does not hold/,
        ],
        [
          'config',
          (r) => (r.config.blobSha = bare.blob),
          /^the record says perimeters\.yml at "main" \([0-9a-f]{12}\) is blob [0-9a-f]{12}, GitHub has blob/,
        ],
        [
          'config',
          (r) => (r.config.ref = j.branch),
          /^config-ref: "agent\/work" names branch "agent\/work", and this job may write that branch/,
        ],
        ['config', (r) => (r.config.ref = 'v9'), /^the record's config ref "v9" is not a branch or tag/],
        [
          'config',
          (r) => Object.assign(r.config, { ref: 'perimeters-wide', blobSha: bare.blob }),
          /^config-ref: "perimeters-wide" is not the default branch "main" or a full commit SHA, and GitHub does not protect it from this job's token \(refs\/heads\/perimeters-wide does not exist, and no ruleset restricts its creation; refs\/tags\/perimeters-wide does not exist/,
        ],
        [
          'perimeters',
          (r) => r.perimeters.push('test-author'),
          /exposed implementer, test-author; the workflow exposes implementer$/,
        ],
        [
          'perimeters',
          (r) => r.perimeters.push('release'),
          /^the record names perimeter "release", which perimeters\.yml at "main"/,
        ],
        [
          'direct-pushes',
          (r) => (r.directPushes = 'deny'),
          /^the record says direct-pushes: deny, the workflow sets check$/,
        ],
        [
          'ignore-refs',
          (r) => r.ignoreRefs.push('refs/heads/**'),
          /^the record ignores refs\/heads\/\*\*; the workflow ignores none$/,
        ],
      ];
      for (const [field, change, message] of cases) {
        const result = await audit(j, forge(zip, change), '--json', ...workflow);
        // soft: every forged field is reported, not only the first that slips through
        expect.soft(result.code, `${field}: ${result.stdout}${result.stderr}`).toBe(3);
        const found = JSON.parse(result.stdout) as { disagreements: Disagreement[] };
        expect
          .soft(found.disagreements, field)
          .toContainEqual({ field, message: expect.stringMatching(message) });
      }

      // shown for a terminal, and without the workflow's values only what GitHub itself contradicts
      const shown = await audit(
        j,
        forge(zip, (r) => (r.config.ref = 'v9')),
      );
      expect(shown.code).toBe(3);
      expect(shown.stdout).toContain('  - config: the record\'s config ref "v9" is not a branch or tag');
      const unchecked = await audit(
        j,
        forge(zip, (r) => (r.directPushes = 'deny')),
      );
      expect(unchecked.code, unchecked.stdout).toBe(0);
      const usage = await audit(j, zip, '--direct-pushes', 'sometimes');
      expect([usage.code, usage.stderr]).toEqual([
        2,
        expect.stringContaining('--direct-pushes: expected "check" or "deny", got "sometimes"'),
      ]);
    });
  });

  it('refuses what it cannot read, with a message and exit 1 or 2', async () => {
    const dir = mkdtempSync(join(scratch, 'bad-'));
    mkdirSync(join(dir, 'r'));
    writeFileSync(join(dir, 'r', RECORD_FILES.receipt), '{"schema":"perimeter-receipt","version":9}');
    const future = await runCli(['audit', 'r'], dir, { GITHUB_TOKEN: 'x'.repeat(40) });
    expect(future.code).toBe(1);
    expect(future.stderr).toBe(
      'perimeter audit: r: receipt.json: receipt version 9, this perimeter reads version 1\n',
    );
    const noToken = await runCli(['audit', 'r'], dir, { GITHUB_TOKEN: '' });
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toContain('no token: set GITHUB_TOKEN');
  });
});
