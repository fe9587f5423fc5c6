import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Blob reads over git's smart HTTP protocol with the job's token, instead of one REST request per blob.
 *
 * GitHub does not count git operations against the REST API's rate limit (its support, in
 * https://github.com/orgs/community/discussions/44515: "Git operations do not consume part of your API rate
 * limit"), and protocol v2 fetches any blob reachable from the repository's refs by its SHA: the same request
 * a partial clone makes for a blob it is missing (https://git-scm.com/docs/partial-clone,
 * https://git-scm.com/docs/protocol-v2#_fetch). So blobs asked for together cost one fetch of two HTTP requests
 * (the capability advertisement and the upload-pack POST), whatever their number.
 *
 * Only the blobs asked for are fetched, never a tree or a commit, so the store on disk holds no name of a
 * hidden file. git itself checks each object against its SHA (index-pack names objects by their content).
 * The store is a bare repository in a 0700 temporary directory, removed on close and at exit.
 */
export interface GitBlobOptions {
  /** the repository's clone URL, e.g. https://github.com/OWNER/REPO.git */
  url: string;
  token: string;
  /** the git binary; default `git` on PATH */
  git?: string;
  /** where the temporary store goes; default the OS temporary directory */
  tempDir?: string;
  /** longest one fetch may take; default 60 s */
  timeoutMs?: number;
}

/**
 * Blobs asked for in one fetch at most. The SHAs go to `git fetch --stdin`, not argv, so no command line
 * limit applies; what bounds a batch is the want list of one upload-pack POST (50 bytes a blob: 2.5 MB at
 * 50,000) and the `cat-file` answer held in memory, so a 100,000-file workspace takes two fetches.
 */
const PER_FETCH = 50_000;

/** every store not yet removed, removed when the process exits (one listener for all readers) */
const stores = new Set<string>();
process.once('exit', () => {
  for (const dir of stores) rmSync(dir, { recursive: true, force: true });
});

/**
 * The clone URL of a repository on the GitHub that serves `apiUrl`: github.com's API is api.github.com, a
 * GHE.com one api.SUBDOMAIN.ghe.com, GitHub Enterprise Server's https://HOST/api/v3; anything else (the
 * stand-in) serves git at the API's own origin.
 */
export function cloneUrl(apiUrl: string, owner: string, repo: string): string {
  const api = new URL(apiUrl);
  const path = `/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}.git`;
  if (/^api\./.test(api.hostname) && /(^|\.)(github\.com|ghe\.com)$/.test(api.hostname))
    return `${api.protocol}//${api.hostname.slice(4)}${path}`;
  const base = api.pathname.replace(/\/api\/v3\/?$/, '').replace(/\/+$/, '');
  return `${api.origin}${base}${path}`;
}

interface Waiter {
  resolve: (bytes: Uint8Array | null) => void;
}

export class GitBlobReader {
  private store: Promise<string> | null = null;
  private storeDir: string | null = null;
  private queue = new Map<string, Waiter[]>();
  private running: Promise<void> | null = null;
  /** the store's last git work: fetches into it go one at a time */
  private turn: Promise<unknown> = Promise.resolve();
  /** set when a fetch failed: from then on every read answers null at once */
  failed = false;
  /** git fetches made (each two HTTP requests) */
  fetches = 0;

  constructor(private readonly options: GitBlobOptions) {}

  /**
   * Many blobs at once: every one asked for here joins the same fetch (a few, past PER_FETCH). Those git could
   * not bring are absent from the map, all of them once git failed.
   */
  async readMany(shas: Iterable<string>): Promise<Map<string, Uint8Array>> {
    const unique = [...new Set(shas)];
    const read = await Promise.all(unique.map((sha) => this.read(sha)));
    const found = new Map<string, Uint8Array>();
    unique.forEach((sha, i) => {
      const bytes = read[i];
      if (bytes) found.set(sha, bytes);
    });
    return found;
  }

  /**
   * The blob's bytes, or null when git could not bring it (git missing, refused, the network): the caller
   * reads it another way, and so do all later reads. Reads asked for while a fetch runs go together in the next.
   */
  read(sha: string): Promise<Uint8Array | null> {
    if (this.failed) return Promise.resolve(null);
    return new Promise((resolve) => {
      const waiting = this.queue.get(sha);
      if (waiting) waiting.push({ resolve });
      else this.queue.set(sha, [{ resolve }]);
      this.running ??= this.drain();
    });
  }

  /**
   * Blob sizes: the blobs are fetched into the store as read() fetches them, but not read into memory
   * (GitHub offers no size-only read over git: protocol v2's object-info is not advertised), so a size
   * costs the blob's bytes on the wire and on disk, none in memory, and the read that usually follows no
   * fetch. Those git could not bring are absent, all of them once git failed.
   */
  async sizes(shas: Iterable<string>): Promise<Map<string, number>> {
    const unique = [...new Set(shas)];
    if (this.failed || unique.length === 0) return new Map();
    const work = this.turn.then(async () => {
      const store = await this.ensureStore();
      await this.fetchMissing(store, unique);
      return this.sizesIn(store, unique);
    });
    this.turn = work.catch(() => undefined);
    return work.catch(() => {
      this.failed = true;
      return new Map<string, number>();
    });
  }

  /** Removes the store; later reads start a new one. */
  close(): void {
    this.removeStore();
  }

  private async drain(): Promise<void> {
    // let every read of this turn of the event loop join the first fetch
    await new Promise((resolve) => setImmediate(resolve));
    while (this.queue.size > 0) {
      const batch = [...this.queue].slice(0, PER_FETCH);
      for (const [sha] of batch) this.queue.delete(sha);
      const found = await this.fetch(batch.map(([sha]) => sha)).catch(() => {
        // git is missing, refused or unreachable: every later read goes the other way at once
        this.failed = true;
        return new Map<string, Uint8Array>();
      });
      for (const [sha, waiters] of batch) for (const w of waiters) w.resolve(found.get(sha) ?? null);
    }
    this.running = null;
  }

  private fetch(shas: string[]): Promise<Map<string, Uint8Array>> {
    // one git fetch into the store at a time: sizes() fetches there too
    const work = this.turn.then(async () => {
      const store = await this.ensureStore();
      await this.fetchMissing(store, shas);
      const listed = await this.git(['cat-file', '--batch'], store, `${shas.join('\n')}\n`);
      if (listed.code !== 0) throw new Error(`git cat-file exited ${listed.code}`);
      return parseBatch(listed.stdout);
    });
    this.turn = work.catch(() => undefined);
    return work;
  }

  /** Fetches the blobs the store lacks (one fetch, none when it holds them all, as after sizes()). */
  private async fetchMissing(store: string, shas: string[]): Promise<void> {
    const held = await this.sizesIn(store, shas);
    const missing = shas.filter((sha) => !held.has(sha));
    if (missing.length === 0) return;
    this.fetches += 1;
    const fetch = ['-c', 'protocol.version=2', 'fetch', '--quiet', '--no-tags', '--no-write-fetch-head'];
    const fetched = await this.git(
      [...fetch, '--no-auto-gc', '--stdin', this.options.url],
      store,
      `${missing.join('\n')}\n`,
    );
    if (fetched.code !== 0) throw new Error(`git fetch exited ${fetched.code}`);
  }

  /** The sizes of the blobs the store holds (`cat-file --batch-check`: no content read). */
  private async sizesIn(store: string, shas: string[]): Promise<Map<string, number>> {
    const listed = await this.git(['cat-file', '--batch-check'], store, `${shas.join('\n')}\n`);
    if (listed.code !== 0) throw new Error(`git cat-file exited ${listed.code}`);
    const sizes = new Map<string, number>();
    for (const line of listed.stdout.toString('latin1').split('\n')) {
      const [sha, type, size] = line.split(' ');
      if (type === 'blob' && sha !== undefined && size !== undefined) sizes.set(sha, Number(size));
    }
    return sizes;
  }

  /** the bare repository the blobs are fetched into, made on first use */
  private ensureStore(): Promise<string> {
    this.store ??= (async () => {
      const dir = mkdtempSync(join(this.options.tempDir ?? tmpdir(), 'perimeter-blobs-'));
      this.storeDir = dir;
      stores.add(dir);
      const made = await this.git(['init', '--quiet', '--bare'], dir, null);
      if (made.code !== 0) throw new Error(`git init exited ${made.code}`);
      return dir;
    })();
    this.store.catch(() => this.removeStore());
    return this.store;
  }

  private removeStore(): void {
    this.store = null;
    if (this.storeDir === null) return;
    rmSync(this.storeDir, { recursive: true, force: true });
    stores.delete(this.storeDir);
    this.storeDir = null;
  }

  /** git in the store, with the token in a header only git sees */
  private git(
    args: string[],
    store: string,
    input: string | null,
  ): Promise<{ code: number | null; stdout: Buffer }> {
    const env = gitEnvironment(this.options.token, store);
    return new Promise((resolve, reject) => {
      const child = spawn(this.options.git ?? 'git', args, {
        env,
        stdio: [input === null ? 'ignore' : 'pipe', 'pipe', 'ignore'],
        timeout: this.options.timeoutMs ?? 60_000,
      });
      const chunks: Buffer[] = [];
      child.stdout!.on('data', (chunk: Buffer) => chunks.push(chunk));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout: Buffer.concat(chunks) }));
      if (input !== null) child.stdin?.end(input);
    });
  }
}

