import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { gitEnvironment } from './git-blobs.js';
import type {
  CommitInfo,
  Comparison,
  ComparedFile,
  PathCommit,
  PathHistoryPage,
  Signature,
  TreeEntry,
} from './upstream.js';

/**
 * A partial copy of a branch's history (every commit and tree, no blob) fetched over git's smart HTTP with
 * the job's token, so history and trees are read on this machine instead of by REST and GraphQL requests,
 * which GitHub charges to the token's budgets; git operations it charges to neither (its support, in
 * https://github.com/orgs/community/discussions/44515). The fetch is a partial clone's
 * (`--filter=blob:none`, https://git-scm.com/docs/partial-clone): blobs stay on GitHub and are read on
 * demand through git-blobs.ts, readable ones only, so hidden files' contents never reach the disk; their
 * names do (they are in the trees), in a 0700 directory of the gateway's own (under isolation its user's).
 *
 * The copy is brought up to date when the branch head is read (`update`): one incremental fetch of the new
 * head, whose every commit and tree is then checked present (`rev-list --objects --missing=print`), so a
 * server that sent half a history is caught there and not believed. A fetch that fails, hangs past its
 * timeout or answers half right marks the copy failed: from then on every read answers null at once and the
 * caller asks the API, for the rest of the job. Objects are named by their content (git's index-pack checks
 * every one), so a read of the copy is as good as GitHub's own answer for the same SHA.
 */
export interface GitHistoryOptions {
  /** the repository's clone URL, e.g. https://github.com/OWNER/REPO.git */
  url: string;
  token: string;
  /** the git binary by absolute path (trusted-binary.ts) */
  git: string;
  /** the directory the copy's own 0700 directory is made in */
  parentDir: string;
  /** longest one fetch (or check) may take; default 120 s */
  timeoutMs?: number;
}

const SHA = /^[0-9a-f]{40}$/;

/** every copy not yet removed, removed when the process exits */
const copies = new Set<string>();
process.once('exit', () => {
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
});

export class GitHistory {
  /** set when a fetch or a read failed: every later read answers null at once */
  failed = false;
  /** git fetches made (each two HTTP requests, as a blob fetch) */
  fetches = 0;
  private dir: string | null = null;
  private ready: Promise<void> | null = null;
  /** every commit reachable from a head fetched and checked whole */
  private readonly commits = new Set<string>();
  private readonly heads = new Set<string>();
  private updating: Promise<unknown> = Promise.resolve();
  private catFile: CatFile | null = null;

  constructor(private readonly options: GitHistoryOptions) {}

  /** Whether every commit reachable from `sha` is in the copy (then "not in the copy" means "not reachable"). */
  holds(sha: string): boolean {
    return !this.failed && this.commits.has(sha);
  }

  /**
   * Brings the copy to `head` (the branch's head just read): nothing when it holds it, else one fetch and
   * the check. False when the copy failed (now or before).
   */
  update(branch: string, head: string): Promise<boolean> {
    if (this.failed || !SHA.test(head)) return Promise.resolve(false);
    if (this.commits.has(head)) return Promise.resolve(true);
    const next = this.updating.then(() => this.fetchHead(branch, head));
    this.updating = next.catch(() => undefined);
    return next.then(
      () => true,
      () => this.fail() ?? false,
    );
  }

  /** A commit of the copy, or null (not in it, or the copy failed). */
  async commit(sha: string): Promise<CommitInfo | null> {
    const raw = await this.object(sha, 'commit');
    return raw === null ? null : parseCommit(sha, raw);
  }

  /** A tree's direct entries (no sizes: blobs are not in the copy), or null. */
  async tree(sha: string): Promise<TreeEntry[] | null> {
    const raw = await this.object(sha, 'tree');
    return raw === null ? null : parseTree(raw);
  }

