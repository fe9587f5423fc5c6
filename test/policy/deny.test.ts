import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compilePerimeter, parseConfig, type PerimeterSpec } from '../../src/policy/index.js';
import { perimeterSpec } from '@perimeter/test-rigs';

function perimeter(yaml: string, name = 'p') {
  const config = parseConfig(yaml);
  return compilePerimeter(config.perimeters.find((p) => p.name === name) as PerimeterSpec, config.file);
}

const EVERYTHING_EXCEPT = `version: 1
deny: ["secrets/**"]
perimeters:
  p:
    read: ["**"]
    write: ["**"]
    deny: ["package.json", "**/*.lock"]
    allow-protected: ["**"]
    allow-credential-files: ["**"]
`;

describe('deny globs', () => {
  describe('when a path matches a perimeter deny glob', () => {
    it('refuses reading and writing it and names the deny glob, whatever grants it', () => {
      const p = perimeter(EVERYTHING_EXCEPT);
      expect(p.canWrite('package.json')).toEqual({ allowed: false, rule: 'deny glob "package.json"' });
      expect(p.canRead('package.json')).toEqual({ allowed: false, rule: 'deny glob "package.json"' });
      expect(p.canWrite('a/b/yarn.lock')).toEqual({ allowed: false, rule: 'deny glob "**/*.lock"' });
      expect(p.canWrite('src/index.ts')).toEqual({ allowed: true, rule: 'write glob "**"' });
      expect(p.canWrite('sub/package.json').allowed).toBe(true);
    });
  });

  describe('when a path matches a top-level deny glob', () => {
    it('refuses it in every perimeter and says the rule is top-level', () => {
      const p = perimeter(EVERYTHING_EXCEPT);
      expect(p.canRead('secrets/prod.txt')).toEqual({
        allowed: false,
        rule: 'top-level deny glob "secrets/**"',
      });
      expect(p.canWrite('secrets/prod.txt').rule).toBe('top-level deny glob "secrets/**"');
    });
  });

  describe('when denials and grants are generated', () => {
    it('never allows a denied path, for reads or writes', () => {
      const segment = fc.constantFrom('a', 'b', 'src', 'x.lock', 'package.json', '.env');
      const path = fc.array(segment, { minLength: 1, maxLength: 4 }).map((s) => s.join('/'));
      const glob = fc.constantFrom(
        '**',
        'a/**',
        '**/*.lock',
        'package.json',
        'src/*',
        '*',
        '**/b/**',
        '{a,b}/**',
      );
      fc.assert(
        fc.property(
          fc.uniqueArray(glob, { maxLength: 3 }),
          fc.uniqueArray(glob, { maxLength: 3 }),
          path,
          (grants, denials, p) => {
            const spec = perimeterSpec({
              read: grants,
              write: grants,
              allowProtected: ['**'],
              allowCredentialFiles: ['**'],
              deny: denials,
            });
            const compiled = compilePerimeter(spec);
            const deniedBy = compilePerimeter({ ...spec, read: denials, deny: [] }).canRead(p);
            if (deniedBy.allowed) {
              expect(compiled.canRead(p)).toEqual({
                allowed: false,
                rule: expect.stringMatching(/^deny glob /),
              });
              expect(compiled.canWrite(p)).toEqual({
                allowed: false,
                rule: expect.stringMatching(/^deny glob /),
              });
            }
          },
        ),
        { numRuns: 500 },
      );
    });
  });
});

describe('optional protected families', () => {
  describe('when manifests are switched on at the top level', () => {
    it('refuses writing them without allow-protected and names the family', () => {
      const p = perimeter('version: 1\nprotect: [manifests]\nperimeters:\n  p:\n    write: ["**"]\n');
      expect(p.canWrite('package.json')).toEqual({
        allowed: false,
        rule: 'protected: package.json, manifests family',
      });
      expect(p.canWrite('go.sum').rule).toBe('protected: go.sum, manifests family');
      expect(p.canWrite('src/a.ts').allowed).toBe(true);
    });
  });

  describe('when a family is switched on for one perimeter', () => {
    it('protects it there only', () => {
      const yaml =
        'version: 1\nperimeters:\n  p:\n    write: ["**"]\n    protect: [ci]\n  q:\n    write: ["**"]\n';
      expect(perimeter(yaml, 'p').canWrite('.travis.yml').rule).toBe('protected: .travis.yml, ci family');
      expect(perimeter(yaml, 'q').canWrite('.travis.yml').allowed).toBe(true);
    });
  });

  describe('when allow-protected names a family member', () => {
    it('allows writing it', () => {
      const p = perimeter(
        'version: 1\nprotect: [manifests]\nperimeters:\n  p:\n    write: ["**"]\n    allow-protected: ["package.json"]\n',
      );
      expect(p.canWrite('package.json')).toEqual({
        allowed: true,
        rule: 'write glob "**", allow-protected "package.json"',
      });
    });
  });
});