/**
 * The environment of a git process over a store of the gateway's: no system or global configuration, no
 * prompt, no hooks, and the token in a header only git sees.
 */
export function gitEnvironment(token: string, store: string): NodeJS.ProcessEnv {
  const auth = Buffer.from(`x-access-token:${token}`).toString('base64');
  return {
    PATH: process.env.PATH,
    HOME: store,
    GIT_DIR: store,
    GIT_TERMINAL_PROMPT: '0',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    // The header as actions/checkout sends it; through the environment, never argv, which any process
    // of the runner's user can read in /proc.
    GIT_CONFIG_COUNT: '3',
    GIT_CONFIG_KEY_0: 'http.extraHeader',
    GIT_CONFIG_VALUE_0: `Authorization: Basic ${auth}`,
    GIT_CONFIG_KEY_1: 'credential.helper',
    GIT_CONFIG_VALUE_1: '',
    GIT_CONFIG_KEY_2: 'core.hooksPath',
    GIT_CONFIG_VALUE_2: '/dev/null',
  };
}

/** `git cat-file --batch` output: "<sha> blob <size>\n<bytes>\n" per object found, "<sha> missing\n" else. */
export function parseBatch(out: Buffer): Map<string, Uint8Array> {
  const found = new Map<string, Uint8Array>();
  let at = 0;
  while (at < out.length) {
    const eol = out.indexOf(0x0a, at);
    if (eol < 0) break;
    const [sha, type, size] = out.subarray(at, eol).toString('latin1').split(' ');
    at = eol + 1;
    if (type === 'missing' || size === undefined) continue;
    const length = Number(size);
    if (type === 'blob' && sha !== undefined) found.set(sha, new Uint8Array(out.subarray(at, at + length)));
    at += length + 1;
  }
  return found;
}
