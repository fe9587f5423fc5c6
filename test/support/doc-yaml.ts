/**
 * The YAML blocks README.md and docs/*.md show, fenced at any indentation (a block inside a list item is
 * indented with it), each as a user would copy it: the fence's own indentation removed, the rest kept.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT } from '@perimeter/test-rigs';

export interface DocYamlBlock {
  /** relative to the repository, e.g. `docs/verify-job.md` */
  file: string;
  /** the line of the block's first line of YAML */
  line: number;
  text: string;
  /** what the block is: perimeters.yml, a whole workflow, or a part of one */
  kind: 'perimeters' | 'workflow' | 'fragment';
}

export const DOC_FILES: readonly string[] = [
  'README.md',
  ...readdirSync(join(REPO_ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];

function kindOf(text: string): DocYamlBlock['kind'] {
  const doc = parse(text) as unknown;
  const keys = typeof doc === 'object' && doc !== null && !Array.isArray(doc) ? Object.keys(doc) : [];
  if (keys.includes('perimeters') && keys.includes('version')) return 'perimeters';
  if (keys.includes('on') && keys.includes('jobs')) return 'workflow';
  return 'fragment';
}

export function docYamlBlocks(files: readonly string[] = DOC_FILES): DocYamlBlock[] {
  const blocks: DocYamlBlock[] = [];
  for (const file of files) {
    const markdown = readFileSync(join(REPO_ROOT, file), 'utf8');
    for (const m of markdown.matchAll(/^( *)```ya?ml\n([\s\S]*?)^\1```/gm)) {
      const indent = m[1] ?? '';
      const text = (m[2] ?? '').replace(new RegExp(`^${indent}`, 'gm'), '');
      blocks.push({
        file,
        line: markdown.slice(0, m.index).split('\n').length + 1,
        text,
        kind: kindOf(text),
      });
    }
  }
  return blocks;
}
