import { describe, expect, it } from 'vitest';
import { compiledPerimeter } from '@perimeter/test-rigs';
import {
  configRefNeedsRulesets,
  judgeConfigRef,
  type ConfigRefFacts,
  type RefRuleset,
} from '../../src/policy/index.js';

const HEAD = 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678';
const facts = (overrides: Partial<ConfigRefFacts>): ConfigRefFacts => ({
  configRef: null,
  defaultBranch: 'main',
  branch: 'agent/work',
  perimeters: [
    compiledPerimeter({ name: 'implementer', write: ['src/**'] }),
    compiledPerimeter({ name: 'stager', write: ['src/**'], branches: ['staging'] }),
  ],
  heads: { 'refs/heads/agent/work': HEAD, 'refs/heads/main': 'f'.repeat(40), 'refs/tags/v1': HEAD },
  rulesets: [],
  ...overrides,
});

describe('judgeConfigRef', () => {
  describe("when the ref names the bound branch, in any of git's spellings", () => {
    it.each(['agent/work', 'heads/agent/work', 'refs/heads/agent/work'])('refuses %s', (configRef) => {
      expect(judgeConfigRef(facts({ configRef }))).toEqual({
        kind: 'refused',
        message: expect.stringContaining(
          'names branch "agent/work", and this job may write that branch (it is the bound branch)',
        ),
      });
    });
  });

  describe('when the ref names a branch an exposed perimeter may be bound to', () => {
    it('refuses it and names the perimeter', () => {
      expect(judgeConfigRef(facts({ configRef: 'staging' }))).toMatchObject({
        kind: 'refused',
        message: expect.stringContaining('lets perimeter "stager" be bound to it'),
      });
    });
  });

  describe('when the ref is a SHA that is the head of such a branch', () => {
    it('refuses it, full or abbreviated', () => {
      for (const configRef of [HEAD, HEAD.slice(0, 7).toUpperCase()])
        expect(judgeConfigRef(facts({ configRef }))).toMatchObject({
          kind: 'refused',
          message: expect.stringContaining('is the head of branch "agent/work"'),
        });
    });
  });

  describe('when the ref is the default branch or a full commit SHA', () => {
    it.each(['main', 'heads/main', 'refs/heads/main', 'f'.repeat(40), 'F'.repeat(40)])(
      'accepts %s without any ruleset',
      (configRef) => {
        expect(judgeConfigRef(facts({ configRef }))).toEqual({ kind: 'ok' });
        expect(configRefNeedsRulesets(configRef, 'main')).toBe(false);
      },
    );
  });

  describe('when the ref is an abbreviated SHA of no writable branch', () => {
    it('refuses it: a branch or tag could be named like it', () => {
      expect(judgeConfigRef(facts({ configRef: '0123456' }))).toEqual({
        kind: 'refused',
        message: expect.stringMatching(
          /^config-ref: "0123456" is an abbreviated commit SHA; give all 40 hex/,
        ),
      });
      expect(configRefNeedsRulesets('0123456', 'main')).toBe(false);
    });
  });

  describe('when the ref is a tag or another branch', () => {
    const ruleset = (overrides: Partial<RefRuleset>): RefRuleset => ({
      name: 'frozen tags',
      target: 'tag',
      enforcement: 'active',
      bypass: 'never',
      include: ['refs/tags/v*'],
      exclude: [],
      rules: ['update', 'deletion'],
      ...overrides,
    });
    /** the tag v1 locked, and the branch v1 (which does not exist) locked against creation */
    const locked = [
      ruleset({}),
      ruleset({ name: 'no v branches', target: 'branch', include: ['refs/heads/v*'], rules: ['creation'] }),
    ];

    it.each(['v1', 'tags/v1', 'refs/tags/v1', 'release', 'refs/heads/release'])(
      'refuses %s when no ruleset locks it, naming what is missing',
      (configRef) => {
        expect(configRefNeedsRulesets(configRef, 'main')).toBe(true);
        const verdict = judgeConfigRef(facts({ configRef }));
        expect(verdict).toEqual({
          kind: 'refused',
          message: expect.stringContaining(
            `config-ref: ${JSON.stringify(configRef)} is not the default branch "main" or a full commit SHA, ` +
              "and GitHub does not protect it from this job's token (",
          ),
        });
      },
    );

    it('accepts a tag locked against updates and deletion, and its branch spelling against creation', () => {
      expect(judgeConfigRef(facts({ configRef: 'v1', rulesets: locked }))).toEqual({ kind: 'ok' });
      expect(judgeConfigRef(facts({ configRef: 'refs/tags/v1', rulesets: [locked[0]!] }))).toEqual({
        kind: 'ok',
      });
    });

    it.each([
      [
        'a branch of the same name could be created',
        [locked[0]!],
        'refs/heads/v1 does not exist, and no ruleset restricts its creation',
      ],
      [
        'the tag could be moved',
        [ruleset({ rules: ['deletion'] }), locked[1]!],
        'refs/tags/v1 exists, and no ruleset restricts its updates',
      ],
      [
        'the tag could be deleted and made again',
        [ruleset({ rules: ['update'] }), locked[1]!],
        'refs/tags/v1 exists, and no ruleset restricts its deletion',
      ],
      [
        'the job may bypass the ruleset',
        [ruleset({ bypass: 'always' }), locked[1]!],
        'restricts its updates or deletion',
      ],
      [
        'the ruleset is only evaluated',
        [ruleset({ enforcement: 'evaluate' }), locked[1]!],
        'restricts its updates or deletion',
      ],
      [
        'the ruleset excludes it',
        [ruleset({ exclude: ['refs/tags/v?'] }), locked[1]!],
        'restricts its updates or deletion',
      ],
      [
        'the ruleset aims at branches',
        [ruleset({ target: 'branch' }), locked[1]!],
        'restricts its updates or deletion',
      ],
    ])('refuses the tag when %s', (_name, rulesets, missing) => {
      const verdict = judgeConfigRef(facts({ configRef: 'v1', rulesets }));
      expect(verdict.kind).toBe('refused');
      expect(verdict.kind === 'refused' && verdict.message).toContain(missing);
    });

    it('still refuses a branch the job may write, whatever locks it', () => {
      const all = ruleset({ target: 'branch', include: ['~ALL'], rules: ['creation', 'update', 'deletion'] });
      expect(judgeConfigRef(facts({ configRef: 'staging', rulesets: [all] }))).toMatchObject({
        kind: 'refused',
        message: expect.stringContaining('this job may write that branch'),
      });
    });
  });

  describe('when no ref is given and the default branch is the bound branch', () => {
    it('warns, and accepts otherwise', () => {
      expect(judgeConfigRef(facts({ branch: 'main' })).kind).toBe('warning');
      expect(judgeConfigRef(facts({}))).toEqual({ kind: 'ok' });
    });
  });
});
