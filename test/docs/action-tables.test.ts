/**
 * Each action's inputs and outputs, as its action.yml declares them, against the table of its page: a name
 * added to an action.yml without a row (or a row left behind by a rename) fails here, so the tables a new
 * user reads cannot drift from what the runner accepts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { REPO_ROOT } from '@perimeter/test-rigs';

const read = (file: string): string => readFileSync(join(REPO_ROOT, file), 'utf8');

const ACTIONS = [
  { action: 'action.yml', page: 'docs/action.md' },
  { action: 'verify/action.yml', page: 'docs/verify-job.md' },
  { action: 'apply/action.yml', page: 'docs/staged-writes.md' },
];

/** The names in the first column of the page's tables headed `| input |` or `| output |`. */
function tableNames(page: string, kind: 'input' | 'output'): Set<string> {
  const names = new Set<string>();
  let inTable = false;
  for (const line of read(page).split('\n')) {
    if (!line.startsWith('|')) {
      inTable = false;
      continue;
    }
    const first = line.split('|')[1]!.trim();
    if (first === kind) inTable = true;
    else if (inTable) for (const [, name] of first.matchAll(/`([^`]+)`/g)) names.add(name!);
  }
  return names;
}

describe.each(ACTIONS)('$action', ({ action, page }) => {
  const declared = parse(read(action)) as {
    inputs?: Record<string, unknown>;
    outputs?: Record<string, unknown>;
  };

  it(`has a row in ${page} for every input`, () => {
    const inputs = Object.keys(declared.inputs ?? {});
    expect(inputs.length).toBeGreaterThan(0);
    expect(inputs.filter((name) => !tableNames(page, 'input').has(name))).toEqual([]);
  });

  it(`has a row in ${page} for every output`, () => {
    const outputs = Object.keys(declared.outputs ?? {});
    expect(outputs.filter((name) => !tableNames(page, 'output').has(name))).toEqual([]);
  });

  it(`documents in ${page} no input or output it does not declare`, () => {
    const known = new Set([...Object.keys(declared.inputs ?? {}), ...Object.keys(declared.outputs ?? {})]);
    // per-perimeter outputs (secret-<perimeter>) are set at run time, not declared
    const documented = [...tableNames(page, 'input'), ...tableNames(page, 'output')];
    expect(documented.filter((name) => !known.has(name) && !name.includes('<'))).toEqual([]);
  });
});
