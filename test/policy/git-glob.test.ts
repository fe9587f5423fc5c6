/**
 * Globs mean what git reads: every decision is compared with git's own matching, `git ls-files` with
 * `:(glob)` pathspecs over a real index, on generated paths and globs (fast-check).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileGlobList, globProblem } from '../../src/policy/glob.js';
import { pathProblem } from '../../src/policy/path.js';
import { runs } from '@perimeter/test-rigs';

let repo = '';
let blob = '';
let indexes = 0;

function git(args: string[], input?: string, index?: string): string {
  return execFileSync('git', args, {
    cwd: repo,
    input,
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: repo,
      GIT_CONFIG_NOSYSTEM: '1',
      ...(index && { GIT_INDEX_FILE: index }),
    },
  });
}

beforeAll(() => {
  repo = mkdtempSync(join(tmpdir(), 'perimeter-git-glob-'));
  git(['init', '--quiet']);
  git(['config', 'core.ignorecase', 'false']);
  git(['config', 'core.precomposeunicode', 'false']);
  blob = git(['hash-object', '-w', '--stdin'], '').trim();
});

afterAll(() => rmSync(repo, { recursive: true, force: true }));

/** `paths` in groups git can hold in one index each: no path of a group is another's directory. */
function indexable(paths: string[]): string[][] {
  const groups: string[][] = [];
  for (const path of paths) {
    const conflicts = (q: string) => q.startsWith(`${path}/`) || path.startsWith(`${q}/`);
    const group = groups.find((g) => !g.some(conflicts));
    if (group) group.push(path);
    else groups.push([path]);
  }
  return groups;
}

/** The paths of `paths` that git's `:(glob)` pathspecs select (the union over `patterns`). */
function gitMatches(paths: string[], patterns: string[]): Set<string> {
  return new Set(indexable(paths).flatMap((group) => [...gitMatchesIn(group, patterns)]));
}

function gitMatchesIn(paths: string[], patterns: string[]): Set<string> {
  const index = join(repo, `index-${++indexes}`);
  git(['update-index', '--add', '--index-info'], paths.map((p) => `100644 ${blob}\t${p}\n`).join(''), index);
  const out = git(['ls-files', '-z', '--', ...patterns.map((p) => `:(glob)${p}`)], undefined, index);
  rmSync(index, { force: true });
  return new Set(out.split('\0').filter(Boolean));
}

function ourMatches(paths: string[], glob: string): Set<string> {
  const list = compileGlobList([glob]);
  return new Set(paths.filter((p) => list.find(p) !== null));
}

/**
 * git's pathspecs also select a path equal to the pattern's text and everything under a directory of that
 * name (`src` selects `src/a`, `a[b]` selects the file `a[b]`): literal pathspec matching, not glob matching.
 */
function selectedLiterally(path: string, patterns: string[]): boolean {
  return patterns.some((p) => path === p || path.startsWith(`${p}/`));
}

function compare(paths: string[], glob: string, patterns: string[] = [glob]): void {
  const theirs = gitMatches(paths, patterns);
  const problem = globProblem(glob);
  if (problem !== null) {
    // "**" inside a name is refused because git reads it two ways (see git-glob.ts)
    if (/"\*\*" inside a name/.test(problem)) return;
    // otherwise refused only when git could never match the glob either
    expect(problem, glob).toMatch(/can never match/);
    expect([...theirs], `${glob} is refused but git matches`).toEqual([]);
    return;
  }
  const ours = ourMatches(paths, glob);
  for (const path of paths) {
    if (selectedLiterally(path, patterns)) continue;
    expect(
      ours.has(path),
      `${JSON.stringify(glob)} on ${JSON.stringify(path)}: git says ${theirs.has(path)}`,
    ).toBe(theirs.has(path));
  }
}

/** Path characters chosen to meet glob syntax: brackets, stars, punctuation, a dot, a two-byte letter. */
const PATH_CHARS = ['a', 'b', 'B', '0', '.', '-', '_', '+', '!', '[', ']', '^', ':', ' ', '*', '?', 'é', '~'];
const segment = fc
  .array(fc.constantFrom(...PATH_CHARS), { minLength: 1, maxLength: 4 })
  .map((chars) => chars.join(''));
const path = fc
  .array(segment, { minLength: 1, maxLength: 4 })
  .map((segments) => segments.join('/'))
  .filter((p) => pathProblem(p) === null && !p.endsWith(' '));

const pathSet = fc.uniqueArray(path, { minLength: 1, maxLength: 14 });

