import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { z } from 'zod';

/**
 * What main hands a perimeter's workspace out with, kept outside the workspace (in main's directory, mode
 * 0600: it holds the endpoint's secret) for `perimeter workspace push`: the endpoint, and every file as it was
 * handed out (or last pushed), so the push sends the difference and nothing else. A file that was not handed
 * out is not in `files`, so its absence from the directory is never taken for a deletion.
 */
const fileSchema = z.strictObject({
  mode: z.enum(['100644', '100755', '120000']),
  /** the blob of the file as it is on disk */
  sha: z.string().regex(/^[0-9a-f]{40}$/),
  /**
   * A file handed out as get_file shows it (secret values as placeholders, hidden spans marked): the text on
   * disk, and for each of its lines (0-based) that differs from the repository's, the text it stands for,
   * which the push puts back (clients/workspace-restore.ts). It holds secret values: this file is 0600, in
   * main's directory, never in the workspace.
   */
  shown: z.strictObject({ text: z.string(), originals: z.record(z.string(), z.string()) }).optional(),
});

export const workspaceStateSchema = z.strictObject({
  version: z.literal(1),
  perimeter: z.string().min(1),
  /** the perimeter's gateway endpoint and its bearer secret */
  url: z.string().url(),
  secret: z.string().min(1),
  /** the workspace directory */
  dir: z.string().min(1),
  branch: z.string().min(1),
  /** the bound branch's head the files were read at, then the commit of the last push */
  head: z.string().regex(/^[0-9a-f]{40}$/),
  /** path -> mode and blob, of every file in the directory as handed out or last pushed */
  files: z.record(z.string(), fileSchema),
});
export type WorkspaceState = z.infer<typeof workspaceStateSchema>;

/**
 * git config for the workspace's local commits (main's hand-out, the push's record of what it sent): an
 * author that is no one's, so `git log` says where the files came from, no signing, and no gc or maintenance
 * left running in the background after a big commit.
 */
export const LOCAL_COMMIT_CONFIG = [
  '-c',
  'user.name=Perimeter',
  '-c',
  'user.email=perimeter@localhost',
  '-c',
  'commit.gpgsign=false',
  '-c',
  'gc.auto=0',
  '-c',
  'maintenance.auto=false',
];
export type WorkspaceStateFile = z.infer<typeof fileSchema>;

export function writeWorkspaceState(path: string, state: WorkspaceState): void {
  const aside = `${path}.${process.pid}.tmp`;
  writeFileSync(aside, JSON.stringify(state), { mode: 0o600 });
  renameSync(aside, path);
}

/** The state at `path`; throws saying what is wrong with it. */
export function readWorkspaceState(path: string): WorkspaceState {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`cannot read the workspace state ${path}: ${(error as Error).message}`, { cause: error });
  }
  const checked = workspaceStateSchema.safeParse(raw);
  if (!checked.success)
    throw new Error(
      `${path} is no workspace state: ${checked.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`,
    );
  return checked.data;
}
