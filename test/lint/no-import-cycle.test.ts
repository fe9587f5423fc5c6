import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Linter, type Rule } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

// a path in a variable: the rule is plain JavaScript that eslint.config.js loads as it is
const RULE_FILE = '../../eslint/no-import-cycle.js';
const rule = ((await import(RULE_FILE)) as { default: Rule.RuleModule }).default;

/** Lints each file of a fresh folder with the rule alone; the messages by file name. */
function lint(files: Record<string, string>): Record<string, string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'perimeter-cycle-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const linter = new Linter({ cwd: dir });
  const config = [
    {
      files: ['**/*.ts'],
      languageOptions: { parser: tseslint.parser as Linter.Parser },
      plugins: { perimeter: { rules: { 'no-import-cycle': rule } } },
      rules: { 'perimeter/no-import-cycle': 'error' as const },
    },
  ];
  return Object.fromEntries(
    Object.entries(files).map(([name, text]) => [
      name,
      linter.verify(text, config, join(dir, name)).map((m) => m.message),
    ]),
  );
}

describe('perimeter/no-import-cycle', () => {
  describe('when two modules import each other, one of them for a type only', () => {
    it('reports the cycle in both, naming the chain', () => {
      const messages = lint({
        'a.ts': "import type { B } from './b.js';\nexport const a = (b: B) => b;\n",
        'b.ts': "import { a } from './a.js';\nexport type B = ReturnType<typeof a>;\n",
        'c.ts': "import { a } from './a.js';\nexport const c = a;\n",
      });
      expect(messages['a.ts']).toEqual(['import cycle: a.ts -> b.ts -> a.ts']);
      expect(messages['b.ts']).toEqual(['import cycle: b.ts -> a.ts -> b.ts']);
      expect(messages['c.ts']).toEqual([]);
    });
  });

  describe('when the cycle runs through a re-export and three modules', () => {
    it('reports it', () => {
      const messages = lint({
        'x.ts': "export * from './y.js';\n",
        'y.ts': "export { z } from './z.js';\n",
        'z.ts': "import type {} from './x.js';\nexport const z = 1;\n",
      });
      expect(messages['x.ts']).toEqual(['import cycle: x.ts -> y.ts -> z.ts -> x.ts']);
    });
  });

  describe('when imports only point one way', () => {
    it('reports nothing', () => {
      const messages = lint({
        'p.ts': "import { q } from './q.js';\nexport const p = q;\n",
        'q.ts': "import { readFileSync } from 'node:fs';\nexport const q = readFileSync;\n",
      });
      expect(Object.values(messages).flat()).toEqual([]);
    });
  });
});
