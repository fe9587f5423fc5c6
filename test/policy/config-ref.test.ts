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

  describe('says the whole of each reason', () => {
    const UNMOVABLE =
      'Read the perimeters file from the default branch, a full commit SHA, or a branch or tag that an active ' +
      'ruleset nobody in the job can bypass protects with "Restrict updates" and "Restrict deletions" ' +
      '(and "Restrict creations" for the spelling that does not exist)';

    it('for the default branch that is also the bound branch', () => {
      expect(judgeConfigRef(facts({ branch: 'main' }))).toEqual({
        kind: 'warning',
        message:
          'config-ref: not given, so the default branch "main" is read, and it is also the bound branch: the ' +
          'perimeters come from the branch the agents write. The file is protected there, but whoever may push ' +
          'to that branch picks the perimeters; pin a tag or a branch no perimeter may write',
      });
    });

    it('for a branch a perimeter may be bound to', () => {
      expect(judgeConfigRef(facts({ configRef: 'staging' }))).toEqual({
        kind: 'refused',
        message:
          'config-ref: "staging" names branch "staging", and this job may write that branch (its branches list ' +
          'lets perimeter "stager" be bound to it); a branch that may be written could widen its own perimeter. ' +
          'Read the perimeters file from the default branch, a tag, or a branch no exposed perimeter may be bound to',
      });
    });

    it('for a branch two perimeters may be bound to, naming both', () => {
      const perimeters = ['stager', 'releaser'].map((name) =>
        compiledPerimeter({ name, write: ['src/**'], branches: ['staging'] }),
      );
      expect(judgeConfigRef(facts({ configRef: 'staging', perimeters }))).toMatchObject({
        message: expect.stringContaining(
          '(its branches list lets perimeter "stager", "releaser" be bound to it)',
        ),
      });
    });

    it('for a ref nothing locks, naming each spelling git may read it as', () => {
      expect(judgeConfigRef(facts({ configRef: 'v1' }))).toEqual({
        kind: 'refused',
        message:
          'config-ref: "v1" is not the default branch "main" or a full commit SHA, and GitHub does not protect it ' +
          "from this job's token (refs/heads/v1 does not exist, and no ruleset restricts its creation; " +
          "refs/tags/v1 exists, and no ruleset restricts its updates or deletion): the agent's job could move or " +
          `create it and choose its own perimeters. ${UNMOVABLE}`,
      });
    });

    it('for an abbreviated SHA', () => {
      expect(judgeConfigRef(facts({ configRef: '0123456' }))).toEqual({
        kind: 'refused',
        message: `config-ref: "0123456" is an abbreviated commit SHA; give all 40 hex digits. ${UNMOVABLE}`,
      });
    });
  });

  describe('when a name only looks like a commit SHA', () => {
    it.each(['cafe1234-work', 'work-cafe1234', `${'c'.repeat(40)}-x`, `x-${'c'.repeat(40)}`])(
      'judges %s as the branch or tag it is',
      (configRef) => {
        expect(judgeConfigRef(facts({ configRef }))).toMatchObject({
          kind: 'refused',
          message: expect.stringContaining(`${JSON.stringify(configRef)} is not the default branch "main"`),
        });
        expect(configRefNeedsRulesets(configRef, 'main')).toBe(true);
      },
    );

    it('needs no rulesets without a ref, or for the default branch', () => {
      expect(configRefNeedsRulesets(null, 'main')).toBe(false);
      expect(configRefNeedsRulesets('refs/heads/main', 'main')).toBe(false);
    });
  });

  describe('when a perimeter may be bound to any branch', () => {
    const anywhere = [compiledPerimeter({ name: 'roamer', write: ['src/**'], branches: ['**'] })];
    const tagLock: RefRuleset = {
      name: 'frozen tags',
      target: 'tag',
      enforcement: 'active',
      bypass: 'never',
      include: ['refs/tags/v*'],
      exclude: [],
      rules: ['update', 'deletion'],
    };
    const branchLock: RefRuleset = {
      ...tagLock,
      name: 'release',
      target: 'branch',
      include: ['refs/heads/release'],
    };

    it('still reads a tag, in each spelling, as a tag (not a branch of that name)', () => {
      for (const configRef of ['refs/tags/v1', 'tags/v1'])
        expect(judgeConfigRef(facts({ configRef, perimeters: anywhere, rulesets: [tagLock] }))).toEqual({
          kind: 'ok',
        });
    });

    it('reads heads/x as the branch x only', () => {
      const heads = { 'refs/heads/release': 'a'.repeat(40) };
      expect(
        judgeConfigRef(facts({ configRef: 'heads/release', heads, perimeters: [], rulesets: [branchLock] })),
      ).toEqual({ kind: 'ok' });
    });

    it('reads a full SHA as a commit, unless a branch has it as its head', () => {
      const sha = 'd'.repeat(40);
      expect(judgeConfigRef(facts({ configRef: sha, perimeters: anywhere, heads: {} }))).toEqual({
        kind: 'ok',
      });
      expect(
        judgeConfigRef(facts({ configRef: sha, perimeters: anywhere, heads: { 'refs/tags/v1': sha } })),
      ).toEqual({ kind: 'ok' });
      expect(
        judgeConfigRef(facts({ configRef: sha, perimeters: anywhere, heads: { 'refs/heads/x': sha } })),
      ).toMatchObject({ kind: 'refused', message: expect.stringContaining('is the head of branch "x"') });
    });
  });

  describe('when several branches have the SHA as their head', () => {
    const sha = 'e'.repeat(40);
    it.each([
      ['first', { 'refs/heads/agent/work': sha, 'refs/heads/main': sha }],
      ['last', { 'refs/heads/main': sha, 'refs/heads/agent/work': sha }],
    ])('refuses it when the writable one comes %s', (_, heads) => {
      expect(judgeConfigRef(facts({ configRef: sha, heads }))).toMatchObject({
        kind: 'refused',
        message: expect.stringContaining('is the head of branch "agent/work"'),
      });
    });
  });
});
