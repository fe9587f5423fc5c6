import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { seedRepo } from '../src/index.js';
import { restClient, scratchDir } from './test-support.js';

const CLI = join(import.meta.dirname, '../src/cli.ts');
const TSX = join(import.meta.dirname, '../../../node_modules/.bin/tsx');

describe('the fake-github command', () => {
  let child: ChildProcess | null = null;
  let cleanup: (() => Promise<void>) | null = null;

  afterEach(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
    await cleanup?.();
  });

  async function start(args: string[]): Promise<{ firstLine: string; stderr: () => string }> {
    child = spawn(TSX, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const lines = createInterface({ input: child.stdout! });
    const exited = once(child, 'exit').then(() => '');
    const firstLine = await Promise.race([once(lines, 'line').then(([line]) => String(line)), exited]);
    return { firstLine, stderr: () => stderr };
  }

  it('prints its URL first and serves the repositories with the given token, privacy and budget', async () => {
    const scratch = await scratchDir();
    cleanup = scratch.cleanup;
    const sha = await seedRepo(join(scratch.dir, 'app.git'), { 'a.txt': 'a\n' });
    const { firstLine } = await start([
      '--port',
      '0',
      '--repo',
      `acme/app=${join(scratch.dir, 'app.git')}`,
      '--repo',
      `acme/fresh=${join(scratch.dir, 'fresh.git')}`,
      '--token',
      'cli-token',
      '--private',
      'acme/app',
      '--rate-limit',
      '10',
      '--extra-token',
      'teammate=teammate-token',
    ]);
    const match = /^fake-github listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(firstLine);
    expect(match, firstLine).not.toBeNull();
    const api = restClient(match![1]!, 'cli-token');
    const repo = await api('GET', '/repos/acme/app');
    expect(repo.body).toMatchObject({ private: true, default_branch: 'main' });
    expect(repo.headers.get('x-ratelimit-limit')).toBe('10');
    expect((await api('GET', '/repos/acme/app/git/ref/heads/main')).body.object.sha).toBe(sha);
    expect((await api('GET', '/repos/acme/fresh/git/ref/heads/main')).status).toBe(409);
    expect((await restClient(match![1]!, 'test-token')('GET', '/repos/acme/app')).status).toBe(401);
    // the extra token acts as its login: its ref change is recorded as the teammate's
    const teammate = restClient(match![1]!, 'teammate-token');
    expect((await teammate('POST', '/repos/acme/app/git/refs', { ref: 'refs/heads/t', sha })).status).toBe(
      201,
    );
    const activity = await api('GET', '/repos/acme/app/activity');
    expect(activity.body[0]).toMatchObject({ ref: 'refs/heads/t', actor: { login: 'teammate' } });
  });

  it('refuses an --extra-token that is not LOGIN=TOKEN', async () => {
    const { stderr } = await start(['--repo', 'acme/app=/tmp/x.git', '--extra-token', 'nobody']);
    expect(child!.exitCode).toBe(2);
    expect(stderr()).toContain('expected --extra-token LOGIN=TOKEN, got "nobody"');
  });

  it('refuses a malformed --repo with a message and the usage, without a stack trace', async () => {
    const { firstLine, stderr } = await start(['--repo', 'not-a-spec']);
    expect(firstLine).toBe('');
    expect(child!.exitCode).toBe(2);
    expect(stderr()).toContain('expected --repo OWNER/NAME=PATH, got "not-a-spec"');
    expect(stderr()).toContain('usage:');
    expect(stderr()).not.toMatch(/\n\s+at /);
  });
});
