import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkBranch,
  checkDefaultBranch,
  compilePerimeter,
  ExposureError,
  parseConfig,
  selectPerimeters,
} from '../../src/policy/index.js';

const config = parseConfig(`version: 1
perimeters:
  test-author:
    read: ["test/**"]
    write: ["test/**"]
    branches: ["agent/**"]
  implementer:
    read: ["src/**"]
    write: ["src/**"]
  docs:
    read: ["docs/**"]
    write: ["docs/**"]
    branches: ["docs/*", "agent/**"]
`);

/** the repository's default branch in these tests, unless a test binds to it on purpose */
const TRUNK = 'trunk';

function refusal(names: string[] | null, branch: string, defaultBranch = TRUNK): ExposureError {
  try {
    selectPerimeters(config, names, branch, defaultBranch);
  } catch (error) {
    expect(error).toBeInstanceOf(ExposureError);
    return error as ExposureError;
  }
  throw new Error('expected an ExposureError');
}

describe('selectPerimeters', () => {
  describe('when no names are given', () => {
    it('exposes every perimeter in file order', () => {
      expect(selectPerimeters(config, null, 'agent/x', TRUNK).map((p) => p.name)).toEqual([
        'test-author',
        'implementer',
        'docs',
      ]);
    });

    it('refuses, never skips, the perimeters that may not be bound to the branch', () => {
      const error = refusal(null, 'main');
      expect(error.code).toBe('branch-not-allowed');
      expect(error.perimeters).toEqual(['test-author', 'docs']);
      expect(error.message).toBe(
        'branch "main" is not allowed for these perimeters: perimeter "test-author" allows branches ["agent/**"]; perimeter "docs" allows branches ["docs/*","agent/**"]',
      );
    });
  });

  describe('when names are given', () => {
    it('exposes only those, in file order, compiled against the config file', () => {
      const chosen = selectPerimeters(config, ['docs', 'implementer'], 'docs/a', TRUNK);
      expect(chosen.map((p) => p.name)).toEqual(['implementer', 'docs']);
      expect(chosen[0]!.canWrite('perimeters.yml').allowed).toBe(false);
    });
  });

  describe('when a name is unknown', () => {
    it('throws naming it and the defined ones', () => {
      const error = refusal(['implementor', 'implementer'], 'main');
      expect(error.code).toBe('unknown-perimeter');
      expect(error.perimeters).toEqual(['implementor']);
      expect(error.message).toBe(
        'no perimeter named "implementor" in perimeters.yml; it defines "test-author", "implementer", "docs"',
      );
    });
  });

  describe('when the selection is empty', () => {
    it('throws', () => expect(refusal([], 'main').code).toBe('no-perimeter'));
  });

  it('exposes exactly the chosen perimeters when all may use the branch, else names each one that may not', () => {
    const names = config.perimeters.map((p) => p.name);
    const allows = (name: string, branch: string): boolean =>
      compilePerimeter(config.perimeters.find((p) => p.name === name)!).allowsBranch(branch);
    fc.assert(
      fc.property(
        fc.option(fc.subarray(names, { minLength: 1 }), { nil: null }),
        fc.constantFrom('main', 'agent/x', 'docs/a', 'docs/a/b', ''),
        (chosen, branch) => {
          const expected = names.filter((n) => (chosen ?? names).includes(n));
          const refusing = expected.filter((n) => !allows(n, branch));
          if (refusing.length === 0) {
            expect(selectPerimeters(config, chosen, branch, TRUNK).map((p) => p.name)).toEqual(expected);
          } else {
            const error = refusal(chosen, branch);
            expect(error.code).toBe('branch-not-allowed');
            expect(error.perimeters).toEqual(refusing);
          }
        },
      ),
    );
  });
});

describe('checkBranch', () => {
  it('accepts perimeters that may all use the branch', () => {
    expect(() => checkBranch(selectPerimeters(config, ['implementer'], 'main', TRUNK), 'main')).not.toThrow();
  });
});

describe('checkDefaultBranch', () => {
  const named = parseConfig(`version: 1
perimeters:
  release:
    read: ["**"]
    write: ["CHANGELOG.md"]
    branches: ["main", "release/*"]
  anywhere:
    read: ["**"]
    write: ["src/**"]
  starred:
    read: ["**"]
    write: ["src/**"]
    branches: ["*"]
`);
  const compiled = (...names: string[]) =>
    named.perimeters.filter((p) => names.includes(p.name)).map((p) => compilePerimeter(p));

  describe('when the bound branch is not the default branch', () => {
    it('accepts a perimeter with no branches list', () => {
      expect(() => checkDefaultBranch(compiled('anywhere'), 'agent/x', 'main')).not.toThrow();
    });
  });

  describe('when the bound branch is the default branch', () => {
    it('accepts a perimeter whose branches list names it', () => {
      expect(() => checkDefaultBranch(compiled('release'), 'main', 'main')).not.toThrow();
    });

    it('refuses a perimeter with no branches list, and one whose glob only happens to match it', () => {
      let error: unknown;
      try {
        checkDefaultBranch(compiled('release', 'anywhere', 'starred'), 'main', 'main');
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ExposureError);
      expect((error as ExposureError).code).toBe('default-branch-not-named');
      expect((error as ExposureError).perimeters).toEqual(['anywhere', 'starred']);
      expect((error as ExposureError).message).toBe(
        'branch "main" is the repository\'s default branch, and a perimeter may be bound to it only when its ' +
          'branches list names it: perimeter "anywhere" has no branches list; perimeter "starred" has branches ' +
          '["*"]. Bind the agents to another branch, or add "main" to branches',
      );
    });
  });

  describe('when the default branch is unknown', () => {
    it('throws rather than judging nothing', () => {
      expect(() => checkDefaultBranch(compiled('anywhere'), 'main', '')).toThrow(/default branch is unknown/);
    });
  });

  describe('through selectPerimeters', () => {
    it('refuses a selection bound to the default branch that does not name it', () => {
      expect(refusal(['implementer'], 'main', 'main').code).toBe('default-branch-not-named');
    });
  });
});
