/**
 * The workflows `perimeter init --workflow` writes are the ones README and docs/ show: each page's marked
 * block must be the template rendered with `OWNER/perimeter@v1` and `implementer`, so a page cannot show one
 * workflow while init writes another (test/agents/init-workflows.test.ts runs what init writes whole).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '@perimeter/test-rigs';
import { renderWorkflow, TEMPLATES, WORKFLOW_KINDS } from '../../src/cli/init/workflow-templates.js';

const PAGES = ['README.md', ...readdirSync(join(REPO_ROOT, 'docs')).map((name) => `docs/${name}`)].filter(
  (page) => page.endsWith('.md'),
);

/** The YAML block after `marker` on whichever page holds it (pages move; the marker stays with its block). */
function markedBlock(marker: string): { page: string; text: string } {
  const markers = [`<!-- agents-test: ${marker} -->`, `<!-- ${marker} -->`];
  const found: Array<{ page: string; text: string }> = [];
  for (const page of PAGES) {
    const text = readFileSync(join(REPO_ROOT, page), 'utf8');
    for (const m of markers) {
      const at = text.indexOf(m);
      if (at < 0) continue;
      const block = /^```yaml\n([\s\S]*?)^```/m.exec(text.slice(at + m.length));
      if (!block?.[1]) throw new Error(`${page}: no yaml block after ${m}`);
      found.push({ page, text: block[1] });
    }
  }
  if (found.length !== 1)
    throw new Error(`expected one block marked ${markers.join(' or ')}, found ${found.length}`);
  return found[0]!;
}

/** A pasted workflow's leading comment lines (the gate's file name) are the page's, not the workflow's. */
const withoutLeadingComments = (text: string) => text.replace(/^(#[^\n]*\n)+/, '');

describe('the workflows init writes', () => {
  it.each(WORKFLOW_KINDS)('%s is the block the docs show for it', (kind) => {
    const { page, text } = markedBlock(TEMPLATES[kind].marker);
    const rendered = renderWorkflow(kind, {
      action: { repository: 'OWNER/perimeter', ref: 'v1' },
      perimeter: 'implementer',
    });
    expect(rendered, `${page}, the block marked ${TEMPLATES[kind].marker}`).toBe(
      withoutLeadingComments(text),
    );
  });

  it('name the perimeter they are given wherever the docs name implementer', () => {
    for (const kind of WORKFLOW_KINDS) {
      const rendered = renderWorkflow(kind, {
        action: { repository: 'octo-fork/perimeter', ref: 'a'.repeat(40) },
        perimeter: 'test-author',
      });
      expect(rendered, kind).not.toMatch(/implementer|IMPLEMENTER|OWNER/);
      if (kind !== 'gate') expect(rendered, kind).toContain('perimeters: test-author');
      expect(rendered, kind).toContain(`octo-fork/perimeter`);
    }
  });
});