  /**
   * The tree at `path` in a commit: its SHA, null where nothing is there, undefined where something else is
   * (a file, a submodule); the commit itself null when the copy cannot tell.
   */
  async treeAt(commit: string, path: string): Promise<string | null | undefined | false> {
    const found = await this.commit(commit);
    if (!found) return false;
    let tree = found.tree;
    for (const name of path === '' ? [] : path.split('/')) {
      const entries = await this.tree(tree);
      if (!entries) return false;
      const entry = entries.find((e) => e.path === name);
      if (!entry) return null;
      if (entry.type !== 'tree') return undefined;
      tree = entry.sha;
    }
    return tree;
  }

  /** Commits reachable from `head` (below `path` when given, as GitHub's REST and GraphQL list them). */
  async list(
    head: string,
    path: string | undefined,
    skip: number,
    max: number,
  ): Promise<CommitInfo[] | null> {
    if (!this.holds(head)) return null;
    const shas = await this.run(['rev-list', `--skip=${skip}`, `--max-count=${max}`, head, ...spec(path)]);
    if (shas === null) return null;
    const commits = await Promise.all(
      shas
        .toString('latin1')
        .split('\n')
        .filter(Boolean)
        .map((s) => this.commit(s)),
    );
    return commits.every((c) => c !== null) ? (commits as CommitInfo[]) : this.fail();
  }

  /** Whether `ancestor` is reachable from `descendant`; null when the copy cannot tell. */
  async isAncestor(ancestor: string, descendant: string): Promise<boolean | null> {
    if (!this.holds(descendant)) return null;
    if (ancestor === descendant) return true;
    if (!this.commits.has(ancestor)) return false;
    const code = await this.exitCode(['merge-base', '--is-ancestor', ancestor, descendant]);
    return code === 0 ? true : code === 1 ? false : this.fail();
  }

  /**
   * The files a commit changed against its first parent as GitHub's file list names them, without rename
   * detection (which needs the blobs): a rename is its removal and its addition. Null when the copy
   * cannot tell.
   */
  async changedFiles(sha: string): Promise<ComparedFile[] | null> {
    const commit = this.holds(sha) ? await this.commit(sha) : null;
    return commit ? this.diff(commit.parents[0] ?? null, sha) : null;
  }

  /** The files changed from one commit to another (from nothing: every file), renames unpaired. */
  private async diff(from: string | null, to: string): Promise<ComparedFile[] | null> {
    const args = ['diff-tree', '-r', '-z', '--no-renames', '--raw', '--no-commit-id'];
    const out = await this.run(from ? [...args, from, to] : [...args, '--root', to]);
    if (out === null) return null;
    const tokens = out.toString('utf8').split('\0');
    const files: ComparedFile[] = [];
    for (let i = 0; i + 1 < tokens.length; i += 2) {
      const [, , before, after, letter] = tokens[i]!.split(' ');
      const removed = letter === 'D';
      const status = removed ? 'removed' : letter === 'A' ? 'added' : letter === 'T' ? 'changed' : 'modified';
      files.push({ path: tokens[i + 1]!, status, sha: (removed ? before : after)! });
    }
    return files;
  }

  /**
   * base...head as GitHub compares them (status, the commits head has that the merge base lacks, oldest
   * first, 100 a page, and the files changed from the merge base, at most 300, renames as a removal and an
   * addition), when the copy holds both. Null when it cannot tell; `unrelated` when they share no commit.
   */
  async compare(base: string, head: string, page: number): Promise<Comparison | 'unrelated' | null> {
    if (!this.holds(base) || !this.holds(head)) return null;
    const merged = await this.spawn(['merge-base', base, head], this.dir);
    if (merged.code === 1) return 'unrelated';
    const mergeBase = merged.code === 0 ? merged.stdout.toString('latin1').trim() : '';
    if (!SHA.test(mergeBase)) return this.fail();
    const [ahead, behind] = await Promise.all([
      this.run(['rev-list', '--reverse', `${base}..${head}`]),
      this.run(['rev-list', '--count', `${head}..${base}`]),
    ]);
    const files = await this.diff(mergeBase, head);
    if (ahead === null || behind === null || files === null) return null;
    const shas = ahead.toString('latin1').split('\n').filter(Boolean);
    const commits = await Promise.all(
      shas.slice((page - 1) * 100, page * 100).map((sha) => this.commit(sha)),
    );
    if (!commits.every((c) => c !== null)) return this.fail();
    const aheadBy = shas.length;
    const behindBy = Number(behind.toString('latin1').trim());
    const status =
      aheadBy === 0 && behindBy === 0
        ? 'identical'
        : behindBy === 0
          ? 'ahead'
          : aheadBy === 0
            ? 'behind'
            : 'diverged';
    return { status, totalCommits: aheadBy, commits: commits as CommitInfo[], files: files.slice(0, 300) };
  }

