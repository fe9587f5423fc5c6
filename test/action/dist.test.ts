/** The committed bundles: what action.yml points at exists, runs on this Node, and fails cleanly on bad input. */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { parseStdout, REPO_ROOT, runnerNode } from '@perimeter/test-rigs';

const run = promisify(execFile);
const action = parseYaml(readFileSync(join(REPO_ROOT, 'action.yml'), 'utf8')) as {
  runs: { using: string; main: string; post: string; 'post-if': string };
};

describe('action.yml', () => {
  it('runs the committed bundles on node24, post always', () => {
    expect(action.runs).toEqual({
      using: 'node24',
      main: 'dist/main/index.js',
      post: 'dist/post/index.js',
      'post-if': 'always()',
    });
    for (const entry of ['main', 'post', 'gateway', 'verify']) {
      expect(existsSync(join(REPO_ROOT, 'dist', entry, 'index.js')), entry).toBe(true);
      expect(JSON.parse(readFileSync(join(REPO_ROOT, 'dist', entry, 'package.json'), 'utf8'))).toEqual({
        type: 'module',
      });
    }
  });
});

describe.each(['main', 'post', 'verify'])('dist/%s/index.js', (entry) => {
  describe('when run without a runner environment', () => {
    it('fails with one clear error, no stack trace', async () => {
      const error = (await run(runnerNode(), [join(REPO_ROOT, 'dist', entry, 'index.js')], {
        env: { PATH: process.env.PATH ?? '' },
      }).catch((e: unknown) => e)) as { code: number; stdout: string; stderr: string };
      expect(error.code).toBe(1);
      const { annotations } = parseStdout(error.stdout);
      expect(annotations).toHaveLength(1);
      expect(annotations[0]?.message).toContain('github-token: required');
      expect(error.stdout + error.stderr).not.toMatch(/\n\s+at /);
    });
  });
});
