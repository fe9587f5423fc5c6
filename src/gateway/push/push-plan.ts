/**
 * push_files decided without I/O: which paths may be pushed and why not, what the commit's tree changes
 * are, and what a moved branch means for the push. The landing (push-landing.ts) does the writes and the
 * retries by these decisions; the pusher (push.ts) runs the two in order.
 */
import { createHash } from 'node:crypto';
import { validatePath, type Perimeter } from '../../policy/index.js';
import { blobSha, type TreeChange } from '../../github/index.js';
import type { AnswerFilter } from '../../safety/answer-filter.js';
import { decodeText } from '../../safety/binary-text.js';
import { scanContent } from '../../safety/content-scan.js';
import type { Snapshot } from '../reads/repo-view.js';
import { ToolError, type CallNotes } from '../tool-answer.js';
import { parentOf, type WrittenFile } from '../reads/tree-index.js';

export interface PushRequest {
  message: string;
  files: Array<{ path: string; content: string; encoding?: 'utf-8' | 'base64' | undefined }>;
  deletions?: string[] | undefined;
}

export interface PlannedFile {
  path: string;
  bytes: Uint8Array;
  /** the content as text when it is UTF-8 without NUL: sent inline, no blob request */
  text: string | null;
}

/** A push every check passed: what the landing writes. */
export interface PushPlan {
  message: string;
  files: PlannedFile[];
  deletions: string[];
  /** binary files whose content could only partly be scanned for credentials, and why */
  unscanned: string[];
}

/** The files decoded and every path, permission and limit checked; each problem is one line. */
export function checkRequest(
  perimeter: Perimeter,
  request: PushRequest,
): { files: PlannedFile[]; deletions: string[]; problems: string[] } {
  const { limits } = perimeter.spec;
  const deletions = request.deletions ?? [];
  const problems: string[] = [];
  const count = request.files.length + deletions.length;
  if (count === 0) problems.push('nothing to push: no files and no deletions');
  if (count > limits.filesPerPush)
    problems.push(`${count} paths, the limit is ${limits.filesPerPush} per push`);
  const seen = new Set<string>();
  const checkPath = (path: string): void => {
    const valid = validatePath(path);
    if (!valid.ok) return void problems.push(`${JSON.stringify(path)}: invalid path: ${valid.reason}`);
    if (seen.has(path)) problems.push(`${path}: named more than once`);
    seen.add(path);
    const decision = perimeter.canWrite(path);
    // a path the perimeter would send to review is refused here only because writes are not staged
    const staging =
      !decision.allowed && perimeter.canReview(path).allowed
        ? '; review applies with writes: stage only'
        : '';
    if (!decision.allowed) problems.push(`${path}: not writable (${decision.rule}${staging})`);
  };
  const files: PlannedFile[] = [];
  let total = 0;
  for (const file of request.files) {
    checkPath(file.path);
    const bytes =
      file.encoding === 'base64' ? decodeBase64(file.content) : new TextEncoder().encode(file.content);
    if (bytes === null) {
      problems.push(`${file.path}: content is not valid base64`);
      continue;
    }
    if (bytes.length > limits.bytesPerFile)
      problems.push(`${file.path}: ${bytes.length} bytes, the limit is ${limits.bytesPerFile} per file`);
    total += bytes.length;
    files.push({
      path: file.path,
      bytes,
      text: file.encoding === 'base64' ? decodeText(bytes) : file.content,
    });
  }
  if (total > limits.bytesPerPush)
    problems.push(`${total} bytes in all, the limit is ${limits.bytesPerPush} per push`);
  for (const path of deletions) {
    checkPath(path);
    // Deleting answers by whether the file exists, so it needs read access: a write-only path must
    // answer alike whether or not something is there.
    if (validatePath(path).ok && perimeter.canWrite(path).allowed && !perimeter.canRead(path).allowed)
      problems.push(`${path}: cannot delete a path this endpoint cannot read`);
  }
  return { files, deletions, problems };
}

/**
 * Credentials in the message, the paths and every file's content (binary: its readable runs), except files
 * the perimeter's `allow-secrets-in` names. The filter only computes; it does no I/O.
 */
export async function credentialProblems(
  perimeter: Perimeter,
  message: string,
  files: PlannedFile[],
  filter: AnswerFilter,
): Promise<{ problems: string[]; unscanned: string[] }> {
  const problems: string[] = [];
  const unscanned: string[] = [];
  const kindsOf = (kinds: string[]): string => [...new Set(kinds)].join(', ');
  const inMessage = await filter.findCredentials(message);
  if (inMessage.length > 0)
    problems.push(`the commit message looks like it contains a credential (${kindsOf(inMessage)})`);
  const inPaths = await filter.findCredentials(files.map((file) => file.path).join('\n'));
  if (inPaths.length > 0)
    problems.push(`a file path looks like it contains a credential (${kindsOf(inPaths)})`);
  for (const file of files) {
    if (perimeter.allowsSecretsIn(file.path) !== null) continue;
    const scan = await scanContent(filter, file.bytes, file.text ?? decodeText(file.bytes));
    if (scan.unscanned !== null) unscanned.push(`${file.path}: ${scan.unscanned}`);
    if (scan.kinds.length > 0)
      problems.push(`${file.path}: looks like it contains a credential (${kindsOf(scan.kinds)})`);
  }
  return { problems, unscanned };
}

/** What a push meets at `snapshot`: the problems that refuse it, and what it replaces to land. */
export interface Shape {
  problems: string[];
  /**
   * Files (not directories) the push removes because they stand where it writes: a file where it writes
   * below, every file of a folder it writes as a file. Only what the perimeter cannot see, and may write.
   */
  replaced: string[];
}

