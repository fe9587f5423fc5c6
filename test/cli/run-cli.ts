import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { actionDir } from '@perimeter/test-rigs';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI as its own process, the way a user does: the built bundle (fresh, see actionDir). */
export async function runCli(
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<CliResult> {
  const cli = join(await actionDir(), 'dist', 'cli', 'index.js');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A temporary directory with `files`, committed to a fresh git repository unless `git` is false. */
export function makeCheckout(files: Record<string, string>, options: { git?: boolean } = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'perimeter-cli-'));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  if (options.git !== false) {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'seed');
  }
  return dir;
}

export const CONFIG = `version: 1
perimeters:
  docs:
    read: ["docs/**", "README.md"]
    write: ["docs/**", "README.md"]
  source:
    read: ["src/**", "docs/**", "config/**"]
    write: ["src/**", "docs/shared/**", ".github/**"]
    allow-credential-files: ["config/*.pem"]
`;