const BRACKETS = [
  '[ab]',
  '[!a]',
  '[^.]',
  '[a-b]',
  '[+-0]',
  '[[:punct:]]',
  '[[:alpha:]]',
  '[[:graph:]]',
  '[[:alnum:]_]',
  '[[:upper:][:digit:]]',
  '[!]]',
  '[]a]',
  '[a-]',
  '[-a]',
  '[[]',
  '[]]',
  '[é]',
  '[!é]',
  '[.-0]',
  '[*?]',
  '[!/]',
  '[[:]a]',
  '[^[:punct:]]',
  '[ -~]',
  '[b-a]',
];
const LITERALS = ['a', 'b', 'B', '0', '.', '-', '_', '+', ':', ' ', 'é', '~', '^', '!', ']'];
const token = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...LITERALS) },
  { weight: 2, arbitrary: fc.constant('*') },
  { weight: 1, arbitrary: fc.constant('**') },
  { weight: 2, arbitrary: fc.constant('?') },
  { weight: 3, arbitrary: fc.constantFrom(...BRACKETS) },
);
const globSegment = fc.oneof(
  { weight: 4, arbitrary: fc.array(token, { minLength: 1, maxLength: 4 }).map((t) => t.join('')) },
  { weight: 1, arbitrary: fc.constantFrom('**', '***') },
);
const glob = fc
  .array(globSegment, { minLength: 1, maxLength: 4 })
  .filter((segments) => segments.every((s) => s !== '.' && s !== '..'))
  .map((segments) => segments.join('/'))
  .filter((g) => !g.startsWith('!') && g.trim() === g);

describe('globs against git', { timeout: 120_000 }, () => {
  it.each([
    ['src/*[+-0]*', ['src/a/b', 'src/a+b', 'src/ab', 'src/a0']],
    ['a[[:punct:]]b', ['a/b', 'a.b', 'a-b', 'acb']],
    ['a[[:graph:]]b', ['a/b', 'a.b', 'axb']],
    ['a[!x]b', ['a/b', 'ayb', 'axb']],
    ['dir/**', ['dir', 'dir/a', 'dir/a/b', 'dirx/a']],
    ['**/x', ['x', 'a/x', 'a/b/x', 'ax']],
    ['a/**/b', ['a/b', 'a/x/b', 'a/x/y/b', 'ab']],
    ['***/b', ['b', 'a/b', 'a/c/b']],
    ['*.[ch]', ['x.c', 'x.h', 'x.[ch]', 'x.d']],
    ['?', ['é', 'a', 'ab']],
    ['??', ['é', 'a', 'ab']],
    ['[é]?', ['é', 'e']],
    ['(a)', ['(a)', 'a']],
    ['a|b', ['a|b', 'a', 'b']],
    ['$x^', ['$x^', 'x']],
    ['a+', ['a+', 'aa']],
  ])('matches %j as git does', (pattern, paths) => {
    compare(paths, pattern);
  });

  it('matches brace alternatives as git matches each one', () => {
    const paths = ['src/a.ts', 'test/a.ts', 'docs/a.ts', '{src,test}/a.ts'];
    compare(paths, '{src,test}/*.ts', ['src/*.ts', 'test/*.ts']);
  });

  it('agrees with git on generated paths and globs', () => {
    fc.assert(
      fc.property(pathSet, fc.array(glob, { minLength: 1, maxLength: 4 }), (paths, globs) => {
        for (const g of globs) compare(paths, g);
      }),
      { numRuns: runs(60, 250) },
    );
  });

  it('agrees with git on generated brace globs, taken as one pathspec per alternative', () => {
    const piece = fc.array(token, { maxLength: 3 }).map((t) => t.join(''));
    const braced = fc
      .tuple(glob, fc.uniqueArray(piece, { minLength: 2, maxLength: 3 }), piece)
      .map(([head, options, tail]) => ({
        glob: `${head}{${options.join(',')}}${tail}`,
        patterns: options.map((o) => `${head}${o}${tail}`),
      }))
      // alternatives that are globs on their own: no empty segment, no surrounding space, no leading "!"
      .filter(
        ({ glob: g, patterns }) =>
          patterns.every((p) => p !== '' && !p.startsWith('/') && !p.endsWith('/') && !p.includes('//')) &&
          g.trim() === g &&
          !g.startsWith('!'),
      );
    fc.assert(
      fc.property(pathSet, braced, (paths, { glob: g, patterns }) => {
        compare(paths, g, patterns);
      }),
      { numRuns: runs(40, 150) },
    );
  });

  it('agrees with git on generated globs over paths made to fit them', () => {
    // Random paths rarely fit a random glob; here the paths are the glob's own text with syntax replaced.
    const fitted = glob.chain((g) => {
      const fill = fc.constantFrom('a', 'b', '.', '+', 'é', ']', '[');
      const sample = fc
        .array(fill, { minLength: g.length, maxLength: g.length })
        .map((f) => g.replace(/[*?[\]]/g, (_c, i: number) => f[i % f.length]!));
      return fc.tuple(fc.constant(g), fc.uniqueArray(sample, { minLength: 1, maxLength: 6 }));
    });
    fc.assert(
      fc.property(fitted, ([g, candidates]) => {
        const paths = candidates.filter((p) => pathProblem(p) === null && !p.endsWith(' '));
        if (paths.length > 0) compare(paths, g);
      }),
      { numRuns: runs(40, 150) },
    );
  });
});