  /**
   * A page of the commits changing `path` from `head` with the tree at the path in each and in its first
   * parent, as Upstream.getPathHistory answers (`after`: the cursor this gave last). Null when the copy
   * cannot serve it.
   */
  async pathHistory(
    head: string,
    path: string,
    first: number,
    after: string | null,
  ): Promise<PathHistoryPage | null> {
    const offset = after === null ? 0 : cursorOffset(after, head);
    if (offset === null || !this.holds(head)) return null;
    const [tip, listed] = await Promise.all([this.commit(head), this.list(head, path, offset, first + 1)]);
    if (!tip || !listed) return null;
    const commits: PathCommit[] = [];
    for (const commit of listed.slice(0, first)) {
      const parent = commit.parents[0];
      const [tree, parentTree] = await Promise.all([
        this.treeAt(commit.sha, path),
        parent === undefined ? null : this.treeAt(parent, path),
      ]);
      if (tree === false || parentTree === false) return this.fail();
      commits.push({ commit, tree, parentTree });
    }
    const count = commits.length;
    return {
      head: tip,
      commits,
      hasNextPage: listed.length > first,
      endCursor: count > 0 ? `git ${head} ${offset + count - 1}` : null,
    };
  }

  /** Removes the copy. */
  close(): void {
    this.catFile?.close();
    this.catFile = null;
    if (this.dir !== null) {
      rmSync(this.dir, { recursive: true, force: true });
      copies.delete(this.dir);
    }
  }

  private async fetchHead(branch: string, head: string): Promise<void> {
    const dir = await this.ensureDir();
    this.fetches += 1;
    const ref = `refs/copy/${Buffer.from(branch).toString('hex')}`;
    const fetched = await this.spawn(
      [
        '-c',
        'protocol.version=2',
        '-c',
        `remote.origin.url=${this.options.url}`,
        'fetch',
        '--quiet',
        '--no-tags',
        '--no-write-fetch-head',
        '--no-auto-gc',
        '--filter=blob:none',
        'origin',
        `+${head}:${ref}`,
      ],
      dir,
    );
    if (/filtering not recognized/.test(fetched.stderr)) {
      // the server ignored the filter and sent the blobs, hidden files' contents too: none stays on disk
      this.close();
      throw new Error('the server does not serve partial clones');
    }
    if (fetched.code !== 0) throw new Error(`git fetch exited ${fetched.code}`);
    // every new commit present (rev-list stops at a missing one) and the head's whole tree, or the server
    // sent half of it; an older tree found missing later is read from the API, that read alone. (Checking
    // every tree of a long history, `rev-list --objects --missing=print`, took 18 s for 20,000 commits of a
    // 100,000-file tree: BENCHMARKS.md.)
    const tree = await this.run(['ls-tree', '-r', '-t', '-z', '--full-tree', head]);
    if (tree === null) throw new Error('the fetch left trees out');
    const not = [...this.heads].flatMap((h) => ['--not', h]);
    const commits = await this.run(['rev-list', head, ...not]);
    if (commits === null) throw new Error('rev-list failed');
    for (const sha of commits.toString('latin1').split('\n')) if (SHA.test(sha)) this.commits.add(sha);
    if (!this.commits.has(head)) throw new Error('the fetch did not bring the head');
    this.heads.add(head);
  }

