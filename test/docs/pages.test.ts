/**
 * README.md and the docs/ pages it links: every relative link reaches a file and, with an anchor, a heading
 * of that file; and no paragraph or list item stands in two places (one copy to keep true, not two).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '@perimeter/test-rigs';

const DOCS = ['README.md', ...readdirSync(join(REPO_ROOT, 'docs')).map((name) => `docs/${name}`)];
const LINKING = [...DOCS, 'SECURITY.md', 'BENCHMARKS.md'];

const read = (file: string): string => readFileSync(join(REPO_ROOT, file), 'utf8');

/** The text outside fenced code blocks. */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '');
}

/** GitHub's anchors for the headings of a markdown file. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const [, heading] of prose(text).matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = heading!
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    result.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return result;
}

/** Every relative link of a file as "target" or "target#anchor", resolved from the repository root. */
function links(file: string): string[] {
  const targets = [...prose(read(file)).matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
  return targets
    .filter((target) => !/^[a-z]+:/.test(target))
    .map((target) => {
      const [path = '', anchor] = target.split('#');
      const resolved = path === '' ? file : relative(REPO_ROOT, join(REPO_ROOT, dirname(file), path));
      return anchor === undefined ? resolved : `${resolved}#${anchor}`;
    });
}

describe('the documentation pages', () => {
  it('are all linked from README', () => {
    const fromReadme = new Set(links('README.md').map((link) => link.split('#')[0]));
    for (const page of DOCS.slice(1)) expect(fromReadme, page).toContain(page);
  });

  it.each(LINKING)('%s: every relative link reaches a file and its heading', (file) => {
    for (const link of links(file)) {
      const [path, anchor] = link.split('#') as [string, string | undefined];
      expect(existsSync(join(REPO_ROOT, path)), `${file} links ${link}`).toBe(true);
      if (anchor !== undefined) expect(anchors(read(path)), `${file} links ${link}`).toContain(anchor);
    }
  });

  it('say no paragraph or list item twice', () => {
    const where = new Map<string, string>();
    const twice: string[] = [];
    for (const file of DOCS) {
      const units = prose(read(file))
        .split(/\n\s*\n/)
        .flatMap((block) => block.split(/\n(?=\s*(?:- |\d+\. ))/))
        .map((unit) => unit.replace(/\s+/g, ' ').trim())
        .filter((unit) => unit.length >= 80);
      for (const unit of units) {
        const first = where.get(unit);
        if (first !== undefined) twice.push(`${first} and ${file}: ${unit.slice(0, 80)}…`);
        else where.set(unit, file);
      }
    }
    expect(twice).toEqual([]);
  });
});
