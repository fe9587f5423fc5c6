import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '@perimeter/test-rigs';
import { makeCheckout, runCli } from './run-cli.js';

const dirs: string[] = [];
const checkout = (files: Record<string, string>, options?: { git?: boolean }) => {
  const dir = makeCheckout(files, options);
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const LAYOUT = {
  'README.md': '# x',
  'docs/guide.md': 'g',
  'src/parser.ts': 'p',
  'src/parser.test.ts': 't',
  'test/e2e.test.ts': 'e',
  'package.json': '{}',
  'CLAUDE.md': 'instructions',
  '.github/workflows/ci.yml': 'on: push',
  'tools/release.sh': 'echo',
  'assets/logo.png': 'png',
};

describe('perimeter init', () => {
  describe('in a checkout with docs, tests and source', () => {
    it('writes a commented perimeters.yml that check accepts, one perimeter per role', async () => {
      const dir = checkout(LAYOUT);
      const result = await runCli(['init'], dir);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(
        'Wrote perimeters.yml: 3 perimeters: docs (writes 2), test-author (writes 2), implementer (writes 2).',
      );
      const text = readFileSync(join(dir, 'perimeters.yml'), 'utf8');
      expect(text).toMatch(/^# Proposed by `perimeter init`/);
      expect(text).toContain('protect: ["manifests"]');
      expect(text).toContain(
        '# Protected files tracked here (3): .github/workflows/ci.yml, CLAUDE.md, package.json.',
      );

      const check = await runCli(['check'], dir);
      expect(check.code).toBe(0);
      expect(check.stdout).toContain('perimeters.yml: valid (version 1, 3 perimeters)');
    });

    it('keeps the implementer off the tests beside its source and the test writer off the source', async () => {
      const dir = checkout(LAYOUT);
      expect((await runCli(['init'], dir)).code).toBe(0);
      const explain = await runCli(
        ['explain', '--json', 'src/parser.ts', 'src/parser.test.ts', 'CLAUDE.md'],
        dir,
      );
      const paths = JSON.parse(explain.stdout).paths as Array<{
        path: string;
        perimeters: Record<string, { write: boolean }>;
      }>;
      const writers = Object.fromEntries(
        paths.map((p) => [
          p.path,
          Object.entries(p.perimeters)
            .filter(([, v]) => v.write)
            .map(([n]) => n),
        ]),
      );
      expect(writers).toEqual({
        'src/parser.ts': ['implementer'],
        'src/parser.test.ts': ['test-author'],
        'CLAUDE.md': [],
      });
    });
  });

  describe('when perimeters.yml already exists', () => {
    it('refuses and leaves the file as it was', async () => {
      const dir = checkout({ ...LAYOUT, 'perimeters.yml': 'mine\n' });
      const result = await runCli(['init'], dir);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        'perimeter init: perimeters.yml already exists; init never overwrites it (--stdout prints the proposal)\n',
      );
      expect(readFileSync(join(dir, 'perimeters.yml'), 'utf8')).toBe('mine\n');
    });
  });

  describe('with --stdout and --json', () => {
    it('prints the proposal and writes nothing', async () => {
      const dir = checkout(LAYOUT);
      const printed = await runCli(['init', '--stdout'], dir);
      expect(printed.code).toBe(0);
      expect(printed.stdout).toContain('perimeters:\n  docs:\n');
      const json = await runCli(['init', '--stdout', '--json'], dir);
      const answer = JSON.parse(json.stdout);
      expect(answer).toMatchObject({
        file: 'perimeters.yml',
        written: false,
        protect: ['manifests'],
        unassigned: ['assets/logo.png'],
      });
      expect(answer.perimeters.map((p: { name: string }) => p.name)).toEqual([
        'docs',
        'test-author',
        'implementer',
      ]);
      expect((await runCli(['check'], dir)).code).toBe(1);
    });
  });

  describe('with --config in a folder of the checkout', () => {
    it('writes there, and that file is what the protected set protects', async () => {
      const dir = checkout(LAYOUT);
      const result = await runCli(['init', '--config', 'config/perimeters.yml'], dir);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^Wrote config\/perimeters\.yml: /);
      expect((await runCli(['check', '--config', 'config/perimeters.yml'], dir)).code).toBe(0);
      const outside = await runCli(['init', '--config', '../elsewhere.yml'], dir);
      expect(outside.code).toBe(2);
      expect(outside.stderr).toContain('--config: expected a file inside the checkout');
    });
  });

  describe('outside a git checkout, or with nothing to propose', () => {
    it('explains why and exits 1', async () => {
      const plain = checkout({ 'src/a.ts': 'a' }, { git: false });
      expect(await runCli(['init'], plain)).toMatchObject({
        code: 1,
        stderr: 'perimeter init: not in a git checkout: init proposes perimeters from the tracked files\n',
      });
      const bare = checkout({ 'logo.png': 'x' });
      const nothing = await runCli(['init'], bare);
      expect(nothing.code).toBe(1);
      expect(nothing.stderr).toContain('found no docs, tests or source folders');
      // the page it points to exists and is the reference
      const page = /reference: (docs\/[a-z-]+\.md)/.exec(nothing.stderr)?.[1] ?? 'no page named';
      expect(readFileSync(join(REPO_ROOT, page), 'utf8')).toMatch(/^# perimeters\.yml reference\n/);
    });
  });
});
