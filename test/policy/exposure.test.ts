import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkBranch,
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

function refusal(names: string[] | null, branch: string): ExposureError {
  try {
    selectPerimeters(config, names, branch);
  } catch (error) {
    expect(error).toBeInstanceOf(ExposureError);
    return error as ExposureError;
  }
  throw new Error('expected an ExposureError');
}

describe('selectPerimeters', () => {
  describe('when no names are given', () => {
    it('exposes every perimeter in file order', () => {
      expect(selectPerimeters(config, null, 'agent/x').map((p) => p.name)).toEqual([
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
      const chosen = selectPerimeters(config, ['docs', 'implementer'], 'docs/a');
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
            expect(selectPerimeters(config, chosen, branch).map((p) => p.name)).toEqual(expected);
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
    expect(() => checkBranch(selectPerimeters(config, ['implementer'], 'main'), 'main')).not.toThrow();
  });
});
