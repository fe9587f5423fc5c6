import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import {
  blobSha,
  readBlobs,
  type RepoCoordinates,
  type RepoReads,
  type RepoWrites,
} from '../../github/index.js';
import type { Perimeter } from '../../policy/index.js';
import { RepoView } from '../../gateway/reads/repo-view.js';
import { TrustedInstructions } from '../../gateway/reads/trusted-instructions.js';
import {
  planWorkspace,
  symlinksOutsideView,
  type WorkspaceFile,
  type WorkspacePlan,
} from '../../gateway/reads/workspace-view.js';
import { decodeText } from '../../safety/binary-text.js';
import type { AnswerFilter } from '../../safety/answer-filter.js';
import { diskForm } from '../../gateway/reads/disk-form.js';
import { LOCAL_COMMIT_CONFIG, type WorkspaceStateFile } from '../../clients/workspace-state.js';

const run = promisify(execFile);

export interface HandedOut {
  perimeter: string;
  dir: string;
  /** what the directory holds, path -> mode and blob */
  files: Record<string, WorkspaceStateFile>;
  /** readable entries not in the directory, and why */
  leftOut: Array<{ path: string; reason: string }>;
}

export interface WorkspaceFigures {
  blobs: number;
  byGit: number;
  byGraphql: number;
  byRest: number;
}

/**
 * Every perimeter's workspace at `head`: the plans first (one tree read, shared), the blobs of all of them
 * in one batched reading, then each directory written with its one-commit git history.
 */
export async function handOutWorkspaces(options: {
  upstream: RepoCoordinates & RepoReads & RepoWrites;
  branch: string;
  head: string;
  /** the trusted ref agent instruction files are read from */
  configRef: string;
  perimeters: Perimeter[];
  /** the folder the workspaces are made in, `<folder>/<perimeter>` */
  folder: string;
  /** the git that makes each directory's one commit; default `git` on PATH */
  git?: string;
  /** the secret filter get_file's answers pass: files are written as it shows them */
  filter: AnswerFilter;
}): Promise<{ workspaces: HandedOut[]; figures: WorkspaceFigures }> {
  const view = new RepoView(options.upstream, options.branch);
  const instructions = new TrustedInstructions(view, options.configRef);
  const plans: Array<[Perimeter, WorkspacePlan]> = [];
  for (const perimeter of options.perimeters)
    plans.push([perimeter, await planWorkspace(view, instructions, perimeter, options.head)]);
  const wanted = plans.flatMap(([, plan]) => plan.files.map((f) => ({ sha: f.sha, size: f.size })));
  const reading = await readBlobs(options.upstream, wanted);
  const workspaces: HandedOut[] = [];
  for (const [perimeter, plan] of plans) {
    const dir = join(options.folder, perimeter.name);
    const leftOut = [...plan.leftOut];
    const present = plan.files.filter((f) => {
      const reason = reading.withheld.get(f.sha);
      if (reason !== undefined) leftOut.push({ path: f.path, reason });
      return reason === undefined;
    });
    const targets = new Map(
      present
        .filter((f) => f.mode === '120000')
        .map((f) => [f.path, decodeText(reading.blobs.get(f.sha)!)] as const),
    );
    const outside = symlinksOutsideView({ files: present, readable: plan.readable }, targets);
    for (const [path, reason] of outside) leftOut.push({ path, reason });
    const kept = present.filter((f) => !outside.has(f.path));
    const { files, shown } = await showAsGetFile(kept, reading.blobs, options.filter, leftOut);
    writeDirectory(dir, files, reading.blobs, shown);
    await commitDirectory(
      options.git ?? 'git',
      dir,
      `${options.branch} at ${options.head}, as perimeter ${perimeter.name} reads it`,
    );
    workspaces.push({
      perimeter: perimeter.name,
      dir,
      files: Object.fromEntries(
        files.map((f) => {
          const form = shown.get(f.path);
          return [
            f.path,
            form
              ? { mode: f.mode, sha: form.sha, shown: { text: form.text, originals: form.originals } }
              : { mode: f.mode, sha: f.sha },
          ];
        }),
      ),
      leftOut: leftOut.sort((a, b) => (a.path < b.path ? -1 : 1)),
    });
  }
  return {
    workspaces,
    figures: {
      blobs: reading.blobs.size,
      byGit: reading.byGit,
      byGraphql: reading.byGraphql,
      byRest: reading.byRest,
    },
  };
}

/**
 * Each text file as get_file shows it (gateway/reads/disk-form.ts): a file with nothing hidden or marked as
 * it is; one with placeholders or marks in their place, with what they stand for, for the push; one whose
 * shown form cannot be mapped back line by line is left out, never written with its values.
 */
async function showAsGetFile(
  files: WorkspaceFile[],
  blobs: Map<string, Uint8Array>,
  filter: AnswerFilter,
  leftOut: Array<{ path: string; reason: string }>,
): Promise<{
  files: WorkspaceFile[];
  shown: Map<string, { text: string; sha: string; bytes: Uint8Array; originals: Record<string, string> }>;
}> {
  const shown = new Map<
    string,
    { text: string; sha: string; bytes: Uint8Array; originals: Record<string, string> }
  >();
  const out: WorkspaceFile[] = [];
  for (const file of files) {
    const text = file.mode === '120000' ? null : decodeText(blobs.get(file.sha)!);
    if (text === null) {
      out.push(file);
      continue;
    }
    const form = await diskForm(filter, text);
    if (form === null) {
      leftOut.push({
        path: file.path,
        reason: 'holds hidden values whose placeholders could not be mapped back',
      });
      continue;
    }
    if (form.originals !== null) {
      const bytes = new Uint8Array(Buffer.from(form.text, 'utf8'));
      shown.set(file.path, { text: form.text, sha: blobSha(bytes), bytes, originals: form.originals });
    }
    out.push(file);
  }
  return { files: out, shown };
}

/** Writes the files into `dir`, which must be absent or empty: nothing already there is kept or overwritten. */
function writeDirectory(
  dir: string,
  files: WorkspaceFile[],
  blobs: Map<string, Uint8Array>,
  shown: Map<string, { bytes: Uint8Array }>,
): void {
  mkdirSync(dir, { recursive: true });
  if (readdirSync(dir).length > 0) throw new Error(`the workspace ${dir} exists and is not empty`);
  // regular files first, then the links, so no file is ever written through a link
  const ordered = [...files.filter((f) => f.mode !== '120000'), ...files.filter((f) => f.mode === '120000')];
  for (const file of ordered) {
    const path = join(dir, file.path);
    mkdirSync(dirname(path), { recursive: true });
    const bytes = shown.get(file.path)?.bytes ?? blobs.get(file.sha)!;
    if (file.mode === '120000') {
      symlinkSync(Buffer.from(bytes).toString('utf8'), path);
    } else {
      writeFileSync(path, bytes, { flag: 'wx' });
      // the mode as git has it, whatever the umask
      chmodSync(path, file.mode === '100755' ? 0o755 : 0o644);
    }
  }
}

async function commitDirectory(git: string, dir: string, message: string): Promise<void> {
  await run(git, ['init', '--quiet', dir]);
  // -f: a file the repository tracks is handed out even where a .gitignore it holds would ignore it
  await run(git, ['-C', dir, 'add', '--all', '--force']);
  await run(git, [
    '-C',
    dir,
    ...LOCAL_COMMIT_CONFIG,
    'commit',
    '--quiet',
    '--allow-empty',
    '--no-verify',
    '-m',
    message,
  ]);
}
