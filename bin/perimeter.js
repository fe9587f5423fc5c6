#!/usr/bin/env node
// Runs the bundled CLI (dist/cli/index.js, built by `npm run bundle`).
// From a checkout, `npm run perimeter -- <command>` runs the TypeScript source instead.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/cli/index.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write(
    'perimeter: dist/cli/index.js is missing; run `npm run bundle` (or `npm run perimeter -- <command>` from a checkout)\n',
  );
  process.exit(2);
}
await import(entry.href);
