/**
 * README's "Add it to your repository", as a new user runs it: the commands of its first step, word for word,
 * in a fresh git repository beside a clone of a fork (test/cli/fork-clone.ts: this checkout's CLI and action
 * files, an `origin` on github.com). The workflow `init --workflow` writes is README's own, pinned to the
 * fork's commit, with no `OWNER`, naming a perimeter of the proposal; and every workflow pasted from README or
 * docs/agents.md finds its perimeter in the proposal too.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { REPO_ROOT } from '@perimeter/test-rigs';
import { parseConfig } from '../../src/policy/index.js';
import { readmeWorkflow } from '../agents/readme-jobs.js';
import { makeForkClone } from '../cli/fork-clone.js';

const root = mkdtempSync(join(tmpdir(), 'perimeter-adopt-'));
const made = [root];
afterAll(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** The indented sh block after the marker, a command a line. */
function commands(): string[] {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const marker = '<!-- add-to-repository -->';
  const block = /```sh\n([\s\S]*?)\n\s*```/.exec(readme.slice(readme.indexOf(marker)))?.[1];
  if (!block || !readme.includes(marker)) throw new Error(`README.md has no sh block after ${marker}`);
  return block.split('\n').map((line) => line.trim());
}

it("runs the first step's commands as written, and the proposal has the workflows' perimeter", async () => {
  const app = join(root, 'app');
  const files: Record<string, string> = {
    'src/cli.ts': 'export const main = () => 0;\n',
    'src/cli.test.ts': "import { main } from './cli';\n",
    'docs/usage.md': '# Usage\n',
    'README.md': '# app\n',
    'package.json': '{ "name": "app" }\n',
  };
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(app, path)), { recursive: true });
    writeFileSync(join(app, path), content);
  }
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=a', '-c', 'user.email=a@example.com', ...args], { cwd: app });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'init');

  const [clone, ...rest] = commands();
  expect(clone).toMatch(
    /^git clone --depth 1 https:\/\/github\.com\/YOUR-ACCOUNT\/perimeter \.\.\/perimeter$/,
  );
  const fork = await makeForkClone();
  made.push(fork.dir);
  symlinkSync(fork.dir, join(root, 'perimeter'));
  for (const command of rest) {
    expect(command).toMatch(/^node \.\.\/perimeter\/bin\/perimeter\.js [a-z]+( --workflow claude-code)?$/);
    execFileSync('sh', ['-c', command], { cwd: app, stdio: 'pipe' });
  }

  const config = parseConfig(readFileSync(join(app, 'perimeters.yml'), 'utf8'), 'perimeters.yml');
  const names = config.perimeters.map((p) => p.name);
  // every perimeter the one-job agent workflows (README's, docs/agents.md's) name is in the proposal
  for (const snippet of ['claude-code', 'agent-sdk', 'codex', 'copilot']) {
    const used = /perimeters: (\w[\w-]*)/.exec(readmeWorkflow(snippet))?.[1];
    expect(names, snippet).toContain(used);
  }

  // the workflow init wrote: README's claude-code block, pinned to the fork's commit
  const written = readFileSync(join(app, '.github/workflows/implement.yml'), 'utf8');
  expect(written).not.toContain('OWNER');
  expect(written).toContain(`uses: octo-fork/perimeter@${fork.head}\n`);
  const perimeter = /perimeters: (\w[\w-]*)/.exec(written)?.[1];
  expect(names).toContain(perimeter);
  expect(written).toContain(
    readmeWorkflow('claude-code')
      .replaceAll('OWNER/perimeter@v1', `octo-fork/perimeter@${fork.head}`)
      .replaceAll('implementer', perimeter!),
  );
});
