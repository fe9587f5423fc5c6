/**
 * The policy examples of docs/configuration.md (deny, protected families, trust) are real: run and compared
 * word for word.
 */
import { readFileSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_IN_FAMILIES, OPTIONAL_FAMILIES } from '../../src/policy/index.js';
import { makeCheckout, runCli } from './run-cli.js';

const page = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
const config = /```yaml\n# policy example\n([\s\S]*?)```/.exec(page)?.[1] ?? '';
const examples = [...page.matchAll(/```console\n\$ perimeter (explain [^\n]*)\n([\s\S]*?)```/g)].map((m) => ({
  command: m[1]!,
  output: m[2]!,
}));

let dir = '';
beforeAll(() => {
  dir = makeCheckout({ 'perimeters.yml': config });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the policy examples of docs/configuration.md', () => {
  it('are there', () => {
    expect(config).toContain('deny:');
    expect(examples.length).toBeGreaterThanOrEqual(3);
  });

  it.each(examples)('$command prints what the page shows', async ({ command, output }) => {
    const result = await runCli(command.split(' '), dir);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(output);
  });

  it('list every protected family with its entries and reason', () => {
    for (const [name, family] of Object.entries({ ...BUILT_IN_FAMILIES, ...OPTIONAL_FAMILIES })) {
      const row = page.split('\n').find((line) => line.startsWith(`| ${name} |`));
      expect(row, name).toBeDefined();
      for (const entry of family.entries) expect(row).toContain(`\`${entry}\``);
      expect(row).toContain(family.why);
    }
  });
});
