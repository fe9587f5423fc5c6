import { describe, expect, it } from 'vitest';
import { bindsRef, fnmatch, locksOn, type RefRuleset } from '../../src/policy/index.js';

const ruleset = (overrides: Partial<RefRuleset> = {}): RefRuleset => ({
  name: 'locked',
  target: 'tag',
  enforcement: 'active',
  bypass: 'never',
  include: ['~ALL'],
  exclude: [],
  rules: ['update', 'deletion'],
  ...overrides,
});

describe('fnmatch', () => {
  describe('when read narrowly (an include)', () => {
    it.each([
      ['refs/tags/v*', 'refs/tags/v1', true],
      ['refs/tags/v*', 'refs/tags/v1/rc', false],
      ['refs/tags/v?', 'refs/tags/v1', true],
      ['refs/tags/v?', 'refs/tags/v/', false],
      ['refs/tags/**', 'refs/tags/a/b', true],
      ['refs/tags/v[0-9]', 'refs/tags/v1', false],
      ['refs/tags/v.1', 'refs/tags/vx1', false],
      ['refs/tags/v1', 'refs/tags/v1', true],
    ])('%s matches %s: %s', (pattern, ref, expected) => {
      expect(fnmatch(pattern, ref, false)).toBe(expected);
    });
  });

  describe('when read broadly (an exclude)', () => {
    it.each([
      ['refs/tags/v*', 'refs/tags/v1/rc', true],
      ['refs/tags/v?', 'refs/tags/v/', true],
      ['refs/tags/v[0-9]', 'refs/tags/v1', true],
      ['refs/tags/v[0-9]x', 'refs/tags/v1y', false],
      ['refs/tags/v[', 'refs/tags/v[', true],
      ['refs/tags/v.1', 'refs/tags/vx1', false],
    ])('%s matches %s: %s', (pattern, ref, expected) => {
      expect(fnmatch(pattern, ref, true)).toBe(expected);
    });
  });
});

describe('bindsRef', () => {
  it('binds an active tag ruleset the token may never bypass to every tag under ~ALL', () => {
    expect(bindsRef(ruleset(), 'refs/tags/v1', 'main')).toBe(true);
    expect(bindsRef(ruleset(), 'refs/heads/v1', 'main')).toBe(false);
  });

  it('binds ~DEFAULT_BRANCH to the default branch only', () => {
    const branch = ruleset({ target: 'branch', include: ['~DEFAULT_BRANCH'] });
    expect(bindsRef(branch, 'refs/heads/main', 'main')).toBe(true);
    expect(bindsRef(branch, 'refs/heads/dev', 'main')).toBe(false);
  });

  it('reads an exclude broadly: a `*` that GitHub may read across `/` excludes what it could', () => {
    const excluding = ruleset({ exclude: ['refs/tags/v*'] });
    expect(bindsRef(excluding, 'refs/tags/v1/rc', 'main')).toBe(false);
    expect(bindsRef(excluding, 'refs/tags/w1', 'main')).toBe(true);
  });

  it.each([
    ['evaluate', { enforcement: 'evaluate' }],
    ['a bypass for pull requests', { bypass: 'pull_requests_only' }],
    ['an unanswered bypass', { bypass: null }],
    ['a push ruleset', { target: 'push' }],
    ['no include', { include: [] }],
    ['an exclude', { exclude: ['refs/tags/*'] }],
  ])('binds nothing with %s', (_name, overrides) => {
    expect(bindsRef(ruleset(overrides as Partial<RefRuleset>), 'refs/tags/v1', 'main')).toBe(false);
  });
});

describe('locksOn', () => {
  it('names the rulesets behind each lock rule, and ignores the other rules', () => {
    const locks = locksOn(
      'refs/tags/v1',
      [ruleset({ name: 'a' }), ruleset({ name: 'b', rules: ['deletion', 'creation', 'non_fast_forward'] })],
      'main',
    );
    expect(Object.fromEntries(locks)).toEqual({ update: ['a'], deletion: ['a', 'b'], creation: ['b'] });
  });
});
