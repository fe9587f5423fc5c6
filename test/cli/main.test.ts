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
      expect(result.code).toBe(0);
      expect(result.stderr).toBe('');
      expect(result.stdout.split('\n')[0]).toBe(
        'Usage: perimeter explain [--config FILE] [--json] [--association NAME | --user LOGIN | --pr-author LOGIN --pr-branch BRANCH] PATH...',
      );
    });

    it.each(['init', 'check', 'explain', 'replay', 'audit', 'serve', 'verify-ledger'])(
      'explains every option its usage line names, and its exit codes, for %s --help',
      async (command) => {
        const result = await runCli([command, '--help'], dir);
        expect(result.code).toBe(0);
        const [usage, ...rest] = result.stdout.split('\n');
        const flags = [...new Set(usage!.match(/--[a-z-]+/g))];
        expect(flags.length).toBeGreaterThan(0);
        for (const flag of [...flags, '--help']) {
          // a row of its own: the flag, its value, then words that explain it (here or on the next line)
          const row = rest.findIndex((line) =>
            new RegExp(`^  ${flag}( [A-Z|/.,@a-z]+)?( {2,}\\S|$)`).test(line),
          );
          expect(row, `${command} ${flag}`).toBeGreaterThanOrEqual(0);
          expect(
            `${rest[row]} ${rest[row + 1] ?? ''}`.replace(/^ +--\S+( \S+)? */, '').trim().length,
          ).toBeGreaterThan(10);
        }
        expect(result.stdout).toMatch(/\nExit codes: 0 /);
      },
    );

    it('points at COMMAND --help when the usage is wrong', async () => {
      const result = await runCli(['replay', '--bogus'], dir);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('perimeter replay --help explains each option');
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
