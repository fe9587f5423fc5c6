/**
 * The real agent clients, pinned, installed from the npm registry into a cache folder of their own
 * (`.cache/agents/`, never the action's dependencies or dist/), once per pinned set: a later run finds them.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '@perimeter/test-rigs';

const run = promisify(execFile);

/** Bump deliberately: README's install lines must name the same versions (a test checks). */
export const PINNED = {
  '@anthropic-ai/claude-code': '2.1.332',
  '@anthropic-ai/claude-agent-sdk': '0.3.337',
  '@openai/codex': '0.171.0',
  '@github/copilot': '1.0.102',
} as const;

export type ClientPackage = keyof typeof PINNED;

export const CACHE_DIR = join(REPO_ROOT, '.cache', 'agents');

/** The folder holding node_modules for the pinned set (its name changes with any version). */
export function installDir(): string {
  const key = Object.entries(PINNED)
    .map(([name, version]) => `${name.replace(/[@/]/g, '_')}-${version}`)
    .join('+');
  return join(CACHE_DIR, key);
}

export function binDir(): string {
  return join(installDir(), 'node_modules', '.bin');
}

function installed(dir: string): boolean {
  return Object.entries(PINNED).every(([name, version]) => {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'node_modules', name, 'package.json'), 'utf8')) as {
        version?: string;
      };
      return manifest.version === version;
    } catch {
      return false;
    }
  });
}

/**
 * Installs the pinned clients unless they are there; retries once (a registry hiccup). Returns how it went
 * and how long it took, for the report.
 */
export async function ensureClients(log: (line: string) => void = () => undefined): Promise<{
  dir: string;
  cached: boolean;
  ms: number;
}> {
  const dir = installDir();
  const started = Date.now();
  if (installed(dir)) return { dir, cached: true, ms: Date.now() - started };
  let lastError: unknown;
  for (let attempt = 1; attempt <= 2; attempt++) {
    const staging = `${dir}.partial`;
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging, { recursive: true });
    writeFileSync(
      join(staging, 'package.json'),
      `${JSON.stringify({ name: 'perimeter-agent-clients', private: true, dependencies: PINNED }, null, 2)}\n`,
    );
    try {
      log(
        `installing ${Object.entries(PINNED)
          .map(([n, v]) => `${n}@${v}`)
          .join(' ')} (attempt ${attempt})`,
      );
      await run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], {
        cwd: staging,
        maxBuffer: 64 * 1024 * 1024,
      });
      if (!installed(staging)) throw new Error('npm install finished but a pinned package is missing');
      rmSync(dir, { recursive: true, force: true });
      renameSync(staging, dir);
      return { dir, cached: false, ms: Date.now() - started };
    } catch (error) {
      lastError = error;
      log(`install attempt ${attempt} failed: ${(error as Error).message.split('\n')[0]}`);
    }
  }
  throw new Error(`could not install the agent clients: ${(lastError as Error).message}`);
}

export function clientsInstalled(): boolean {
  return existsSync(installDir()) && installed(installDir());
}
