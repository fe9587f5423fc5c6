/**
 * Every workflow README.md and docs/ show, and every part of one (a step or job fragment, indented in a list
 * item included), linted as a user would paste it (test/support/lint-workflow.ts: actionlint 1.7.7 and the
 * inputs of today's actions/checkout). A block that is perimeters.yml is not a workflow and is left out. The
 * repository's own workflows pass the same linter.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '@perimeter/test-rigs';
import { docYamlBlocks, type DocYamlBlock } from '../support/doc-yaml.js';
import { lintFragment, lintWorkflow } from '../support/lint-workflow.js';

const BLOCKS = docYamlBlocks();
const WORKFLOWS = BLOCKS.filter((b) => b.kind === 'workflow');
const FRAGMENTS = BLOCKS.filter((b) => b.kind === 'fragment');
const named = (blocks: DocYamlBlock[]) => blocks.map((b) => [`${b.file}:${b.line}`, b] as const);

describe('the workflows README and docs show', () => {
  it('are found, indented blocks included', () => {
    expect(WORKFLOWS.length).toBeGreaterThan(10);
    // the App-token steps for the verify job, indented in a list item
    expect(FRAGMENTS).toContainEqual(
      expect.objectContaining({
        file: 'docs/verify-job.md',
        text: expect.stringContaining('create-github-app-token'),
      }),
    );
  });

  it.each(named(WORKFLOWS))('%s passes the linter', async (_, block) => {
    const found = (await lintWorkflow(block.text, `${block.file}:${block.line}.yml`)).map(
      (p) => `${block.file}:${block.line + p.line - 1}:${p.column}: ${p.message} [${p.kind}]`,
    );
    expect(found).toEqual([]);
  });

  it.each(named(FRAGMENTS))('%s passes the linter inside a job', async (_, block) => {
    const found = (await lintFragment(block.text, `${block.file}:${block.line}.yml`)).map(
      (p) => `${block.file}:${block.line + p.line - 1}:${p.column}: ${p.message} [${p.kind}]`,
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

  it.each(OWN)('.github/workflows/%s passes the linter', async (file) => {
    const text = readFileSync(join(REPO_ROOT, '.github', 'workflows', file), 'utf8');
    const found = (await lintWorkflow(text, file)).map(
      (p) => `${file}:${p.line}:${p.column}: ${p.message} [${p.kind}]`,
    );
    expect(found).toEqual([]);
  });
});
