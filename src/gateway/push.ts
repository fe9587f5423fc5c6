import { createHash } from 'node:crypto';
import picomatch from 'picomatch';
import { GLOB_OPTIONS, validatePath, type Perimeter } from '../policy/index.js';
import { UpstreamError, type TreeChange } from '../github/upstream.js';
import type { AnswerFilter } from '../safety/answer-filter.js';
import { readableRuns } from '../safety/binary-text.js';
import { decodeText } from './file-answer.js';
import type { Snapshot, RepoView } from './repo-view.js';
import { blobSha } from '../github/tree-hash.js';
import { indexAfterPush, parentOf } from './tree-index.js';
import { ToolError, type CallNotes } from './tool-answer.js';

/** Attempts to land one push while the branch moves under unrelated commits. */
const MAX_ATTEMPTS = 3;

export interface PushRequest {
  message: string;
  files: Array<{ path: string; content: string; encoding?: 'utf-8' | 'base64' | undefined }>;
  deletions?: string[] | undefined;
}

export interface PushResult {
  /** null when the tree came out unchanged and no commit was made (never when a written file is unreadable) */
  commit: string | null;
  head: string;
  files: string[];
  deletions: string[];
  /** binary files whose content could only partly be scanned for credentials, and why */
  unscanned?: string[];
}

interface Prepared {
  path: string;
  bytes: Uint8Array;
  /** the content as text when it is UTF-8 without NUL: sent inline, no blob request */
  text: string | null;
}

/**
 * push_files: everything is checked before anything is written, one commit lands fast-forward only, and
 * a branch that moved meanwhile never loses a write silently. Pushes from this process run one at a time.
 */
export class Pusher {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly view: RepoView,
    private readonly filter: AnswerFilter,
  ) {}

  push(perimeter: Perimeter, request: PushRequest, notes: CallNotes): Promise<PushResult> {
    const run = this.queue.then(() => this.pushNow(perimeter, request, notes));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async pushNow(perimeter: Perimeter, request: PushRequest, notes: CallNotes): Promise<PushResult> {
    const deletions = request.deletions ?? [];
    notes.paths.push(...request.files.map((f) => f.path), ...deletions);
    notes.message = digest(new TextEncoder().encode(request.message));
    const problems: string[] = [];
    const files = this.prepare(perimeter, request, deletions, problems);
    notes.content = files.map((f) => ({ path: f.path, ...digest(f.bytes) }));
    const unscanned: string[] = [];
    if (problems.length === 0) {
      const credentials = await this.credentialProblems(perimeter, request.message, files, unscanned);
      if (credentials.length > 0) notes.refusedFor = ['credential'];
      problems.push(...credentials);
    }
    if (problems.length > 0) throw refusal(problems, notes);

    let base = await this.view.snapshot();
    problems.push(...shapeProblems(base, files, deletions));
    if (problems.length > 0) throw refusal(problems, notes);

    const blobs = new Map<string, string>();
    for (const file of files)
      if (file.text === null) blobs.set(file.path, await this.view.upstream.createBlob(file.bytes));
    const touched = [...files.map((f) => f.path), ...deletions];

    for (let attempt = 1; ; attempt++) {
      const changes: TreeChange[] = files.map((f) => {
        const mode = base.index.get(f.path)?.mode === '100755' ? '100755' : '100644';
        return f.text === null
          ? { path: f.path, mode, sha: blobs.get(f.path)! }
          : { path: f.path, mode, content: f.text };
      });
      for (const path of deletions) changes.push({ path, sha: null });
      const tree = await this.view.upstream.createTree(base.commit.tree, changes);
      const result = {
        head: base.head,
        files: files.map((f) => f.path),
        deletions,
        ...(unscanned.length > 0 ? { unscanned } : {}),
      };
      // A write-only file answers alike whatever it held: an unchanged tree still makes a commit when
      // a written file is unreadable, or `commit: null` would confirm a guess of its content.
      if (tree === base.commit.tree && files.every((f) => perimeter.canRead(f.path).allowed)) {
        notes.reason = 'no change: the files already have this content';
        return { ...result, commit: null };
      }
      const commit = await this.view.upstream.createCommit(request.message, tree, [base.head]);
      if (await this.land(commit)) {
        notes.commit = commit;
        this.rememberTree(base, files, blobs, changes, deletions, tree);
        return { ...result, commit, head: commit };
      }
      const next = await this.view.snapshot();
      const conflicts = touched.filter((p) => changedBetween(base, next, p));
      conflicts.push(...shapeProblems(next, files, deletions));
      if (conflicts.length > 0) {
        notes.reason = `conflict with ${next.head}: ${conflicts.join(', ')}`;
        throw new ToolError(
          `push conflict, nothing was written: the branch moved to ${next.head} and that change also touched: ${conflicts.join(', ')}. Read those files again and push again.`,
          'failed',
        );
      }
      if (attempt >= MAX_ATTEMPTS) {
        throw new ToolError(
          `push failed, nothing was written: the branch kept moving (now at ${next.head}); try again`,
          'failed',
        );
      }
      base = next;
    }
  }

  /** The pushed tree's index, built from the base's: the next read lists nothing again. */
  private rememberTree(
    base: Snapshot,
    files: Prepared[],
    blobs: Map<string, string>,
    changes: TreeChange[],
    deletions: string[],
    tree: string,
  ): void {
    const written = files.map((file, i) => ({
      path: file.path,
      mode: (changes[i] as { mode: string }).mode,
      sha: blobs.get(file.path) ?? blobSha(file.bytes),
      size: file.bytes.length,
    }));
    const index = indexAfterPush(base.index, written, deletions, tree);
    if (index) this.view.remember(index);
  }

  /** Moves the branch to `commit`: true when it landed, false when the branch had moved; throws otherwise. */
  private async land(commit: string): Promise<boolean> {
    try {
      await this.view.upstream.updateBranch(this.view.branch, commit);
      return true;
    } catch (error) {
      if (error instanceof UpstreamError && error.code === 'not_fast_forward') return false;
      // the update may have landed with its answer lost on the way back
      if ((await this.view.upstream.tryGetBranchHead(this.view.branch).catch(() => null)) === commit)
        return true;
      throw error;
    }
  }

  /** Decodes and checks every path and size; problems go to `problems`, one line each. */
  private prepare(
    perimeter: Perimeter,
    request: PushRequest,
    deletions: string[],
    problems: string[],
  ): Prepared[] {
    const { limits } = perimeter.spec;
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
      if (!decision.allowed) problems.push(`${path}: not writable (${decision.rule})`);
    };
    // Deleting answers by whether the file exists, so it needs read access: a write-only path must
    // answer alike whether or not something is there.
    const checkDeletion = (path: string): void => {
      checkPath(path);
      if (validatePath(path).ok && perimeter.canWrite(path).allowed && !perimeter.canRead(path).allowed)
        problems.push(`${path}: cannot delete a path this endpoint cannot read`);
    };
    const prepared: Prepared[] = [];
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
      prepared.push({
        path: file.path,
        bytes,
        text: file.encoding === 'base64' ? decodeText(bytes) : file.content,
      });
    }
    if (total > limits.bytesPerPush)
      problems.push(`${total} bytes in all, the limit is ${limits.bytesPerPush} per push`);
    for (const path of deletions) checkDeletion(path);
    return prepared;
  }

  private async credentialProblems(
    perimeter: Perimeter,
    message: string,
    files: Prepared[],
    unscanned: string[],
  ): Promise<string[]> {
    const allowed =
      perimeter.spec.allowSecretsIn.length > 0
        ? picomatch(perimeter.spec.allowSecretsIn, GLOB_OPTIONS)
        : () => false;
    const problems: string[] = [];
    const inMessage = await this.filter.findCredentials(message);
    if (inMessage.length > 0)
      problems.push(
        `the commit message looks like it contains a credential (${[...new Set(inMessage)].join(', ')})`,
      );
    const inPaths = await this.filter.findCredentials(files.map((file) => file.path).join('\n'));
    if (inPaths.length > 0)
      problems.push(`a file path looks like it contains a credential (${[...new Set(inPaths)].join(', ')})`);
    for (const file of files) {
      if (allowed(file.path)) continue;
      let text = file.text ?? decodeText(file.bytes);
      if (text === null) {
        // binary: its readable runs are scanned; what is compressed or encrypted cannot be
        const runs = readableRuns(file.bytes);
        text = runs.text;
        if (runs.packed !== null)
          unscanned.push(`${file.path}: ${runs.packed}; only its uncompressed parts were scanned`);
      }
      const kinds = await this.filter.findCredentials(text);
      if (kinds.length > 0)
        problems.push(
          `${file.path}: looks like it contains a credential (${[...new Set(kinds)].join(', ')})`,
        );
    }
    return problems;
  }
}

