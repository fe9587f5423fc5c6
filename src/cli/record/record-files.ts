import { readdir, readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { RECORD_FILES } from '../../verify/index.js';
import { readZip } from './zip-reader.js';

/**
 * A run's record as an owner has it after the run: the workflow artifact downloaded as a zip (the Actions
 * UI, the REST API), or unpacked into a directory (`gh run download`, which puts each artifact in a
 * directory of its name when it downloads several). The files are the ones the post step uploads. A key file
 * beside the ledger, if one is there, is never read: whoever made the record could have made the key.
 */
export interface RecordFiles {
  /** where the files were found, for messages */
  source: string;
  receipt: string | null;
  ledger: string | null;
  /** the agent job's hand-over (receipt-by: verify-job), which holds no verdict */
  handover: string | null;
}

const why = (error: unknown): string =>
  (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));

const text = (buffer: Buffer | undefined): string | null =>
  buffer === undefined ? null : buffer.toString('utf8');

async function fromDirectory(dir: string, shown: string): Promise<RecordFiles | null> {
  const names = new Set(await readdir(dir));
  if (!names.has(RECORD_FILES.receipt) && !names.has(RECORD_FILES.ledger)) return null;
  const read = async (name: string) =>
    names.has(name)
      ? readFile(join(dir, name), 'utf8').catch((error: unknown) => {
          throw new Error(`cannot read ${join(shown, name)}: ${why(error)}`, { cause: error });
        })
      : null;
  return {
    source: shown,
    receipt: await read(RECORD_FILES.receipt),
    ledger: await read(RECORD_FILES.ledger),
    handover: await read(RECORD_FILES.handover),
  };
}

/** Whether a path is a record (a zip or a directory) rather than a bare ledger file. */
export async function isRecord(path: string, cwd: string): Promise<boolean> {
  const full = resolve(cwd, path);
  const info = await stat(full).catch(() => null);
  if (info === null) return false;
  if (info.isDirectory()) return true;
  const head = await readFile(full)
    .then((b) => b.subarray(0, 4))
    .catch(() => Buffer.alloc(0));
  return head.toString('latin1') === 'PK\x03\x04';
}

/** The record at `path`; an error naming what is missing or unreadable, never a partial answer. */
export async function readRecord(path: string, cwd: string): Promise<RecordFiles> {
  const full = resolve(cwd, path);
  const info = await stat(full).catch((error: unknown) => {
    throw new Error(`cannot read the record ${path}: ${why(error)}`, { cause: error });
  });
  if (info.isFile()) {
    const files = readZip(await readFile(full));
    return {
      source: path,
      receipt: text(files.get(RECORD_FILES.receipt)),
      ledger: text(files.get(RECORD_FILES.ledger)),
      handover: text(files.get(RECORD_FILES.handover)),
    };
  }
  if (!info.isDirectory()) throw new Error(`cannot read the record ${path}: not a file or directory`);
  const here = await fromDirectory(full, path);
  if (here) return here;
  // `gh run download` with several artifacts: one directory per artifact
  const found: RecordFiles[] = [];
  for (const entry of await readdir(full, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const inner = await fromDirectory(join(full, entry.name), join(path, entry.name));
    if (inner) found.push(inner);
  }
  if (found.length === 1) return found[0]!;
  if (found.length === 0)
    throw new Error(
      `${path} holds no Perimeter record (no ${RECORD_FILES.receipt} or ${RECORD_FILES.ledger})`,
    );
  throw new Error(
    `${path} holds ${found.length} records (${found.map((f) => f.source).join(', ')}): name one`,
  );
}
