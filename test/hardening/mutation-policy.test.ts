/**
 * Policy decisions pinned where the mutation run found them loose: glob and branch-glob problems word for
 * word, limits at exactly their boundary, Unicode folds, the protected set with a configured config file,
 * and the credential-file names.
 */
import { describe, expect, it } from 'vitest';
import { branchGlobProblem, compileGlobList, globProblem } from '../../src/policy/glob.js';
import { protectedRule, validatePath } from '../../src/policy/index.js';
import { credentialFileRule } from '../../src/policy/credentials.js';
import { compiledPerimeter } from '@perimeter/test-rigs';

/** A path of exactly `bytes` bytes made of valid segments of `unit` (1 or 2 bytes a character). */
function pathOf(bytes: number, unit: 'a' | 'é'): string {
  const size = unit === 'a' ? 1 : 2;
  const segment = unit.repeat(100);
  const parts: string[] = [];
  let used = 0;
  while (used + 100 * size + 1 <= bytes - 2) {
    parts.push(segment);
    used += 100 * size + 1;
  }
  const rest = bytes - used;
  parts.push('b'.repeat(rest));
  return parts.join('/');
}

describe('globProblem, word for word', () => {
  it.each([
    ['', 'empty glob'],
    [' a', 'leading or trailing whitespace'],
    ['a\u0001', 'control or invisible character'],
    ['!a', 'negation ("!") is not supported: perimeters only grant, list what is allowed'],
    ['/a', 'leading "/": globs are relative to the repository root'],
    ['a\\b', 'backslash: paths never contain one; write "[*]" to match a special character literally'],
    [
      'a@(b)',
      '"@(" reads like an extglob, which git does not have (there "(" is a literal); write "[(]" for a literal parenthesis, or list the globs',
    ],
    ['a//b', 'empty segment ("//" or a trailing "/"; write "dir/**" for a directory)'],
    ['a/./b', '"." segment can never match a valid path'],
    ['a/../b', '".." segment can never match a valid path'],
    ['.git/x', '".git" segment can never match: .git paths are always refused'],
    ['src/{', 'unclosed "{"; write "[{]" for a literal one'],
    ['[(]x', null],
    ['src/**', null],
  ])('%j -> %j', (glob, problem) => {
    expect(globProblem(glob)).toBe(problem);
  });

  it('takes 4096 bytes and refuses 4097', () => {
    expect(globProblem(pathOf(4096, 'a'))).toBeNull();
    expect(globProblem(pathOf(4097, 'a'))).toBe('longer than 4096 bytes');
    expect(globProblem('x'.repeat(4097))).toBe('longer than 4096 bytes');
  });
});

describe('branchGlobProblem, word for word', () => {
  it.each([
    ['', 'empty glob'],
    [' a', 'whitespace: branch names never contain any'],
    ['a b', 'whitespace: branch names never contain any'],
    ['a\u0001', 'control or invisible character'],
    ['!a', 'negation ("!") is not supported'],
    ['/a', 'give the branch name without "refs/heads/" or a leading "/"'],
    ['refs/heads/a', 'give the branch name without "refs/heads/" or a leading "/"'],
    ['a\\b', 'backslash: branch names never contain one'],
    ['a..b', 'can never match a valid branch name'],
    ['a//b', 'can never match a valid branch name'],
    ['a/', 'can never match a valid branch name'],
    ['agent/{', 'unclosed "{"; write "[{]" for a literal one'],
    ['agent/**', null],
  ])('%j -> %j', (glob, problem) => {
    expect(branchGlobProblem(glob)).toBe(problem);
  });
});

describe('compileGlobList', () => {
  it('finds the first matching glob, at the root only for a bare *.md, and keeps its own copy', () => {
    const globs = ['*.md', 'docs/**', '**/*.md'];
    const list = compileGlobList(globs);
    globs.push('x');
    expect(list.globs).toEqual(['*.md', 'docs/**', '**/*.md']);
    expect(list.find('README.md')).toBe('*.md');
    expect(list.find('docs/a.md')).toBe('docs/**');
    expect(list.find('src/a.md')).toBe('**/*.md');
    expect(list.find('src/a.ts')).toBeNull();
    expect(compileGlobList([]).find('a')).toBeNull();
  });
});

describe('validatePath at its limits', () => {
  it('takes 4096 bytes and refuses 4097, counting bytes, not characters', () => {
    expect(validatePath(pathOf(4096, 'a'))).toEqual({ ok: true, path: pathOf(4096, 'a') });
    expect(validatePath(pathOf(4097, 'a'))).toEqual({ ok: false, reason: 'longer than 4096 bytes' });
    const wide = pathOf(4100, 'é');
    expect(wide.length).toBeLessThan(4096);
    expect(validatePath(wide)).toEqual({ ok: false, reason: 'longer than 4096 bytes' });
    expect(validatePath(pathOf(4096, 'é')).ok).toBe(true);
  });

  it('refuses names that fold onto "..", a separator or .git', () => {
    expect(validatePath('a/\uff0e\uff0e')).toEqual({
      ok: false,
      reason: '"．．" segment folds to ".." under Unicode NFKC',
    });
    expect(validatePath('a\uff0fb')).toEqual({
      ok: false,
      reason: '"a／b" segment folds to "a/b" under Unicode NFKC',
    });
    expect(validatePath('a/GIT~1/x')).toEqual({
      ok: false,
      reason: '"GIT~1" segment: the git directory is off limits',
    });
    expect(validatePath('a/.git./x')).toEqual({
      ok: false,
      reason: '".git." segment: the git directory is off limits',
    });
    expect(validatePath('a/.ǵit/x').ok).toBe(true);
    expect(validatePath('a/ｇit/x').ok).toBe(true);
    expect(validatePath('a/.ｇit/x')).toEqual({
      ok: false,
      reason: '".ｇit" segment: the git directory is off limits',
    });
  });
});

describe('protectedRule with a configured config file', () => {
  it('protects that file at any depth, not the default name', () => {
    expect(protectedRule('conf/perimeters.yml', 'conf/perimeters.yml')).toBe('conf/perimeters.yml');
    expect(protectedRule('x/conf/perimeters.yml', 'conf/perimeters.yml')).toBe('conf/perimeters.yml');
    expect(protectedRule('perimeters.yml', 'conf/perimeters.yml')).toBeNull();
    expect(protectedRule('a/perimeters.yml', './perimeters.yml')).toBe('./perimeters.yml');
    expect(protectedRule('perimeters.yml')).toBe('perimeters.yml');
    expect(protectedRule('deep/.GitHub/x')).toBe('.github/**');
    expect(protectedRule('claude.md.bak')).toBeNull();
    expect(protectedRule('src/ａgents.md')).toBe('AGENTS.md');
  });
});

describe('credentialFileRule names', () => {
  it.each([
    ['_netrc', '_netrc'],
    ['a/id_ecdsa_sk', 'id_ecdsa*'],
    ['id_ed25519_sk', 'id_ed25519*'],
    ['Makefile', null],
    ['s.tfstate.backup', '*.tfstate.backup'],
    ['x.backup', null],
    ['.env.example', null],
    ['.env.local', '.env.*'],
    ['k.PEM', '*.pem'],
  ])('%s -> %s', (path, rule) => {
    expect(credentialFileRule(path)).toBe(rule);
  });
});

describe('Perimeter.allowsBranch', () => {
  it('never allows an empty branch name', () => {
    const p = compiledPerimeter();
    expect(p.allowsBranch('agent/x')).toBe(true);
    expect(p.allowsBranch('')).toBe(false);
  });
});
