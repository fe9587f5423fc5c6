/**
 * `perimeter replay` over a history longer than a screen: what the proposal changes comes first (how many
 * commits it newly refuses, and which paths), folded to the terminal's width; the table of every commit and
 * the detail of each change follow. Runs the command from the sources on a git history made here.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '@perimeter/test-rigs';
import { makeCheckout } from './run-cli.js';

const CONFIG = `version: 1
perimeters:
  source:
    read: ["**"]
    write: ["src/**"]
`;
const LONG_NAME = `src/${'deeply-nested-directory/'.repeat(8)}file.ts`;

let dir: string;
const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
    cwd: dir,
    encoding: 'utf8',
  }).trim();
function commit(message: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
    git('add', '--', path);
  }
  git('commit', '-q', '-m', message);
}

/** `perimeter replay ARGS` in the checkout, from the sources; exit code and stdout. */
async function replay(...args: string[]): Promise<{ code: number; stdout: string }> {
  const tsx = join(REPO_ROOT, 'node_modules', '.bin', 'tsx');
  try {
    const { stdout } = await promisify(execFile)(
      tsx,
      [join(REPO_ROOT, 'src/cli/main.ts'), 'replay', ...args],
      {
        cwd: dir,
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    return { code: 0, stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string };
    return { code: failed.code, stdout: failed.stdout };
  }
}

beforeAll(() => {
  dir = makeCheckout({ 'perimeters.yml': CONFIG, 'README.md': '#' });
  // 40 commits: every other one touches src/core/, the rest src/ui/; one has a path longer than a line
  for (let i = 0; i < 40; i++)
    commit(`change ${i}: ${'a subject longer than the table shows '.repeat(3)}`, {
      [i % 2 === 0 ? `src/core/c${i}.ts` : `src/ui/u${i}.ts`]: `${i}\n`,
    });
  commit('a long name', { [LONG_NAME]: 'x\n' });
  writeFileSync(join(dir, 'perimeters.yml'), CONFIG.replace('write: ["src/**"]', 'write: ["src/ui/**"]'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('perimeter replay', () => {
  describe('when a proposal newly refuses part of a long history', () => {
    it('leads with how many commits it newly refuses and their paths, folded; the detail follows', async () => {
      const { code, stdout } = await replay('main~41..main');
      expect(code).toBe(3);
      const lines = stdout.split('\n');
      expect(lines[0]).toMatch(
        /^Replaying perimeters\.yml against main~41\.\.main: 41 commits; base HEAD:perimeters\.yml$/,
      );
      expect(lines[2]).toBe(
        'Against HEAD:perimeters.yml: 21 commits newly refused, 0 newly allowed (21 changes in all)',
      );
      expect(lines[3]).toBe('  source: 21 newly refused, 0 newly allowed');
      expect(lines[4]).toMatch(/^ {4}paths now refused \(21\): src\/core\/c0\.ts, src\/core\/c10\.ts,/);
      // the summary ends before the table of every commit, and the change of each commit comes last
      const table = lines.findIndex((line) => line.startsWith('commit '));
      expect(table).toBeGreaterThan(4);
      expect(table).toBeLessThan(10);
      expect(lines.slice(4, table).join('\n')).toContain('and 13 more');
      expect(
        lines.findIndex((line) => line.startsWith('Changes from HEAD:perimeters.yml (21):')),
      ).toBeGreaterThan(table + 41);
      // no line grows with a path: the long one is cut, lists fold at 100 columns
      expect(stdout).toContain(`${LONG_NAME.slice(0, 99)}…`);
      for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(120);
    });
  });
});
