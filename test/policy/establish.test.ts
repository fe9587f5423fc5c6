import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  establish,
  EstablishRefusal,
  ExposureError,
  type EstablishFacts,
} from '../../src/policy/index.js';

const HEAD = 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678';
const FILE = `version: 1
trust:
  associations: [OWNER, MEMBER]
perimeters:
  implementer:
    write: ["src/**"]
  reviewer:
    tools: [get_file]
    untrusted-triggers: true
  releaser:
    write: ["CHANGELOG.md"]
    branches: [release]
`;

const comment = (login: string, association: string) => ({
  comment: { user: { login }, author_association: association },
  sender: { login },
});

const facts = (overrides: Partial<EstablishFacts> = {}): EstablishFacts => ({
  file: 'perimeters.yml',
  text: FILE,
  names: ['implementer', 'reviewer'],
  configRef: null,
  branch: 'agent/work',
  defaultBranch: 'main',
  eventName: 'issue_comment',
  event: comment('alice', 'MEMBER'),
  heads: { 'refs/heads/agent/work': HEAD, 'refs/heads/main': 'f'.repeat(40) },
  rulesets: [],
  ...overrides,
});

const names = (facts: EstablishFacts) => establish(facts).perimeters.map((p) => p.name);
const refusal = (run: () => unknown): EstablishRefusal => {
  try {
    run();
  } catch (error) {
    if (error instanceof EstablishRefusal) return error;
    throw error;
  }
  throw new Error('expected a refusal');
};

describe('establish', () => {
  describe('on a trusted trigger from the default branch', () => {
    it('judges with the named perimeters, and says why the trigger is trusted', () => {
      const established = establish(facts());
      expect(established.perimeters.map((p) => p.name)).toEqual(['implementer', 'reviewer']);
      expect(established.trust).toBe('trusted trigger: comment author "alice" is MEMBER');
      expect(established.warning).toBeNull();
      expect(established.config.file).toBe('perimeters.yml');
    });
    it('takes every perimeter that may be bound to the branch when none is named', () => {
      expect(names(facts({ names: null, branch: 'release' }))).toEqual([
        'implementer',
        'reviewer',
        'releaser',
      ]);
    });
  });

  describe('on an untrusted trigger', () => {
    it('keeps only the perimeters marked untrusted-triggers, naming what it withholds', () => {
      const established = establish(facts({ event: comment('mallory', 'NONE') }));
      expect(established.perimeters.map((p) => p.name)).toEqual(['reviewer']);
      expect(established.trust).toBe(
        'untrusted trigger: comment author "mallory" is NONE, not OWNER, MEMBER; exposing only "reviewer" ' +
          '(untrusted-triggers: true), withholding "implementer"',
      );
    });
    it('withholds nothing to name when every selected perimeter is marked', () => {
      expect(establish(facts({ names: ['reviewer'], event: comment('mallory', 'NONE') })).trust).toBe(
        'untrusted trigger: comment author "mallory" is NONE, not OWNER, MEMBER; exposing only "reviewer" ' +
          '(untrusted-triggers: true)',
      );
    });
    it('refuses when no selected perimeter is marked', () => {
      const refused = refusal(() =>
        establish(facts({ names: ['implementer'], event: comment('mallory', 'NONE') })),
      );
      expect(refused.rule).toBe('trust');
      expect(refused.name).toBe('EstablishRefusal');
      expect(refused.message).toBe(
        'untrusted trigger: comment author "mallory" is NONE, not OWNER, MEMBER; no selected perimeter ' +
          '("implementer") is marked "untrusted-triggers: true" in perimeters.yml, so none is exposed',
      );
    });
    it('names every selected perimeter when none is marked', () => {
      const text = FILE.replace('    branches: [release]\n', '    branches: ["agent/*"]\n');
      const names = ['implementer', 'releaser'];
      expect(
        refusal(() => establish(facts({ text, names, event: comment('mallory', 'NONE') }))).message,
      ).toContain('no selected perimeter ("implementer", "releaser") is marked');
    });
  });

  describe('without a trust rule', () => {
    it('keeps the selection whoever triggered the run', () => {
      const text = FILE.replace(/^trust:\n {2}associations: \[OWNER, MEMBER\]\n/m, '');
      const established = establish(facts({ text, event: comment('mallory', 'NONE') }));
      expect(established.perimeters.map((p) => p.name)).toEqual(['implementer', 'reviewer']);
      expect(established.trust).toBeNull();
    });
  });

  describe('from a config ref the job could have written', () => {
    it('refuses the bound branch, whatever the trigger', () => {
      const refused = refusal(() => establish(facts({ configRef: 'agent/work' })));
      expect(refused.rule).toBe('config-ref');
      expect(refused.message).toContain('names branch "agent/work"');
    });
    it('judges the ref by the perimeters the trigger leaves, not by every selected one', () => {
      // releaser may be bound to `release` too: it makes that branch writable only while it is exposed
      const text = FILE.replace('    branches: [release]\n', '    branches: ["agent/*", release]\n');
      const chosen = facts({ text, names: ['reviewer', 'releaser'], configRef: 'release' });
      expect(refusal(() => establish(chosen)).message).toContain('lets perimeter "releaser" be bound to it');
      const untrusted = refusal(() => establish({ ...chosen, event: comment('mallory', 'NONE') }));
      expect(untrusted.rule).toBe('config-ref');
      expect(untrusted.message).not.toContain('releaser');
    });
    it('warns when the default branch is read and is the bound branch', () => {
      const text = FILE.replace('    branches: [release]\n', '    branches: [release, main]\n');
      const established = establish(facts({ text, names: ['releaser'], branch: 'main' }));
      expect(established.warning).toContain('the perimeters come from the branch the agents write');
    });
    it('accepts a full commit SHA', () => {
      expect(establish(facts({ configRef: 'e'.repeat(40) })).warning).toBeNull();
    });
  });

  describe('on a file or a selection that cannot judge', () => {
    it('throws the config error of an invalid file', () => {
      expect(() => establish(facts({ text: 'version: 2\n' }))).toThrow(ConfigError);
    });
    it('throws the exposure error of a perimeter the file does not define', () => {
      expect(() => establish(facts({ names: ['implementor'] }))).toThrow(ExposureError);
    });
    it('throws the exposure error of a perimeter that may not be bound to the branch', () => {
      expect(() => establish(facts({ names: ['releaser'] }))).toThrow(ExposureError);
    });
  });
});
