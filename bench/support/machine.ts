import { execFileSync } from 'node:child_process';
import { cpus, totalmem } from 'node:os';

export interface Machine {
  nproc: number;
  cpu: string;
  memory_gb: number;
  node: string;
  platform: string;
  date: string;
  commit: string;
  /** uncommitted changes in the checkout when the figures were taken */
  dirty: boolean;
}

function git(args: string[]): string {
  try {
    return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

export function describeMachine(): Machine {
  const cores = cpus();
  return {
    nproc: cores.length,
    cpu: cores[0]?.model.trim() ?? 'unknown',
    memory_gb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    date: new Date().toISOString(),
    commit: git(['rev-parse', '--short=12', 'HEAD']) || 'unknown',
    dirty: git(['status', '--porcelain', '--untracked-files=no']) !== '',
  };
}
