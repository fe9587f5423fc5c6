import { mkdirSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Linter, type Rule } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

// a path in a variable: the rule is plain JavaScript that eslint.config.js loads as it is
const RULE_FILE = '../../eslint/wings.js';
const rule = ((await import(RULE_FILE)) as { default: Rule.RuleModule }).default;
const SRC = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');
const PACKAGES = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'packages');

/** Lints each file of a fresh tree (folder `f` has wings) with the rule alone; the messages by file. */
function lint(files: Record<string, string>): Record<string, string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'perimeter-wings-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  const linter = new Linter({ cwd: dir });
  const config = [
    {
      files: ['**/*.ts'],
      languageOptions: { parser: tseslint.parser as Linter.Parser },
      plugins: { perimeter: { rules: { wings: rule } } },
      rules: { 'perimeter/wings': ['error', { folders: ['f'] }] as Linter.RuleEntry },
    },
  ];
  return Object.fromEntries(
    Object.entries(files).map(([name, text]) => [
      name,
      linter.verify(text, config, join(dir, name)).map((m) => m.message),
    ]),
  );
}

describe('perimeter/wings', () => {
  it('lets a wing import a base of its folder and another wing', () => {
    const messages = lint({
      'f/types.ts': 'export type T = 1;\n',
      'f/top.ts': "export { a } from './a/a.js';\n",
      'f/a/a.ts':
        "import type { T } from '../types.js';\nimport { b } from '../b/b.js';\nexport const a: T = b;\n",
      'f/b/b.ts': 'export const b = 1;\n',
    });
    expect(Object.values(messages).flat()).toEqual([]);
  });

  it('reports a wing importing the module that assembles the wings', () => {
    const messages = lint({
      'f/top.ts': "import { a } from './a/a.js';\nexport const top = a;\n",
      'f/a/a.ts': 'export const a = 1;\n',
      'f/b/b.ts': "import { top } from '../top.js';\nexport const b = top;\n",
    });
    expect(messages['f/b/b.ts']).toEqual([
      'f/b/b.ts imports f/top.ts, which assembles the wings of f: an arrow up',
    ]);
  });

  it('reports wings that import each other, through a third', () => {
    const messages = lint({
      'f/a/a.ts': "import { b } from '../b/b.js';\nexport const a = b;\n",
      'f/b/b.ts': "import { c } from '../c/c.js';\nexport const b = c;\n",
      'f/c/c.ts': "import type { a } from '../a/a.js';\nexport const c = 1;\nexport type C = typeof a;\n",
    });
    expect(messages['f/a/a.ts']).toEqual(['wing cycle in f: a -> b -> c -> a']);
    expect(messages['f/c/c.ts']).toEqual(['wing cycle in f: c -> a -> b -> c']);
  });
});

describe('the folders of src/ and packages/*/src', () => {
  it('hold at most 20 files each directly', () => {
    const crowded: string[] = [];
    const walk = (dir: string): void => {
      const names = readdirSync(dir);
      const files = names.filter((name) => statSync(join(dir, name)).isFile());
      if (files.length > 20) crowded.push(`${dir}: ${files.length}`);
      for (const name of names) if (statSync(join(dir, name)).isDirectory()) walk(join(dir, name));
    };
    walk(SRC);
    for (const pkg of readdirSync(PACKAGES)) walk(join(PACKAGES, pkg, 'src'));
    expect(crowded).toEqual([]);
  });
});
