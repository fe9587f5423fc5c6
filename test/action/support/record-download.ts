import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { REPOSITORY } from '@perimeter/test-rigs';
import { readZip } from '../../../src/cli/record/zip-reader.js';
import { runCli, type CliResult } from '../../cli/run-cli.js';

/**
 * What an owner does with a run's record: list the run's artifacts by name through the REST API, follow the
 * zip redirect to the signed URL, and read the files in it.
 */
export async function downloadRecord(
  gh: { url: string },
  token: string,
  name: string,
  runId = 4242,
): Promise<{ zip: Buffer; files: Map<string, Buffer> }> {
  const headers = { authorization: `Bearer ${token}` };
  const list = (await (
    await fetch(`${gh.url}/repos/${REPOSITORY}/actions/runs/${runId}/artifacts?name=${name}`, { headers })
  ).json()) as { artifacts: Array<{ id: number; archive_download_url: string }> };
  expect(list.artifacts).toHaveLength(1);
  const redirect = await fetch(list.artifacts[0]!.archive_download_url, { headers, redirect: 'manual' });
  expect(redirect.status).toBe(302);
  const zip = Buffer.from(await (await fetch(redirect.headers.get('location')!)).arrayBuffer());
  return { zip, files: readZip(zip) };
}

/** `perimeter audit` of a record's files, as an owner runs it after the run. */
export async function auditRecord(
  gh: { url: string },
  token: string,
  files: Map<string, Buffer>,
): Promise<CliResult> {
  const dir = mkdtempSync(join(tmpdir(), 'perimeter-record-'));
  try {
    for (const [name, bytes] of files) writeFileSync(join(dir, name), bytes);
    return await runCli(['audit', '--api-url', gh.url, dir], dir, { GITHUB_TOKEN: token });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
