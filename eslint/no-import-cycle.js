/**
 * Fails on an import cycle among the project's own modules, type-only imports included: a cycle through
 * `import type` is still a concept without one home (import-x/no-cycle skips those, so it cannot see them).
 * Relative imports only; `./x.js` resolves to `./x.ts` as NodeNext does.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import ts from 'typescript';

/** file -> { mtime, imports } for every file read so far (an editor's long-lived ESLint sees edits) */
const graph = new Map();

function resolveImport(from, specifier) {
  const base = resolve(dirname(from), specifier);
  const candidates = [base.replace(/\.js$/, '.ts'), base.replace(/\.mjs$/, '.mts'), base, `${base}.ts`];
  return candidates.find((path) => existsSync(path) && statSync(path).isFile()) ?? null;
}

function importsOf(file) {
  const mtime = statSync(file).mtimeMs;
  const known = graph.get(file);
  if (known?.mtime === mtime) return known.imports;
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  const imports = importedFiles
    .map((f) => f.fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => resolveImport(file, name))
    .filter((path) => path !== null);
  graph.set(file, { mtime, imports });
  return imports;
}

/** The shortest chain of imports from `file` back to itself, or null. */
function cycleThrough(file) {
  const parent = new Map([[file, null]]);
  const queue = [file];
  while (queue.length > 0) {
    const at = queue.shift();
    for (const next of importsOf(at)) {
      if (next === file) {
        const chain = [file];
        for (let step = at; step !== file; step = parent.get(step)) chain.splice(1, 0, step);
        return [...chain, file];
      }
      if (!parent.has(next)) {
        parent.set(next, at);
        queue.push(next);
      }
    }
  }
  return null;
}

export default {
  meta: {
    type: 'problem',
    docs: { description: 'forbid import cycles, type-only imports included' },
    schema: [],
    messages: { cycle: 'import cycle: {{chain}}' },
  },
  create(context) {
    return {
      Program(node) {
        const chain = cycleThrough(resolve(context.filename));
        if (chain === null) return;
        const cwd = context.cwd;
        context.report({
          node,
          messageId: 'cycle',
          data: { chain: chain.map((f) => relative(cwd, f)).join(' -> ') },
        });
      },
    };
  },
};
