import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { proposePerimeters } from '../../src/cli/init/layout.js';
import { renderProposal } from '../../src/cli/init/init-yaml.js';
import { compilePerimeter, parseConfig, protectedRule } from '../../src/policy/index.js';

/** Ground truth, written apart from layout.ts: a file is a test when a folder on its way is a test folder or its name says so. */
const TEST_FOLDERS = new Set([
  'test',
  'tests',
  'spec',
  'specs',
  '__tests__',
  'e2e',
  'testdata',
  'integration-tests',
]);
const isTest = (path: string) => {
  const segments = path.split('/');
  const name = segments.pop()!;
  return (
    segments.some((s) => TEST_FOLDERS.has(s.toLowerCase())) ||
    /\.(test|spec)\.[a-z0-9]+$/i.test(name) ||
    /_test\.(go|py|exs|rb)$/i.test(name) ||
    /^test_.*\.py$/.test(name) ||
    /(Test|Tests|Spec)\.(java|kt|scala|cs|swift)$/.test(name)
  );
};

const folder = fc.constantFrom(
  'src',
  'lib',
  'test',
  'tests',
  'Tests',
  'docs',
  'spec',
  'e2e',
  'app',
  'pkg',
  'assets',
  'util',
  '__tests__',
  'scripts',
  '.github',
  '.claude',
);
const name = fc.constantFrom(
  'a.ts',
  'a.test.ts',
  'b.spec.js',
  'main.go',
  'main_test.go',
  'test_x.py',
  'x.py',
  'FooTest.java',
  'Foo.java',
  'README.md',
  'guide.md',
  'logo.png',
  'package.json',
  'CLAUDE.md',
  'Cargo.toml',
  'data.json',
  'x.rs',
);
const file = fc.tuple(fc.array(folder, { maxLength: 3 }), name).map(([dirs, n]) => [...dirs, n].join('/'));
const files = fc.uniqueArray(file, { minLength: 1, maxLength: 40 });

function compiled(tracked: string[]) {
  const proposal = proposePerimeters(tracked);
  fc.pre(proposal.roles.length > 0); // init refuses to write a config without perimeters
  const config = parseConfig(renderProposal(proposal), 'perimeters.yml');
  return { proposal, perimeters: new Map(config.perimeters.map((s) => [s.name, compilePerimeter(s)])) };
}

describe('proposePerimeters', () => {
  it('always renders a config that parses, and never lets one role write what belongs to another', () => {
    fc.assert(
      fc.property(files, (tracked) => {
        const { proposal, perimeters } = compiled(tracked);
        for (const path of tracked) {
          const source = perimeters.get('implementer');
          const tests = perimeters.get('test-author');
          // the implementer never rewrites a test; the test writer never changes what it tests
          if (isTest(path)) expect(source?.canWrite(path).allowed ?? false, path).toBe(false);
          else expect(tests?.canWrite(path).allowed ?? false, path).toBe(false);
          // nothing writes the protected set (built in, or the families the proposal switched on)
          if (protectedRule(path, 'perimeters.yml', proposal.protect) !== null)
            for (const p of perimeters.values())
              expect(p.canWrite(path).allowed, `${p.name} ${path}`).toBe(false);
        }
        expect(proposal.roles.map((r) => r.name)).toEqual([...perimeters.keys()]);
        // the names README's workflows use, or the checks above would hold of perimeters that are not there
        for (const name of perimeters.keys()) expect(['docs', 'test-author', 'implementer']).toContain(name);
      }),
      { numRuns: 300 },
    );
  });

  it('gives every tracked file a writer or lists it as unassigned or protected', () => {
    fc.assert(
      fc.property(files, (tracked) => {
        const { proposal, perimeters } = compiled(tracked);
        const unassigned = new Set(proposal.unassigned);
        const protectedFiles = new Set(proposal.protectedFiles.map((f) => f.path));
        for (const path of tracked) {
          const written = [...perimeters.values()].some((p) => p.canWrite(path).allowed);
          expect(written || unassigned.has(path) || protectedFiles.has(path), path).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  describe('when tests live beside the source', () => {
    it('denies them to the source perimeter by the glob of their kind', () => {
      const { roles } = proposePerimeters(['src/a.ts', 'src/a.test.ts', 'src/__tests__/b.ts', 'README.md']);
      const source = roles.find((r) => r.name === 'implementer')!;
      expect(source.write).toEqual(['src/**']);
      expect(source.deny).toEqual(['**/__tests__/**', '**/*.test.ts']);
      expect(roles.find((r) => r.name === 'test-author')!.write).toEqual(['**/__tests__/**', '**/*.test.ts']);
    });
  });

  describe('when manifests are tracked', () => {
    it('switches the manifests family on and lists them as protected', () => {
      const proposal = proposePerimeters(['package.json', 'src/a.ts', 'CLAUDE.md']);
      expect(proposal.protect).toEqual(['manifests']);
      expect(proposal.protectedFiles.map((f) => f.path)).toEqual(['package.json', 'CLAUDE.md']);
    });
  });
});
