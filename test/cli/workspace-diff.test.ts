import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { blobSha } from '../../src/github/index.js';
import type { WorkspaceState } from '../../src/clients/workspace-state.js';
import { diffWorkspace } from '../../src/cli/workspace-diff.js';

const HANDED_OUT: Record<string, string> = {
  'src/a.ts': 'a\n',
  'src/b.ts': 'b\n',
  'README.md': '# r\n',
};

describe('diffWorkspace', () => {
  let dir: string;
  let state: WorkspaceState;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'perimeter-ws-diff-'));
    const files: WorkspaceState['files'] = {};
    for (const [path, content] of Object.entries(HANDED_OUT)) {
      mkdirSync(join(dir, path, '..'), { recursive: true });
      writeFileSync(join(dir, path), content);
      files[path] = { mode: '100644', sha: blobSha(Buffer.from(content)) };
    }
    symlinkSync('a.ts', join(dir, 'src/link.ts'));
    files['src/link.ts'] = { mode: '120000', sha: blobSha(Buffer.from('a.ts')) };
    execFileSync('git', ['init', '--quiet', dir]);
    state = {
      version: 1,
      perimeter: 'p',
      url: 'http://127.0.0.1:1/mcp/p',
      secret: 's',
      dir,
      branch: 'agent/work',
      head: '0'.repeat(40),
      files,
    };
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  describe('when nothing changed', () => {
    it('finds nothing to push', async () => {
      expect(await diffWorkspace(state)).toEqual({
        files: [],
        deletions: [],
        written: {},
        refused: [],
        notes: [],
      });
    });
  });

  describe('when files are written, added and deleted', () => {
    it('sends the written and added ones whole, and the deletions', async () => {
      writeFileSync(join(dir, 'src/a.ts'), 'A\n');
      writeFileSync(join(dir, 'src/new.ts'), 'new\n');
      rmSync(join(dir, 'src/b.ts'));
      const diff = await diffWorkspace(state);
      expect(diff.files).toEqual([
        { path: 'src/a.ts', content: 'A\n' },
        { path: 'src/new.ts', content: 'new\n' },
      ]);
      expect(diff.deletions).toEqual(['src/b.ts']);
      expect(diff.refused).toEqual([]);
    });

    it('sends binary content and text with a byte-order mark as base64, byte for byte', async () => {
      writeFileSync(join(dir, 'logo.png'), Buffer.from([0x89, 0, 1]));
      writeFileSync(join(dir, 'bom.txt'), Buffer.from('\ufeffhi\n', 'utf8'));
      const diff = await diffWorkspace(state);
      expect(diff.files).toEqual([
        { path: 'bom.txt', content: Buffer.from('\ufeffhi\n').toString('base64'), encoding: 'base64' },
        { path: 'logo.png', content: Buffer.from([0x89, 0, 1]).toString('base64'), encoding: 'base64' },
      ]);
    });
  });

  describe('when a file git ignores is added', () => {
    it('leaves it home, and never looks inside .git', async () => {
      writeFileSync(join(dir, '.gitignore'), 'build/\n');
      mkdirSync(join(dir, 'build'));
      writeFileSync(join(dir, 'build/out.js'), 'x\n');
      const diff = await diffWorkspace(state);
      expect(diff.files.map((f) => f.path)).toEqual(['.gitignore']);
    });
  });

  describe('when a file that was not handed out is absent', () => {
    it('is no deletion', async () => {
      // a hidden file, a withheld one: not in the state, so never deleted
      expect((await diffWorkspace(state)).deletions).toEqual([]);
    });
  });

  describe('when a symlink is added or changed', () => {
    it('refuses it before anything is sent', async () => {
      symlinkSync('../../etc/passwd', join(dir, 'src/evil'));
      rmSync(join(dir, 'src/link.ts'));
      symlinkSync('b.ts', join(dir, 'src/link.ts'));
      const diff = await diffWorkspace(state);
      expect(diff.refused).toEqual([
        expect.stringMatching(/^src\/evil: a symlink/) as string,
        expect.stringMatching(/^src\/link\.ts: a symlink/) as string,
      ]);
    });
  });

  describe('when only a mode changed', () => {
    it('says so and pushes nothing', async () => {
      chmodSync(join(dir, 'src/a.ts'), 0o755);
      const diff = await diffWorkspace(state);
      expect(diff.files).toEqual([]);
      expect(diff.notes).toEqual([expect.stringMatching(/^src\/a\.ts: mode changed to 100755/) as string]);
    });
  });

  describe("when the agent wrote the workspace's .git (the push runs with the step's secrets)", () => {
    it('runs none of it: no fsmonitor, no clean filter', async () => {
      const ran = join(dir, '..', `${dir.split('/').pop()}-ran`);
      const hook = join(dir, 'hook.sh');
      writeFileSync(hook, `#!/bin/sh\ntouch '${ran}'\ncat\n`, { mode: 0o755 });
      execFileSync('git', ['-C', dir, 'config', 'core.fsmonitor', hook]);
      execFileSync('git', ['-C', dir, 'config', 'filter.x.clean', hook]);
      mkdirSync(join(dir, '.git/info'), { recursive: true });
      writeFileSync(join(dir, '.git/info/attributes'), '* filter=x\n');
      writeFileSync(join(dir, 'src/a.ts'), 'A\n');
      const diff = await diffWorkspace(state);
      expect(diff.files.map((f) => f.path)).toEqual(['hook.sh', 'src/a.ts']);
      expect(() => execFileSync('test', ['-e', ran])).toThrow();
    });
  });

  describe('when a directory is replaced by a symlink (to files the push command may read)', () => {
    it('refuses the symlink, follows nothing, and reads no file through it', async () => {
      const outside = mkdtempSync(join(tmpdir(), 'perimeter-ws-outside-'));
      writeFileSync(join(outside, 'a.ts'), 'the runner user secret\n');
      writeFileSync(join(outside, 'b.ts'), 'b\n');
      rmSync(join(dir, 'src'), { recursive: true });
      symlinkSync(outside, join(dir, 'src'));
      // listed where git would no longer look, and ignored where a .gitignore could hide it
      mkdirSync(join(dir, '.git/info'), { recursive: true });
      writeFileSync(join(dir, '.git/info/exclude'), 'src\n');
      writeFileSync(join(dir, '.gitignore'), 'src\n');
      try {
        const diff = await diffWorkspace(state);
        expect(diff.refused).toEqual([expect.stringMatching(/^src: a symlink/) as string]);
        expect(JSON.stringify(diff.files)).not.toContain('secret');
      } finally {
        rmSync(outside, { recursive: true, force: true });
      }
    });
  });
});
