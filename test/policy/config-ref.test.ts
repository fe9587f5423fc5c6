import { describe, expect, it } from 'vitest';
import { compiledPerimeter } from '@perimeter/test-rigs';
import { judgeConfigRef, type ConfigRefFacts } from '../../src/policy/index.js';

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

  describe('when the ref is a tag, the default branch or another commit', () => {
    it('accepts it', () => {
      for (const configRef of ['refs/tags/v1', 'main', 'f'.repeat(40), '0123456'])
        expect(judgeConfigRef(facts({ configRef }))).toEqual({ kind: 'ok' });
    });
  });

  describe('when no ref is given and the default branch is the bound branch', () => {
    it('warns, and accepts otherwise', () => {
      expect(judgeConfigRef(facts({ branch: 'main' })).kind).toBe('warning');
      expect(judgeConfigRef(facts({}))).toEqual({ kind: 'ok' });
    });
  });
});
