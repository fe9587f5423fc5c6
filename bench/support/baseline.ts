/**
 * Another commit's content filter, loaded beside this one so a bench compares both in the same run on the
 * same machine: `src/` of that commit is extracted with `git archive` into a temporary folder whose
 * `node_modules` links to this checkout's (tsx compiles it as it loads).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { SecretFilterOptions } from '../../src/safety/index.js';
import type { AnswerFilter } from '../../src/safety/answer-filter.js';

export interface Baseline {
  commit: string;
  createSecretFilter(options?: SecretFilterOptions): AnswerFilter;
}

export async function loadBaseline(ref: string): Promise<Baseline> {
  const root = resolve('.');
  const commit = execFileSync('git', ['rev-parse', '--verify', `${ref}^{commit}`], {
    encoding: 'utf8',
  }).trim();
  const dir = join(tmpdir(), `perimeter-baseline-${commit}`);
  if (!existsSync(join(dir, 'src'))) {
    mkdirSync(dir, { recursive: true });
    const archive = execFileSync('git', ['archive', commit, 'src'], { maxBuffer: 1 << 28 });
    execFileSync('tar', ['-x', '-C', dir], { input: archive });
  }
  if (!existsSync(join(dir, 'node_modules')))
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  const safety = (await import(join(dir, 'src/safety/index.ts'))) as Pick<Baseline, 'createSecretFilter'>;
  return { commit: commit.slice(0, 7), createSecretFilter: safety.createSecretFilter };
}
