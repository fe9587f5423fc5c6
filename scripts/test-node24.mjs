// `npm run test:node24`: the suites that run the action as a runner does, on the Node the action declares
// (action.yml: `using: node24`), while the rest of the suite runs on the Node of package.json's engines.
// Vitest itself and every step the runner emulation starts (PERIMETER_RUNNER_NODE) run on that Node.
// It is pinned and installed from the npm registry (the `node` package) into .cache/node24/, never as a
// devDependency: node_modules/.bin/node would come first on every npm script's PATH and move the whole
// suite to it without a word. Extra arguments go to vitest (e.g. a single file).
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/** Bump deliberately, like the other pins: the runner's Node 24 moves on its own. */
const NODE24 = '24.21.0';
const SUITES = ['test/action', 'test/hardening/post-faults.test.ts'];

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dir = join(root, '.cache', 'node24', NODE24);
const node = join(dir, 'node_modules', 'node', 'bin', 'node');

function version(binary) {
  try {
    return execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
}

async function install() {
  const staging = `${dir}.partial`;
  let lastError;
  for (let attempt = 1; attempt <= 2; attempt++) {
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging, { recursive: true });
    writeFileSync(
      join(staging, 'package.json'),
      `${JSON.stringify({ name: 'perimeter-node24', private: true, dependencies: { node: NODE24 } }, null, 2)}\n`,
    );
    process.stderr.write(`test:node24: installing node@${NODE24} into .cache/node24 (attempt ${attempt})\n`);
    try {
      await promisify(execFile)('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], {
        cwd: staging,
        maxBuffer: 64 * 1024 * 1024,
      });
      if (version(join(staging, 'node_modules', 'node', 'bin', 'node')) !== `v${NODE24}`)
        throw new Error(`npm install finished but node_modules/node/bin/node is not v${NODE24}`);
      rmSync(dir, { recursive: true, force: true });
      renameSync(staging, dir);
      return;
    } catch (error) {
      lastError = error;
    }
  }
  process.stderr.write(
    `test:node24: could not install node@${NODE24}: ${lastError.message.split('\n')[0]}\n`,
  );
  process.exit(2);
}

if (version(node) !== `v${NODE24}`) await install();
const files = process.argv.length > 2 ? process.argv.slice(2) : SUITES;
process.stderr.write(`test:node24: ${files.join(', ')} on ${version(node)}\n`);
const result = spawnSync(node, [join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...files], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, PERIMETER_RUNNER_NODE: node },
});
process.exit(result.status ?? 1);