  private ensureDir(): Promise<string> {
    this.ready ??= (async () => {
      const dir = mkdtempSync(join(this.options.parentDir, 'perimeter-history-'));
      this.dir = dir;
      copies.add(dir);
      for (const args of [
        ['init', '--quiet', '--bare'],
        ['config', 'core.repositoryformatversion', '1'],
        ['config', 'extensions.partialClone', 'origin'],
        ['config', 'remote.origin.promisor', 'true'],
        ['config', 'remote.origin.partialclonefilter', 'blob:none'],
      ])
        if ((await this.exitCode(args, dir)) !== 0) throw new Error(`git ${args[0]} failed`);
    })();
    return this.ready.then(() => this.dir!);
  }

  private async object(sha: string, type: 'commit' | 'tree'): Promise<Buffer | null> {
    if (this.failed || this.dir === null || !SHA.test(sha)) return null;
    this.catFile ??= new CatFile(this.options.git, this.environment(this.dir));
    const found = await this.catFile.read(sha).catch(() => this.fail());
    // absent here is an answer (another branch's object, say); the API has it or says not found
    return found && found.type === type ? found.body : null;
  }

  private fail(): null {
    this.failed = true;
    this.catFile?.close();
    this.catFile = null;
    return null;
  }

  private environment(dir: string): NodeJS.ProcessEnv {
    return gitEnvironment(this.options.token, dir);
  }

  private async exitCode(args: string[], dir = this.dir): Promise<number | null> {
    return (await this.spawn(args, dir)).code;
  }

  /** git's stdout, or null when it failed (and the copy with it) */
  private async run(args: string[]): Promise<Buffer | null> {
    if (this.failed) return null;
    const { code, stdout } = await this.spawn(args, this.dir);
    return code === 0 ? stdout : this.fail();
  }

  private spawn(
    args: string[],
    dir: string | null,
  ): Promise<{ code: number | null; stdout: Buffer; stderr: string }> {
    const none = { code: null, stdout: Buffer.alloc(0), stderr: '' };
    if (dir === null) return Promise.resolve(none);
    return new Promise((resolve) => {
      // its own process group: a fetch's HTTP helper (git-remote-https) is ended with it on a timeout, where
      // killing git alone would leave the helper holding the pipes, and this promise, open
      const child = spawn(this.options.git, args, {
        env: this.environment(dir),
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          child.kill('SIGKILL');
        }
      }, this.options.timeoutMs ?? 120_000);
      const chunks: Buffer[] = [];
      let stderr = '';
      child.stdout!.on('data', (chunk: Buffer) => chunks.push(chunk));
      // kept short: only git's own warnings are looked for
      child.stderr!.on(
        'data',
        (chunk: Buffer) => void (stderr = (stderr + chunk.toString('utf8')).slice(-4096)),
      );
      child.on('error', () => {
        clearTimeout(timer);
        resolve(none);
      });
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout: Buffer.concat(chunks), stderr });
      });
    });
  }
}

/** GitHub's own history cursors are opaque; these say whose they are, so another route's is never taken. */
function cursorOffset(cursor: string, head: string): number | null {
  const match = /^git ([0-9a-f]{40}) (\d+)$/.exec(cursor);
  return match && match[1] === head ? Number(match[2]) + 1 : null;
}

const spec = (path: string | undefined): string[] => (path === undefined ? [] : ['--', `:(literal)${path}`]);

/** One `git cat-file --batch` for the copy's life: a read is a line in and an object out, no process each. */
class CatFile {
  private readonly child: ChildProcess;
  private readonly waiting: Array<{
    resolve: (o: { type: string; body: Buffer } | null) => void;
    reject: (e: Error) => void;
  }> = [];
  private buffer: Buffer = Buffer.alloc(0);
  private dead: Error | null = null;

