import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'perimeter-main-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('perimeter', () => {
  describe('when asked for help', () => {
    it('lists every command and exits 0', async () => {
      const result = await runCli(['--help'], dir);
      expect(result.code).toBe(0);
      for (const command of ['check', 'explain', 'serve', 'verify-ledger', '--version']) {
        expect(result.stdout).toContain(`perimeter ${command}`);
      }
    });

    it('shows one command usage for COMMAND --help', async () => {
      const result = await runCli(['explain', '--help'], dir);
      expect(result).toEqual({
        code: 0,
        stdout:
          'Usage: perimeter explain [--config FILE] [--json] [--association NAME | --user LOGIN | --pr-author LOGIN --pr-branch BRANCH] PATH...\n',
        stderr: '',
      });
    });
  });

  describe('when asked for its version', () => {
    it.each([['--version'], ['-V']])(
      'prints the version of package.json for %s and exits 0',
      async (flag) => {
        const { version } = JSON.parse(
          readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
        ) as { version: string };
        expect(version).toMatch(/^\d+\.\d+\.\d+/);
        expect(await runCli([flag], dir)).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
      },
    );
  });

  describe('when the command is missing or unknown', () => {
    it.each([[[]], [['nope']], [['--json']]])('exits 2 with the usage for %j', async (args) => {
      const result = await runCli(args, dir);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain('Usage:');
    });
  });
});
