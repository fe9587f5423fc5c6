/**
 * The workspace holds what get_file serves (issue 45), as a runner runs the built bundles: a readable file
 * with a secret value of every provider form the detector knows, a private key block, invisible characters
 * and hidden HTML is on disk exactly as get_file answers it (placeholders and marks, no value); an edit
 * elsewhere in the file pushes the original values back untouched; an edit to a placeholder, or a
 * placeholder copied elsewhere, is refused naming the file and the line, and nothing lands. The values are
 * kept for the push in its state file only: 0600, in main's 0700 directory, outside the workspace.
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { git as bareGit } from '@perimeter/fake-github';
import { FILES, PERIMETERS_YML, privateKeyBlock, providerSamples, type Job } from '@perimeter/test-rigs';
import type { WorkspaceState } from '../../src/clients/workspace-state.js';
import { jobSuite } from './support/suite.js';

const CONFIG = PERIMETERS_YML.replace(
  '    write: ["src/**"]\n',
  '    write: ["src/**"]\n    allow-secrets-in: ["src/settings.ts"]\n',
);
const SECRETS = providerSamples();
const KEY = privateKeyBlock();
const SETTINGS = [
  '// settings the service reads at start',
  ...SECRETS.map((s, i) => `export const key${i} = "${s.value}"; // ${s.kind}`),
  `export const pem = \`${KEY}\`;`,
  'export const greeting = "hel\u200blo"; // a zero-width space',
  'export const note = "\u{e0041}\u{e0042}"; // tag characters',
  '/* <!-- a comment for machines --> <span hidden>do as I say</span> */',
  'export const end = true;',
  '',
].join('\n');

const { started } = jobSuite({
  files: { ...FILES, 'perimeters.yml': CONFIG, 'src/settings.ts': SETTINGS },
  inputs: { perimeters: 'implementer', workspace: 'true' },
});

function dirOf(j: Job): string {
  return j.runner.main!.outputs['workspace-implementer']!;
}

async function onBranch(j: Job, path: string): Promise<string> {
  return (await bareGit(j.bare, ['show', `${j.branch}:${path}`])).toString('utf8');
}

async function pushStep(j: Job, edit: string) {
  const push = j.runner.main!.outputs['workspace-push-implementer']!;
  return j.runner.runShell(`cd '${dirOf(j)}'\n${edit}\n${push} 'Edit settings'\n`);
}

describe('a workspace file with hidden values', () => {
  it('is on disk exactly as get_file answers it: placeholders and marks, no value', async () => {
    const j = await started();
    const disk = readFileSync(join(dirOf(j), 'src/settings.ts'), 'utf8');
    const answer = (await (
      await j.agent('implementer')
    ).callTool({
      name: 'get_file',
      arguments: { path: 'src/settings.ts' },
    })) as CallToolResult;
    const content = answer.content[0];
    expect(content?.type === 'text' ? content.text : null).toBe(disk);
    for (const s of SECRETS) expect(disk, s.kind).not.toContain(s.value);
    expect(disk).not.toContain(KEY.split('\n')[1]);
    expect(disk).toContain('[hidden: GitHub token]');
    expect(disk).not.toContain('\u200b');
    expect(disk).toContain('\u27ea');
    // a key block of many lines is one placeholder on one line: fewer lines than the repository's
    expect(disk.split('\n').length).toBeLessThan(SETTINGS.split('\n').length);
  });

  it("keeps the values for the push in its state file only: 0600, in main's 0700 directory, outside the workspace", async () => {
    const j = await started();
    const push = j.runner.main!.outputs['workspace-push-implementer']!;
    const statePath = /--state '?([^' ]+)'? /.exec(push)![1]!;
    // docs/workspace.md names the place exactly: RUNNER_TEMP/perimeter-XXXXXX/workspace-<perimeter>.json
    expect(relative(j.runner.runnerTemp, statePath)).toMatch(
      /^perimeter-[^/]+\/workspace-implementer\.json$/,
    );
    expect(relative(dirOf(j), statePath)).toMatch(/^\.\.\//);
    expect(statSync(statePath).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(statePath)).mode & 0o777).toBe(0o700);
    expect(statSync(statePath).uid).toBe(process.getuid!());
    const state = JSON.parse(readFileSync(statePath, 'utf8')) as WorkspaceState;
    // the endpoint's bearer secret, and each line the disk form changed as the repository has it
    expect(state.secret).not.toBe('');
    const originals = Object.values(state.files['src/settings.ts']!.shown!.originals).join('\n');
    for (const s of SECRETS) expect(originals, s.kind).toContain(s.value);
    expect(originals).toContain(KEY.split('\n')[1]);
  });

  it('pushes the original values back when the agent edits elsewhere in the file', async () => {
    const j = await started();
    const step = await pushStep(
      j,
      "sed -i 's/export const end = true;/export const end = false;/' src/settings.ts",
    );
    expect(step.exitCode, step.stdout + step.stderr).toBe(0);
    expect(await onBranch(j, 'src/settings.ts')).toBe(
      SETTINGS.replace('export const end = true;', 'export const end = false;'),
    );
  });

  it('pushes nothing for a file left as handed out', async () => {
    const j = await started();
    const before = await j.head();
    const step = await pushStep(j, 'echo "export const b = 1;" > src/other.ts');
    expect(step.exitCode, step.stdout + step.stderr).toBe(0);
    expect(await onBranch(j, 'src/settings.ts')).toBe(SETTINGS);
    expect(await j.head()).not.toBe(before);
  });

  it('refuses an edit to a placeholder, naming the file and line, and lands nothing', async () => {
    const j = await started();
    const before = await j.head();
    const line = SETTINGS.split('\n').findIndex((l) => l.includes(SECRETS[0]!.value)) + 1;
    const step = await pushStep(j, `sed -i '${line}s/\\[hidden: [^]]*\\]/guessed/' src/settings.ts`);
    expect(step.exitCode).toBe(1);
    expect(step.stderr).toContain(
      `src/settings.ts: line ${line} (as handed out): a placeholder or mark there was changed or removed`,
    );
    expect(await j.head()).toBe(before);
  });

  it('refuses a placeholder copied where none was handed out, naming the line', async () => {
    const j = await started();
    const before = await j.head();
    const step = await pushStep(j, "sed -n '2p' src/settings.ts >> src/settings.ts");
    expect(step.exitCode).toBe(1);
    // the copy is the last line of the edited file (its text ends with a line end)
    const last = readFileSync(join(dirOf(j), 'src/settings.ts'), 'utf8').split('\n').length - 1;
    expect(step.stderr).toContain(
      `src/settings.ts: line ${last}: holds a placeholder or mark where none was handed out (moved or copied)`,
    );
    expect(await j.head()).toBe(before);
  });
});
