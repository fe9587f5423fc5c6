import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A scratch directory removed by the returned cleanup. */
export async function scratchDir(
  prefix = 'fake-github-test-',
): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Runs the git client as a user would, isolated from this machine's git configuration. */
export async function gitClient(cwd: string, args: string[], home: string): Promise<string> {
  const { stdout } = await run('git', args, {
    cwd,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: home,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_TERMINAL_PROMPT: '0',
      GIT_AUTHOR_NAME: 'Agent',
      GIT_AUTHOR_EMAIL: 'agent@example.com',
      GIT_COMMITTER_NAME: 'Agent',
      GIT_COMMITTER_EMAIL: 'agent@example.com',
    },
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

/** `http://x-access-token:TOKEN@host/owner/name.git` */
export function cloneUrl(base: string, fullName: string, token: string): string {
  const url = new URL(`${base}/${fullName}.git`);
  url.username = 'x-access-token';
  url.password = token;
  return url.href;
}

/** Answers are JSON checked field by field in the tests. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export interface Api {
  (
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; headers: Headers; body: Json }>;
}

/** A small REST client for the stand-in (`token` auth by default). */
export function restClient(base: string, token: string | null = 'test-token'): Api {
  return async (method, path, body, headers = {}) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `token ${token}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      /* not JSON: keep the text */
    }
    return { status: response.status, headers: response.headers, body: parsed };
  };
}
