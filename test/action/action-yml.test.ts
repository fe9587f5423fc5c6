/** action.yml and docs/action.md document every input and output the code reads or sets, and nothing else. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { Inputs, Outputs } from '../../src/action/constants.js';
import { REPO_ROOT } from '@perimeter/test-rigs';

const action = parseYaml(readFileSync(join(REPO_ROOT, 'action.yml'), 'utf8')) as {
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
};
const page = readFileSync(join(REPO_ROOT, 'docs', 'action.md'), 'utf8');

/** The first column of the markdown table under a `## <heading>`. */
function tableNames(heading: string): string[] {
  // up to the next heading of any level
  const section = page.split(`\n## ${heading}\n`)[1]?.split(/\n#{1,6} /)[0] ?? '';
  return [...section.matchAll(/^\| `([a-z-]+)` \|/gm)].map((m) => m[1] as string);
}

describe('action.yml', () => {
  it('declares exactly the inputs and outputs in constants.ts', () => {
    expect(Object.keys(action.inputs).sort()).toEqual(Object.values(Inputs).sort());
    expect(Object.keys(action.outputs).sort()).toEqual(Object.values(Outputs).sort());
  });
});

describe("docs/action.md's tables", () => {
  it('list the same inputs and outputs', () => {
    expect(tableNames('Inputs').sort()).toEqual(Object.values(Inputs).sort());
    expect(tableNames('Outputs').sort()).toEqual(Object.values(Outputs).sort());
  });
});
