import { DefaultArtifactClient } from '@actions/artifact';
import * as core from '@actions/core';
import { copyFile, mkdtemp, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { inlineText, RECORD_FILES, type ReceiptJson } from '../verify/index.js';
import type { RecordSettings } from './inputs.js';

/** What goes into the record besides the receipt: the ledger as the gateway wrote it. */
export interface LedgerFiles {
  path: string;
}

export type RecordOutcome =
  | { uploaded: true; name: string; id: number | undefined; digest: string | undefined; files: string[] }
  /** `taken`: another step of the run had already uploaded an artifact under the record's name */
  | { uploaded: false; name: string; reason: string; taken: boolean };

/**
 * The results service answers 409 Conflict to a second artifact of one name in a run (names are unique per
 * run; actions/upload-artifact's `overwrite` deletes the first through the REST API before it uploads);
 * @actions/artifact reports it as "Failed request: (409) Conflict".
 * https://github.com/actions/upload-artifact#overwriting-an-artifact
 */
const NAME_TAKEN = /\(409\)/;

/**
 * Uploads the durable record of the job as one workflow artifact: the JSON receipt and the ledger, never
 * the ledger's key: a key beside the ledger it seals lets whoever holds the record seal another ledger. A
 * failed upload never changes the verdict, which stands on what was read from GitHub:
 * it is a warning and a line in the summary, and the commit status is posted as it would have been.
 * https://github.com/actions/toolkit/tree/main/packages/artifact
 */
export async function uploadRecord(
  settings: { record: RecordSettings; tempDir: string },
  /** the JSON receipt, or another document under its own file name (post's hand-over) */
  document: ReceiptJson | { file: string; json: unknown },
  ledger: LedgerFiles | null,
  /** the staged change set (writes: stage), when there is one */
  staged: string | null = null,
): Promise<RecordOutcome> {
  const name = settings.record.name;
  try {
    const dir = await mkdtemp(join(settings.tempDir, 'perimeter-record-'));
    const { file, json } = 'file' in document ? document : { file: RECORD_FILES.receipt, json: document };
    const files = [join(dir, file)];
    await writeFile(files[0]!, `${JSON.stringify(json, null, 2)}\n`, { mode: 0o600 });
    if (ledger) {
      await copyFile(ledger.path, join(dir, RECORD_FILES.ledger));
      files.push(join(dir, RECORD_FILES.ledger));
    }
    if (staged) {
      await copyFile(staged, join(dir, RECORD_FILES.staged));
      files.push(join(dir, RECORD_FILES.staged));
    }
    const client = new DefaultArtifactClient();
    const { id, digest } = await client.uploadArtifact(name, files, dir, {
      ...(settings.record.retentionDays !== undefined && { retentionDays: settings.record.retentionDays }),
    });
    return { uploaded: true, name, id, digest, files: files.map((file) => basename(file)) };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (NAME_TAKEN.test(reason))
      return {
        uploaded: false,
        name,
        reason: `the name ${name} was already taken in this run: a step before this one uploaded an artifact under it (${reason})`,
        taken: true,
      };
    core.warning(`the record of this job (artifact ${name}) was not uploaded: ${reason}`, {
      title: 'Perimeter: record not uploaded',
    });
    return { uploaded: false, name, reason, taken: false };
  }
}

/**
 * A record name another step took fails the step, whatever the verdict: the artifact under the name is not
 * this job's record, and whoever reads it (apply, an audit) must not take it for one. Call it last, after the
 * receipt was published.
 */
export function failOnTakenName(outcome: RecordOutcome): void {
  if (outcome.uploaded || !outcome.taken) return;
  const message = `the record was not uploaded: ${outcome.reason}. The artifact ${outcome.name} is not this job's record; nothing may act on it`;
  core.error(message, { title: 'Perimeter: record name taken' });
  core.setFailed(message);
}

/** One line for the job summary: where the record is, or why there is none. */
export function recordLine(outcome: RecordOutcome): string {
  if (outcome.uploaded)
    return `Record: workflow artifact ${inlineText(outcome.name)}${outcome.id === undefined ? '' : ` (id ${outcome.id})`} with ${outcome.files.join(', ')}; check it with perimeter audit.`;
  return `Record: not uploaded (${inlineText(outcome.reason)}). The verdict above stands on what was read from GitHub.`;
}