  constructor(git: string, env: NodeJS.ProcessEnv) {
    this.child = spawn(git, ['cat-file', '--batch'], { env, stdio: ['pipe', 'pipe', 'ignore'] });
    this.child.stdout!.on('data', (chunk: Buffer) => this.take(chunk));
    const die = (error: Error) => {
      this.dead ??= error;
      for (const w of this.waiting.splice(0)) w.reject(this.dead);
    };
    this.child.on('error', die);
    this.child.on('close', () => die(new Error('git cat-file ended')));
    this.child.stdin!.on('error', die);
    this.idle();
  }

  /** Holds the process open only while a read waits (an idle copy must not keep a CLI from exiting). */
  private idle(): void {
    const method = this.waiting.length > 0 ? 'ref' : 'unref';
    this.child[method]();
    for (const stream of [this.child.stdin, this.child.stdout])
      (stream as unknown as { [m: string]: (() => void) | undefined } | null)?.[method]?.();
  }

  read(sha: string): Promise<{ type: string; body: Buffer } | null> {
    if (this.dead) return Promise.reject(this.dead);
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      if (this.waiting.length === 1) this.idle();
      this.child.stdin!.write(`${sha}\n`);
    });
  }

  close(): void {
    this.child.stdin?.end();
    this.child.kill();
  }

  private take(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    this.parse();
    if (this.waiting.length === 0) this.idle();
  }

  private parse(): void {
    for (;;) {
      const eol = this.buffer.indexOf(0x0a);
      if (eol < 0) return;
      const [, type, size] = this.buffer.subarray(0, eol).toString('latin1').split(' ');
      if (type === 'missing' || size === undefined) {
        this.buffer = this.buffer.subarray(eol + 1);
        this.waiting.shift()?.resolve(null);
        continue;
      }
      const length = Number(size);
      if (this.buffer.length < eol + 1 + length + 1) return;
      const body = Buffer.from(this.buffer.subarray(eol + 1, eol + 1 + length));
      this.buffer = this.buffer.subarray(eol + 1 + length + 1);
      this.waiting.shift()?.resolve({ type: type!, body });
    }
  }
}

/** A commit object as GitHub shows it: the message as written, dates in UTC to the second. */
export function parseCommit(sha: string, data: Buffer): CommitInfo {
  const text = data.toString('utf8');
  const split = text.indexOf('\n\n');
  const header = split < 0 ? text : text.slice(0, split);
  const commit: CommitInfo = {
    sha,
    tree: '',
    parents: [],
    message: split < 0 ? '' : text.slice(split + 2),
    author: person(''),
    committer: person(''),
  };
  for (const line of header.split('\n')) {
    const space = line.indexOf(' ');
    const key = line.slice(0, space);
    const value = line.slice(space + 1);
    if (key === 'tree') commit.tree = value;
    else if (key === 'parent') commit.parents.push(value);
    else if (key === 'author') commit.author = person(value);
    else if (key === 'committer') commit.committer = person(value);
  }
  return commit;
}

function person(value: string): Signature {
  const match = /^(.*) <(.*)> (\d+) [+-]\d{4}$/.exec(value);
  if (!match) return { name: '', email: '', date: new Date(0).toISOString().replace('.000Z', 'Z') };
  const date = new Date(Number(match[3]) * 1000).toISOString().replace('.000Z', 'Z');
  return { name: match[1]!, email: match[2]!, date };
}

/** A tree object's entries as GitHub's tree listing gives them (a tree's mode 040000), sizes left out. */
export function parseTree(data: Buffer): TreeEntry[] {
  const entries: TreeEntry[] = [];
  let at = 0;
  while (at < data.length) {
    const space = data.indexOf(0x20, at);
    const nul = data.indexOf(0, space);
    if (space < 0 || nul < 0 || nul + 21 > data.length) throw new Error('malformed tree');
    const mode = data.subarray(at, space).toString('latin1').padStart(6, '0');
    const path = data.subarray(space + 1, nul).toString('utf8');
    const sha = data.subarray(nul + 1, nul + 21).toString('hex');
    const type = mode === '040000' ? 'tree' : mode === '160000' ? 'commit' : 'blob';
    entries.push({ path, mode, type, sha });
    at = nul + 21;
  }
  return entries;
}
