// Builds one ncc bundle per entry into dist/<name>/ (committed; CI checks `git diff --exit-code dist`), and
// dist/sources.json with the digest of the sources, so tests can tell a stale dist/ from a fresh one.
// Only entries whose source exists are built, so the action can be bundled while other parts are in progress.
// Usage: node scripts/bundle.mjs [--out DIR] [entry...]
import ncc from '@vercel/ncc';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sourceDigest } from './source-digest.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const entries = {
  main: 'src/action/agent-job/main-entry.ts',
  post: 'src/action/agent-job/post-entry.ts',
  verify: 'src/action/verify-job/verify-entry.ts',
  gateway: 'src/gateway/entry.ts',
  cli: 'src/cli/main.ts',
  apply: 'src/action/apply-job/apply-entry.ts',
};

const args = process.argv.slice(2);
const outAt = args.indexOf('--out');
const outRoot = outAt >= 0 ? resolve(args[outAt + 1]) : join(root, 'dist');
const only = outAt >= 0 ? args.filter((_, i) => i !== outAt && i !== outAt + 1) : args;
const digest = sourceDigest(root);
for (const name of only) {
  if (!(name in entries))
    throw new Error(
      `unknown entry ${JSON.stringify(name)}; expected one of ${Object.keys(entries).join(', ')}`,
    );
}

for (const [name, source] of Object.entries(entries)) {
  if (only.length > 0 && !only.includes(name)) continue;
  const input = join(root, source);
  if (!existsSync(input)) {
    console.log(`skip ${name}: ${source} does not exist yet`);
    continue;
  }
  let built;
  try {
    built = await ncc(input, {
      cache: false,
      minify: false,
      sourceMap: false,
      license: 'licenses.txt',
      quiet: true,
    });
  } catch (error) {
    // ncc's own stack quotes its minified source: show the message only
    console.error(
      `bundle ${name} (${source}) failed:\n${String(error?.message ?? error)
        .split('\n')
        .slice(0, 30)
        .join('\n')}`,
    );
    process.exit(1);
  }
  const { code, assets } = built;
  // A bundle must not depend on where it was built.
  for (const [file, text] of [
    ['index.js', code],
    ...Object.entries(assets).map(([f, a]) => [f, String(a.source)]),
  ]) {
    if (text.includes(root)) throw new Error(`dist/${name}/${file} contains the build path ${root}`);
  }
  const out = join(outRoot, name);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'index.js'), code);
  for (const [file, asset] of Object.entries(assets)) {
    mkdirSync(dirname(join(out, file)), { recursive: true });
    writeFileSync(join(out, file), asset.source);
  }
  console.log(`${relative(root, join(out, 'index.js'))}: ${(code.length / 1024).toFixed(0)} KiB`);
}
mkdirSync(outRoot, { recursive: true });
if (only.length === 0)
  writeFileSync(join(outRoot, 'sources.json'), `${JSON.stringify({ digest }, null, 2)}\n`);
