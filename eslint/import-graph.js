/**
 * The project's own import graph, as the lint rules read it: relative imports only, type-only imports
 * included, `./x.js` resolved to `./x.ts` as NodeNext does. Each file's imports are read once per change.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import ts from 'typescript';

/** file -> { mtime, imports } for every file read so far (an editor's long-lived ESLint sees edits) */
const graph = new Map();

function resolveImport(from, specifier) {
  const base = resolve(dirname(from), specifier);
  const candidates = [base.replace(/\.js$/, '.ts'), base.replace(/\.mjs$/, '.mts'), base, `${base}.ts`];
  return candidates.find((path) => existsSync(path) && statSync(path).isFile()) ?? null;
}

/** The files `file` imports, absolute. */
export function importsOf(file) {
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
