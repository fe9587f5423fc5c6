import { mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Ledger } from '../../src/ledger/index.js';
import { CONFIG, makeCheckout, runCli } from './run-cli.js';

const dirs: string[] = [];
const checkout = (files: Record<string, string>) => {
  const dir = makeCheckout(files);
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe('the owner commands', () => {
  it.each(['init', 'check', 'explain', 'replay', 'verify-ledger', 'audit'])(
    '%s has --help and --json',
    async (command) => {
      const result = await runCli([command, '--help'], checkout({ 'perimeters.yml': CONFIG }));
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(new RegExp(`^Usage: perimeter ${command} .*--json`));
    },
  );

  it('lists init and replay in the general help', async () => {
    const result = await runCli(['--help'], checkout({ 'perimeters.yml': CONFIG }));
    expect(result.stdout).toContain('perimeter init');
    expect(result.stdout).toContain('perimeter replay');
    expect(result.stdout).toContain('perimeter audit');
  });
});

describe('perimeter check --json', () => {
  describe('when the config is valid', () => {
    it('gives the coverage as data', async () => {
      const dir = checkout({
        'perimeters.yml': CONFIG,
        'docs/a.md': 'a',
        'src/x.ts': 'x',
        'docs/shared/b.md': 'b',
      });
      const result = await runCli(['check', '--json'], dir);
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({
        file: 'perimeters.yml',
        valid: true,
        tracked: 4,
        perimeters: [
          { name: 'docs', read: 2, write: 2 },
          { name: 'source', read: 3, write: 2 },
        ],
        overlapping: [{ path: 'docs/shared/b.md', writers: ['docs', 'source'] }],
        unreadable: ['perimeters.yml'],
      });
    });
  });

  describe('when the config is invalid', () => {
    it('gives the problems as data and exits 1', async () => {
      const dir = checkout({ 'perimeters.yml': 'version: 1\nperimeters:\n  x:\n    write: "src/**"\n' });
      const result = await runCli(['check', '--json'], dir);
      expect(result.code).toBe(1);
      expect(JSON.parse(result.stdout)).toEqual({
        valid: false,
        problems: [expect.objectContaining({ file: 'perimeters.yml', line: 4, key: 'perimeters.x.write' })],
      });
    });
  });
});

describe('perimeter verify-ledger --json', () => {
  it('gives the verdict as data, exit 1 when the chain is broken', async () => {
    const dir = checkout({ 'perimeters.yml': CONFIG });
    const path = join(dir, 'ledger.jsonl');
    writeFileSync(join(dir, 'key'), 'k'.repeat(32));
    const ledger = await Ledger.open(path, 'k'.repeat(32));
    await ledger.append({ event: 'start', perimeters: ['docs'] });
    await ledger.append({ event: 'stop' });
    await ledger.close();
    const intact = await runCli(['verify-ledger', '--key-file', 'key', '--json', 'ledger.jsonl'], dir);
    expect(intact.code).toBe(0);
    expect(JSON.parse(intact.stdout)).toEqual({ ledger: 'ledger.jsonl', ok: true, records: 2 });
    writeFileSync(join(dir, 'key'), 'x'.repeat(32));
    const broken = await runCli(['verify-ledger', '--key-file', 'key', '--json', 'ledger.jsonl'], dir);
    expect(broken.code).toBe(1);
    expect(JSON.parse(broken.stdout)).toMatchObject({
      ok: false,
      brokenAt: 1,
      problem: 'record 1: MAC does not match',
    });
  });
});

describe('perimeter verify-ledger on a downloaded record', () => {
  const write = async (dir: string, key: string) => {
    const ledger = await Ledger.open(join(dir, 'ledger.jsonl'), key);
    await ledger.append({ event: 'start', perimeters: ['docs'] });
    await ledger.append({ event: 'stop' });
    await ledger.close();
    writeFileSync(join(dir, 'ledger.key'), `${key}\n`);
  };

  it('never takes a key found beside the ledger, in the directory gh run download makes', async () => {
    const dir = checkout({ 'perimeters.yml': CONFIG });
    mkdirSync(join(dir, 'download', 'perimeter-implement-1'), { recursive: true });
    await write(join(dir, 'download', 'perimeter-implement-1'), 'k'.repeat(32));
    const keyless = await runCli(['verify-ledger', 'download'], dir);
    expect(keyless.code).toBe(2);
    expect(keyless.stderr).toContain('--key-file FILE is required: a record carries no ledger key');
    writeFileSync(join(dir, 'kept-key'), 'k'.repeat(32));
    const result = await runCli(['verify-ledger', '--key-file', 'kept-key', 'download'], dir);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('download: ok, 2 records, chain intact\n');
    // the wrong key breaks the chain at once
    writeFileSync(join(dir, 'other-key'), 'x'.repeat(32));
    const wrong = await runCli(['verify-ledger', '--key-file', 'other-key', 'download'], dir);
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toContain('BROKEN at record 1 of 2: record 1: MAC does not match');
  });

  it('asks for the key of a bare ledger, and names a directory without a record', async () => {
    const dir = checkout({ 'perimeters.yml': CONFIG });
    await write(dir, 'k'.repeat(32));
    mkdirSync(join(dir, 'empty'));
    const bare = await runCli(['verify-ledger', join(dir, 'ledger.jsonl')], '/');
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('--key-file FILE is required for a ledger file outside a record');
    const none = await runCli(['verify-ledger', 'empty'], dir);
    expect(none.code).toBe(1);
    expect(none.stderr).toBe(
      'perimeter verify-ledger: empty holds no Perimeter record (no receipt.json or ledger.jsonl)\n',
    );
  });
});