/**
 * Paths whose shape at `snapshot` makes the push impossible (missing deletions, directories, files as
 * parents), told only from what this perimeter can see. What it cannot see answers as missing: a file
 * written where a folder holding nothing readable lies, or below a file it cannot read, replaces that
 * folder or file, as a write to a missing path lands; otherwise the refusal would tell hidden from missing.
 * Only when the perimeter may not write what stands in the way is the push refused (git cannot hold both).
 */
export function shapeOf(
  perimeter: Perimeter,
  snapshot: Snapshot,
  plan: Pick<PushPlan, 'files' | 'deletions'>,
): Shape {
  const { index } = snapshot;
  const seen = index.readable(perimeter);
  const problems: string[] = [];
  const replaced = new Set<string>();
  const inTheWay = (path: string, files: string[]): void => {
    const barred = files.filter((file) => !perimeter.canWrite(file).allowed);
    if (barred.length > 0)
      problems.push(`${path}: cannot be written, something this endpoint may not write is in the way`);
    else for (const file of files) replaced.add(file);
  };
  for (const path of plan.deletions) {
    const entry = index.get(path);
    if (!entry || (entry.type === 'tree' && !seen.dirs.has(path)))
      problems.push(`${path}: cannot delete, no such file`);
    else if (entry.type === 'tree') problems.push(`${path}: cannot delete a directory; name its files`);
  }
  for (const { path } of plan.files) {
    if (index.get(path)?.type === 'tree') {
      if (seen.dirs.has(path)) problems.push(`${path}: is a directory`);
      else inTheWay(path, filesBelow(snapshot, path));
    }
    for (let dir = parentOf(path); dir !== ''; dir = parentOf(dir)) {
      const entry = index.get(dir);
      if (entry && entry.type !== 'tree') {
        if (seen.files.has(dir)) problems.push(`${path}: ${dir} is a file, not a directory`);
        else inTheWay(path, [dir]);
        break;
      }
    }
  }
  return { problems, replaced: [...replaced] };
}

/** The problems of shapeOf alone. */
export function shapeProblems(
  perimeter: Perimeter,
  snapshot: Snapshot,
  plan: Pick<PushPlan, 'files' | 'deletions'>,
): string[] {
  return shapeOf(perimeter, snapshot, plan).problems;
}

/** Every file (blob, link or submodule) below a directory of the snapshot. */
function filesBelow(snapshot: Snapshot, dir: string): string[] {
  const out: string[] = [];
  const walk = (at: string): void => {
    for (const entry of snapshot.index.children(at)) {
      if (entry.type === 'tree') walk(entry.path);
      else out.push(entry.path);
    }
  };
  walk(dir);
  return out;
}

/**
 * The commit's tree changes on top of `base`: an executable file stays executable, text goes inline,
 * binary content by the blob already written for it, deletions as `sha: null`.
 */
export function treeChanges(
  base: Snapshot,
  plan: PushPlan,
  blobs: ReadonlyMap<string, string>,
  replaced: readonly string[] = [],
): TreeChange[] {
  // what stands in the way goes first: entries are applied in order
  const cleared: TreeChange[] = replaced.map((path) => ({ path, sha: null }));
  const changes: TreeChange[] = plan.files.map((f) => {
    const entry = base.index.get(f.path);
    const mode = entry?.type === 'blob' && entry.mode === '100755' ? '100755' : '100644';
    return f.text === null
      ? { path: f.path, mode, sha: blobs.get(f.path)! }
      : { path: f.path, mode, content: f.text };
  });
  for (const path of plan.deletions) changes.push({ path, sha: null });
  return [...cleared, ...changes];
}

/**
 * Whether an unchanged tree answers "no change" without a commit. A write-only file answers alike whatever
 * it held: when a written file is unreadable the commit is made anyway, or `commit: null` would confirm a
 * guess of its content.
 */
export function isNoChange(perimeter: Perimeter, base: Snapshot, tree: string, plan: PushPlan): boolean {
  return tree === base.commit.tree && plan.files.every((f) => perimeter.canRead(f.path).allowed);
}

/** Why a push cannot be retried on `next` after the branch moved from `base`: the paths both changed. */
export function conflicts(perimeter: Perimeter, base: Snapshot, next: Snapshot, plan: PushPlan): string[] {
  const touched = [...plan.files.map((f) => f.path), ...plan.deletions];
  const changed = touched.filter((path) => {
    const x = base.index.get(path);
    const y = next.index.get(path);
    return x?.sha !== y?.sha || x?.mode !== y?.mode;
  });
  return [...changed, ...shapeProblems(perimeter, next, plan)];
}

/** The written files as the new tree holds them, for the index after the push. */
export function writtenFiles(
  plan: PushPlan,
  changes: TreeChange[],
  blobs: ReadonlyMap<string, string>,
): WrittenFile[] {
  const modes = new Map<string, string>();
  for (const change of changes) if ('mode' in change) modes.set(change.path, change.mode);
  return plan.files.map((file) => ({
    path: file.path,
    mode: modes.get(file.path)!,
    sha: blobs.get(file.path) ?? blobSha(file.bytes),
    size: file.bytes.length,
  }));
}

/** The answer to a refused push; the ledger gets every problem as its reason. */
export function refusal(problems: string[], notes: CallNotes): ToolError {
  notes.reason = problems.join('; ');
  return new ToolError(
    `push refused, nothing was written:\n${problems.map((p) => `- ${p}`).join('\n')}`,
    'refused',
  );
}

export function digest(data: Uint8Array): { length: number; sha256: string } {
  return { length: data.length, sha256: createHash('sha256').update(data).digest('hex') };
}

function decodeBase64(text: string): Uint8Array | null {
  const compact = text.replace(/\s+/g, '');
  if (compact.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(compact)) return null;
  return Buffer.from(compact, 'base64');
}
