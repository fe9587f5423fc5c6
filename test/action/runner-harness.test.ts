import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { ActionRunner, parseCommandFile, REPO_ROOT, runnerNode } from '@perimeter/test-rigs';

describe('ActionRunner', () => {
  describe('when an action uses every file command', () => {
    it('passes inputs, outputs, state, exported variables, annotations and summaries like a runner', async () => {
      const runner = new ActionRunner({
        apiUrl: 'http://127.0.0.1:9',
        repository: 'octo/repo',
        token: 'ghs_harnesstoken123',
        ref: 'refs/heads/agent/x',
        inputs: { say: 'hi' },
        actionDir: join(REPO_ROOT, 'test/action/fixtures/echo-action'),
      });
      const main = await runner.runMain();
      expect(main.exitCode).toBe(0);
      expect(main.outputs).toEqual({ said: 'hi\nsecond line' });
      expect(main.state).toEqual({ multi: 'a\nb', plain: 'refs/heads/agent/x' });
      expect(main.exported).toEqual({ FROM_MAIN: 'exported' });
      expect(main.masks).toEqual(['ghs_harnesstoken123']);
      expect(main.log).toContain('token is ***');
      expect(main.log).not.toContain('ghs_harnesstoken123');
      expect(main.annotations).toEqual([
        { level: 'error', message: 'bad, thing: 100%', file: 'src/a,b.ts', line: 3, col: 7, title: 'T: x' },
      ]);
      expect(main.summary).toContain('<h2>Main</h2>');

      const post = await runner.runPost();
      expect(post.exitCode).toBe(1);
      expect(JSON.parse(post.outputs.seen ?? '')).toEqual({
        multi: 'a\nb',
        plain: 'refs/heads/agent/x',
        env: 'exported',
      });
      expect(post.annotations).toEqual([{ level: 'error', message: 'post failed on purpose' }]);
      // masks registered in main still apply to post's log, as on a runner
      expect(post.log).toContain('again ***');
      expect(post.stdout).toContain('again ghs_harnesstoken123');
    });
  });
});

describe('the node that runs the steps', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'perimeter-runner-node-'));
  /** A "node" that announces itself with a notice, then runs the real one. */
  const wrapper = join(scratch, 'node');
  writeFileSync(
    wrapper,
    `#!/bin/sh\necho "::notice::wrapped $(basename "$1")"\nexec '${process.execPath}' "$@"\n`,
  );
  chmodSync(wrapper, 0o755);
  const runner = (node?: string) =>
    new ActionRunner({
      apiUrl: 'http://127.0.0.1:9',
      repository: 'octo/repo',
      token: 't',
      actionDir: join(REPO_ROOT, 'test/action/fixtures/echo-action'),
      ...(node ? { node } : {}),
    });
  afterEach(() => vi.unstubAllEnvs());
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('is PERIMETER_RUNNER_NODE when set (how test:node24 runs the bundles on Node 24)', async () => {
    vi.stubEnv('PERIMETER_RUNNER_NODE', wrapper);
    expect(runnerNode()).toBe(wrapper);
    const job = runner();
    expect((await job.runMain()).annotations).toContainEqual({
      level: 'notice',
      message: 'wrapped main.mjs',
    });
    expect((await job.runPost()).annotations).toContainEqual({
      level: 'notice',
      message: 'wrapped post.mjs',
    });
    job.dispose();
  });

  it('is the one given to the runner, and else the node running the tests', async () => {
    vi.stubEnv('PERIMETER_RUNNER_NODE', '');
    expect(runnerNode()).toBe(process.execPath);
    const given = runner(wrapper);
    expect((await given.runMain()).annotations).toContainEqual({
      level: 'notice',
      message: 'wrapped main.mjs',
    });
    given.dispose();
    const plain = runner();
    expect((await plain.runMain()).annotations).not.toContainEqual(
      expect.objectContaining({ level: 'notice' }),
    );
    plain.dispose();
  });
});

describe('ActionRunner.exportFromStep', () => {
  it('carries variables to later steps but never overwrites GITHUB_*, RUNNER_* or NODE_OPTIONS', () => {
    const runner = new ActionRunner({
      apiUrl: 'http://127.0.0.1:9',
      repository: 'octo/repo',
      token: 't',
      actionDir: join(REPO_ROOT, 'test/action/fixtures/echo-action'),
    });
    runner.exportFromStep({
      GITHUB_API_URL: 'http://attacker.example',
      GITHUB_REPOSITORY: 'attacker/repo',
      RUNNER_TEMP: '/tmp/x',
      NODE_OPTIONS: '--require /tmp/x.js',
      KEPT: 'yes',
    });
    expect(runner.baseEnv()).toMatchObject({
      GITHUB_API_URL: 'http://127.0.0.1:9',
      GITHUB_REPOSITORY: 'octo/repo',
      KEPT: 'yes',
    });
    expect(runner.baseEnv().NODE_OPTIONS).toBeUndefined();
    runner.dispose();
  });
});

describe('parseCommandFile', () => {
  it('reads single-line and heredoc entries', () => {
    expect(parseCommandFile('a=1\nb<<EOF\nx\n\ny\nEOF\nc=\n')).toEqual({ a: '1', b: 'x\n\ny', c: '' });
  });
  it('throws on an unterminated heredoc', () => {
    expect(() => parseCommandFile('b<<EOF\nx\n')).toThrow('no closing delimiter for b');
  });
});
