/**
 * Every flag a command's parser accepts (its flags table, the one object handed to parseArgs) has a row of
 * its own in that command's `--help`, with words that explain it: a flag cannot be added to a parser without
 * its help, or be documented by its usage line alone.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '@perimeter/test-rigs';
import { COMMANDS } from '../../src/cli/commands.js';

/** `perimeter NAME --help` from the sources (test/cli/main.test.ts runs the bundle). */
async function help(name: string): Promise<string> {
  const tsx = join(REPO_ROOT, 'node_modules', '.bin', 'tsx');
  const { stdout } = await promisify(execFile)(tsx, [join(REPO_ROOT, 'src/cli/main.ts'), name, '--help']);
  return stdout;
}

/** The help row of `flag` and the line after it, with the flag and its value placeholder cut off. */
function explanation(help: string[], flag: string, value: string | undefined): string | null {
  const label = value === undefined ? flag : `${flag} ${value}`;
  const row = help.findIndex((line) => line === `  ${label}` || line.startsWith(`  ${label}  `));
  if (row < 0) return null;
  const own = help[row]!.slice(2 + label.length).trim();
  if (own !== '') return own;
  // a long label stands alone, its words on the next line, indented past every label
  const next = help[row + 1] ?? '';
  return /^ {4,}\S/.test(next) ? next.trim() : '';
}

describe.each(Object.entries(COMMANDS))('perimeter %s --help', (name, command) => {
  it('prints the help made from the flags its parser accepts, and exits 0', async () => {
    expect(await help(name)).toBe(command.help);
  });

  it.each(Object.entries(command.flags))('explains --%s on a row of its own', (flag, spec) => {
    const lines = command.help.split('\n');
    const text = explanation(
      lines,
      `--${flag}`,
      spec.type === 'string' ? (spec.value ?? 'VALUE') : undefined,
    );
    expect(text, `--${flag} has no row in ${name} --help`).not.toBeNull();
    expect(text!.split(/\s+/).length, `--${flag}: "${text}"`).toBeGreaterThanOrEqual(3);
    expect(spec.help.trim().length).toBeGreaterThan(10);
    if (spec.short !== undefined) expect(command.help).toContain(`-${spec.short}`);
  });

  it('says what its exit codes mean', () => {
    expect(command.help).toMatch(/\nExit codes: 0 /);
  });
});