/** Paths whose shape at `snapshot` makes the push impossible: missing deletions, directories, files as parents. */
function shapeProblems(snapshot: Snapshot, files: Prepared[], deletions: string[]): string[] {
  const problems: string[] = [];
  for (const path of deletions) {
    const entry = snapshot.index.get(path);
    if (!entry) problems.push(`${path}: cannot delete, no such file`);
    else if (entry.type === 'tree') problems.push(`${path}: cannot delete a directory; name its files`);
  }
  for (const { path } of files) {
    if (snapshot.index.get(path)?.type === 'tree') problems.push(`${path}: is a directory`);
    for (let dir = parentOf(path); dir !== ''; dir = parentOf(dir)) {
      const entry = snapshot.index.get(dir);
      if (entry && entry.type !== 'tree') {
        problems.push(`${path}: ${dir} is a file, not a directory`);
        break;
      }
    }
  }
  return problems;
}

function changedBetween(a: Snapshot, b: Snapshot, path: string): boolean {
  const x = a.index.get(path);
  const y = b.index.get(path);
  return x?.sha !== y?.sha || x?.mode !== y?.mode;
}

function refusal(problems: string[], notes: CallNotes): ToolError {
  notes.reason = problems.join('; ');
  return new ToolError(
    `push refused, nothing was written:\n${problems.map((p) => `- ${p}`).join('\n')}`,
    'refused',
  );
}

function decodeBase64(text: string): Uint8Array | null {
  const compact = text.replace(/\s+/g, '');
  if (compact.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(compact)) return null;
  return Buffer.from(compact, 'base64');
}

export function digest(data: Uint8Array): { length: number; sha256: string } {
  return { length: data.length, sha256: createHash('sha256').update(data).digest('hex') };
}
