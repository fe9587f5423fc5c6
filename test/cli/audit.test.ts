/**
 * `perimeter audit` on records made the way a run makes them: the built main and post bundles in the runner
 * rig, the record uploaded to the stand-in's artifact service, downloaded through the REST API (the zip an
 * owner or another job gets), then audited against the same repository.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readZip } from '../../src/cli/zip-reader.js';
import { RECORD_FILES } from '../../src/verify/index.js';
import { REPOSITORY, text, type Job } from '@perimeter/test-rigs';
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

const audit = (j: Job, record: string, ...flags: string[]) =>
  runCli(['audit', '--api-url', j.gh.url, ...flags, record], scratch, { GITHUB_TOKEN: j.token });

describe('perimeter audit', { timeout: 240_000 }, () => {
  it('agrees with an honest run, and names a broken ledger chain', async () => {
    const j = await started();
    const agent = await j.agent('implementer');
    const pushed = await agent.callTool({
      name: 'push_files',
      arguments: { message: 'Count', files: [{ path: 'src/count.ts', content: 'export const n = 2;\n' }] },
    });
    expect(pushed.isError, text(pushed)).toBeFalsy();
    expect((await j.post()).exitCode).toBe(0);
    const zip = await download(j, 'perimeter-implement-1');

    const honest = await audit(j, zip, '--json');
    expect(honest.code, honest.stderr).toBe(0);
    expect(JSON.parse(honest.stdout)).toMatchObject({
      agree: true,
      disagreements: [],
      recorded: { state: 'success' },
      recomputed: { state: 'success' },
      ledger: { ok: true },
    });
    const shown = await audit(j, zip);
    expect(shown.stdout).toContain('The receipt agrees with GitHub.');

    // one record of the ledger edited after the fact: the chain breaks there, and the audit says where
    const broken = unpacked(zip, (files) => {
      const lines = files.get(RECORD_FILES.ledger)!.split('\n');
      lines[1] = JSON.stringify({ ...JSON.parse(lines[1]!), time: '2000-01-01T00:00:00.000Z' });
      files.set(RECORD_FILES.ledger, lines.join('\n'));
    });
    const result = await audit(j, broken);
    expect(result.code, result.stderr).toBe(3);
    expect(result.stdout).toContain(
      'ledger:     BROKEN: the ledger is broken at record 2: MAC does not match',
    );
    expect(result.stdout).toContain('The receipt disagrees with GitHub');
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
