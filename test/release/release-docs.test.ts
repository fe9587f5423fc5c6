/**
 * What a user pins and how a maintainer releases, as the documents say it: RELEASING.md names the tags, the
 * moving major tag (moved by the release workflow), the changelog and the dist/ check that scripts/release.mjs makes; README says once what
 * to write for the action's owner, and every snippet spells the reference the same way, so one word changes
 * for a fork.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '@perimeter/test-rigs';

const read = (file: string): string => readFileSync(join(REPO_ROOT, file), 'utf8');
const DOCS = ['README.md', ...readdirSync(join(REPO_ROOT, 'docs')).map((name) => `docs/${name}`)];

describe('RELEASING.md', () => {
  const text = read('RELEASING.md');
  it.each([
    ['the version tag', /`vX\.Y\.Z`/],
    ['the moving major tag', /moving major tag/],
    ['the release workflow that moves it', /\.github\/workflows\/release\.yml/],
    ['the one command that tags and pushes', /npm run release -- X\.Y\.Z/],
    ['the force push that moves it by hand', /git push --force origin vX/],
    ['the changelog', /CHANGELOG\.md/],
    ['the dist check', /dist\/` not built from these sources/],
    ['the dry run that lists every reason not to tag', /scripts\/release\.mjs X\.Y\.Z --dry-run/],
    ['forks', /fork/],
  ])('names %s', (_what, pattern) => {
    expect(text).toMatch(pattern);
  });
});

describe('CHANGELOG.md', () => {
  it('has the Unreleased section RELEASING.md moves into a version', () => {
    expect(read('CHANGELOG.md')).toMatch(/^## \[Unreleased\]$/m);
  });
});

describe('the action reference', () => {
  it('is OWNER/perimeter (or its verify and apply) at the major tag in every snippet', () => {
    const references = DOCS.flatMap((file) =>
      [...read(file).matchAll(/uses: (\S*perimeter\S*)/g)].map((match) => `${file}: ${match[1]}`),
    );
    expect(references.length).toBeGreaterThan(0);
    expect(references.filter((ref) => !/: OWNER\/perimeter(\/verify|\/apply)?@v1$/.test(ref))).toEqual([]);
  });

  it('is explained once in README, with what a fork writes', () => {
    const readme = read('README.md').replace(/^```[\s\S]*?^```/gm, '');
    const explained = readme
      .split(/\n\s*\n/)
      .filter((paragraph) => paragraph.includes('in place of `OWNER`'));
    expect(explained).toHaveLength(1);
    expect(explained[0]).toMatch(/fork/);
    expect(explained[0]).toContain('RELEASING.md');
  });
});
