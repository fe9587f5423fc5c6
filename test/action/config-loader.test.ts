import { describe, expect, it } from 'vitest';
import { ActionError, selectPerimeters } from '../../src/action/config-loader.js';
import { parseConfig } from '../../src/policy/index.js';

const config = parseConfig(`version: 1
perimeters:
  test-author:
    read: ["test/**"]
    write: ["test/**"]
    branches: ["agent/**"]
  implementer:
    read: ["src/**"]
    write: ["src/**"]
`);

function refusal(names: string[] | null, branch: string): string {
  try {
    selectPerimeters(config, names, branch);
  } catch (error) {
    expect(error).toBeInstanceOf(ActionError);
    return (error as Error).message;
  }
  throw new Error('expected an ActionError');
}

describe('selectPerimeters', () => {
  describe('when no names are given', () => {
    it('exposes every perimeter in file order', () => {
      expect(selectPerimeters(config, null, 'agent/x').map((p) => p.name)).toEqual([
        'test-author',
        'implementer',
      ]);
    });
  });

  describe('when names are given', () => {
    it('exposes only those', () => {
      expect(selectPerimeters(config, ['implementer'], 'main').map((p) => p.name)).toEqual(['implementer']);
    });
  });

  describe('when a name is unknown', () => {
    it('throws naming it and the defined ones', () => {
      expect(refusal(['implementor'], 'main')).toBe(
        'perimeters: no perimeter named "implementor" in perimeters.yml; it defines "test-author", "implementer"',
      );
    });
  });

  describe('when a perimeter may not be bound to the branch', () => {
    it('throws quoting its branches', () => {
      expect(refusal(null, 'main')).toBe(
        'branch "main" is not allowed for this perimeter: perimeter "test-author" allows branches ["agent/**"] (input branch)',
      );
    });
  });
});
