/**
 * docs/development.md says what CI runs: each command of `.ci/run`, word for word, so the page cannot
 * describe a CI that is not the one that runs (a command added, dropped or changed fails here).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '@perimeter/test-rigs';

const read = (file: string): string => readFileSync(join(REPO_ROOT, file), 'utf8');

/** The command lines of a bash script: not comments, not the shell's own setup (`set`, `cd`). */
function commands(script: string): string[] {
  return script
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .filter((line) => !/^(set|cd) /.test(line));
}

/** The page's list items that open with a command in backticks: `- \`npm run lint\`: …`. */
function listed(page: string): string[] {
  return [...page.matchAll(/^- `([^`]+)`/gm)].map((match) => match[1]!);
}

describe('.ci/run', () => {
  const script = commands(read('.ci/run'));
  const page = read('docs/development.md');

  // before it only the system packages the tests need (apt-get) and the engines check, nothing else
  const first = script.indexOf('npm ci && npm test');
  const strict = script.findIndex((line) => /^npm ci --engine-strict\b/.test(line));

  it('runs commands, README’s test command first after the system packages and the engines check', () => {
    expect(script.length).toBeGreaterThan(3);
    expect(read('README.md')).toContain(`${script[first]} `);
    for (const line of script.slice(0, first))
      expect(line).toMatch(
        /apt-get install -y [a-z][a-z0-9]*( [a-z][a-z0-9]*)*\)?; fi$|^npm ci --engine-strict\b/,
      );
  });

  it('has each of its commands named in docs/development.md, in its order', () => {
    expect(listed(page)).toEqual(script);
  });

  it('fails on a dependency whose engines exclude the Node it runs on, instead of warning', () => {
    expect(strict).toBeGreaterThanOrEqual(0);
    expect(strict).toBeLessThan(first);
  });
});
