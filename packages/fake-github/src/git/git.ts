import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';

export const ZERO_SHA = '0000000000000000000000000000000000000000';

export class GitError extends Error {
  constructor(
    readonly args: string[],
    readonly code: number | null,
    readonly stderr: string,
  ) {
    super(`git ${args.join(' ')} failed (${code}): ${stderr.trim()}`);
    this.name = 'GitError';
  }
}

export interface GitRunOptions {
  input?: string | Uint8Array;
  env?: Record<string, string>;
}

/** Runs git against a bare repository and returns its stdout; throws GitError on a non-zero exit. */
export function git(dir: string, args: string[], options: GitRunOptions = {}): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, {
      cwd: dir,
      env: { ...process.env, GIT_DIR: dir, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.stdin.on('error', () => undefined);
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out));
      else reject(new GitError(args, code, Buffer.concat(err).toString('utf8')));
    });
    child.stdin.end(options.input ?? '');
  });
}

export async function gitText(dir: string, args: string[], options?: GitRunOptions): Promise<string> {
  return (await git(dir, args, options)).toString('utf8');
}

/** Runs git and reports only whether it exited 0 (for checks such as merge-base --is-ancestor). */
export async function tryGit(dir: string, args: string[], options?: GitRunOptions): Promise<boolean> {
  try {
    await git(dir, args, options);
    return true;
  } catch (error) {
    if (error instanceof GitError) return false;
    throw error;
  }
}

export interface GitObject {
  sha: string;
  type: 'blob' | 'tree' | 'commit' | 'tag';
  data: Buffer;
}

interface Pending {
  resolve: (object: GitObject | null) => void;
  reject: (error: Error) => void;
}

/** A long-lived `git cat-file --batch` for one repository; requests are answered in order. */
export class CatFile {
  private child: ChildProcessWithoutNullStreams | null = null;
  private buffer = Buffer.alloc(0);
  private chunks: Buffer[] = [];
  private chunkBytes = 0;
  private need = 0;
  private readonly queue: Pending[] = [];

  constructor(private readonly dir: string) {}

  read(name: string): Promise<GitObject | null> {
    if (/[\s]/.test(name) || name.length === 0) return Promise.resolve(null);
    const child = this.start();
    return new Promise((resolve, reject) => {
      this.queue.push({ resolve, reject });
      child.stdin.write(`${name}\n`);
    });
  }

  close(): void {
    this.child?.stdin.end();
    this.child = null;
  }

  private start(): ChildProcessWithoutNullStreams {
    if (this.child) return this.child;
    const child = spawn('git', ['cat-file', '--batch'], {
      cwd: this.dir,
      env: { ...process.env, GIT_DIR: this.dir },
    });
    child.stdout.on('data', (chunk: Buffer) => {
      this.chunks.push(chunk);
      this.chunkBytes += chunk.length;
      if (this.buffer.length + this.chunkBytes < this.need) return;
      this.buffer = Buffer.concat([this.buffer, ...this.chunks]);
      this.chunks = [];
      this.chunkBytes = 0;
      this.drain();
    });
    const fail = (error: Error): void => {
      if (this.child === child) this.child = null;
      for (const pending of this.queue.splice(0)) pending.reject(error);
    };
    child.on('error', fail);
    child.on('close', () => fail(new Error('git cat-file exited')));
    child.stdin.on('error', () => undefined);
    this.child = child;
    return child;
  }

  private drain(): void {
    for (;;) {
      const newline = this.buffer.indexOf(10);
      if (newline < 0 || this.queue.length === 0) return;
      const header = this.buffer.subarray(0, newline).toString('utf8');
      if (header.endsWith(' missing') || header.endsWith(' ambiguous')) {
        this.buffer = this.buffer.subarray(newline + 1);
        this.queue.shift()!.resolve(null);
        continue;
      }
      const [sha, type, sizeText] = header.split(' ');
      const size = Number(sizeText);
      if (this.buffer.length < newline + 1 + size + 1) {
        this.need = newline + 1 + size + 1;
        return;
      }
      this.need = 0;
      const data = Buffer.from(this.buffer.subarray(newline + 1, newline + 1 + size));
      this.buffer = this.buffer.subarray(newline + 1 + size + 1);
      this.queue.shift()!.resolve({ sha: sha!, type: type as GitObject['type'], data });
    }
  }
}
