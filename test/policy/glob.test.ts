import { describe, expect, it } from 'vitest';
import {
  branchGlobProblem,
  compileGlob,
  compileGlobList,
  globProblem,
  GLOB_OPTIONS,
} from '../../src/policy/glob.js';

const MATCHES: Array<[string, string, boolean]> = [
  ['src/**', 'src/a.ts', true],
  ['src/**', 'src/deep/er/a.ts', true],
  ['src/**', 'src/.eslintrc', true],
  ['src/**', 'src/.hidden/a.ts', true],
  ['src/**', 'srcx/a.ts', false],
  ['src/**', 'SRC/a.ts', false],
  ['src/*', 'src/a/b.ts', false],
  ['*.md', 'README.md', true],
  ['*.md', 'docs/README.md', false],
  ['**/*.md', 'docs/deep/README.md', true],
  ['**/*.md', 'README.md', true],
  ['**', '.github/workflows/ci.yml', true],
  ['*', '.env', true],
  ['{src,test}/**', 'test/a.ts', true],
  ['{src,test}/**', 'bench/a.ts', false],
  ['[[:alpha:]]*.md', 'a.md', true],
  ['a[(]b[)].txt', 'a(b).txt', true],
  ['docs/a (copy).md', 'docs/a (copy).md', true],
  ['src/**', 'src', false],
  ['src/*[+-0]*', 'src/a/b', false],
  ['src/[[:punct:]]', 'src/-', true],
  ['a[[:punct:]]b', 'a/b', false],
  ['a[[:graph:]]b', 'a/b', false],
  ['a[!x]b', 'a/b', false],
  ['a[b-a]', 'ab', true],
  ['**/*_*_*_*_*.py', `${'_'.repeat(200)}/${'_'.repeat(250)}.py`, true],
  ['**/*_*_*_*_*.py', `${'_'.repeat(200)}/${'_'.repeat(250)}.pyc`, false],
  ['*_*/*_*/*_*/*_*.py', `${'_'.repeat(250)}/`.repeat(4) + 'x.py', false],
  ['**/x/**/x/**/y', `${'x/'.repeat(2000)}z`, false],
  ['**/x/**/x/**/y', `${'x/'.repeat(2000)}y`, true], // git: "b" is a member before the (empty) range b-a begins
  ['*.[ch]', 'x.[ch]', false],

  ['docs/a?c.md', 'docs/abc.md', true],
  ['docs/a?c.md', 'docs/a/c.md', false],
  ['a/**/b', 'a/b', true],
  ['a/**/b', 'a/x/y/b', true],
  ['package.json', 'package.json', true],
  ['package.json', 'sub/package.json', false],
];

describe('compileGlob', () => {
  describe.each(MATCHES)('when %j meets %j', (glob, path, expected) => {
    it(expected ? 'matches' : 'does not match', () => {
      expect(globProblem(glob)).toBeNull();
      expect(compileGlob(glob).test(path)).toBe(expected);
      expect(compileGlobList([glob]).find(path)).toBe(expected ? glob : null);
    });
  });

  describe('when the options are inspected', () => {
    it('uses the documented explicit options', () => {
      expect(GLOB_OPTIONS).toMatchObject({
        dot: true,
        nocase: false,
        windows: false,
        nonegate: true,
        noextglob: true,
      });
    });
  });
});

describe('globProblem', () => {
  describe.each([
    ['', /empty/],
    [' src/**', /whitespace/],
    ['src/** ', /whitespace/],
    ['!src/**', /negation/],
    ['/src/**', /leading "\/"/],
    ['src\\*', /backslash/],
    ['src//a', /empty segment/],
    ['src/', /empty segment/],
    ['./src', /"\." segment/],
    ['src/../x', /"\.\." segment/],
    ['**/.git/**', /\.git/],
    ['.Git', /\.git/],
    ['@(a|b)', /extglob/],
    ['src/+(a)', /extglob/],
    ['src/{a,b', /unclosed "\{"/],
    ['src/a}', /unmatched "\}"/],
    ['src/{a,{b,c}}', /nested braces/],
    ['src/{a}', /braces without a comma/],
    ['{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}', /more than 64/],
    ['src/[ab', /unclosed "\["/],
    ['src/[[:word:]]', /unknown character class/],
    ['src/[/]', /can never match a path character/],
    ['src/a**', /"\*\*" inside a name/],
    ['**.md', /"\*\*" inside a name/],
    ['a\u0000', /control/],
    ['a\u200bb', /invisible/],
    ['x'.repeat(5000), /longer than/],
    ['docs/\u2025/x', /segment "\u2025" can never match a valid path: .*folds to/],
    [`docs/${'a'.repeat(256)}`, /can never match a valid path: a segment is longer than 255 bytes/],
  ])('when the glob is %j', (glob, reason) => {
    it('reports the problem', () => {
      expect(globProblem(glob)).toMatch(reason);
    });
  });
});

describe('branchGlobProblem', () => {
  describe.each(['main', 'agent/**', 'release/v*', 'feature/{a,b}'])('when the glob is %j', (glob) => {
    it('accepts it', () => expect(branchGlobProblem(glob)).toBeNull());
  });
  describe.each(['', 'refs/heads/main', '/main', 'my branch', 'a..b', 'a//b', 'a/', '!main', 'a\\b', 'x{'])(
    'when the glob is %j',
    (glob) => {
      it('rejects it', () => expect(branchGlobProblem(glob)).not.toBeNull());
    },
  );
});

describe('compileGlobList', () => {
  describe('when several globs match', () => {
    it('reports the first one listed', () => {
      const list = compileGlobList(['docs/**', '**/*.md', 'src/**']);
      expect(list.find('docs/a.md')).toBe('docs/**');
      expect(list.find('x/a.md')).toBe('**/*.md');
      expect(list.find('src/a.ts')).toBe('src/**');
      expect(list.find('x/a.ts')).toBeNull();
    });
  });
  describe('when the list is empty', () => {
    it('matches nothing', () => {
      expect(compileGlobList([]).find('a')).toBeNull();
    });
  });
});
