import {
  DEFAULT_CONFIG_FILE,
  OPTIONAL_FAMILY_NAMES,
  protectedRule,
  validatePath,
} from '../../policy/index.js';

/**
 * What `perimeter init` proposes from a checkout's tracked files: one perimeter per role it finds (docs,
 * tests, source), each with the globs that cover the files of that role and the evidence for it. The tests'
 * and the source's perimeters are named as README's workflows name them (`test-author`, `implementer`), so a
 * workflow pasted from there runs on the proposal as it is. Pure: the command lists the files, this decides.
 */
export interface RoleProposal {
  name: 'docs' | 'test-author' | 'implementer';
  description: string;
  read: string[];
  write: string[];
  /** Globs the role may neither read nor write (tests living beside the source they test). */
  deny: string[];
  /** Tracked files its write globs cover (protected files excluded: nothing writes those). */
  files: number;
  /** Why each write glob is there, one line each. */
  evidence: string[];
  /** The pull requests the pull-request gate judges by this perimeter (init --workflow gate). */
  pullRequests?: { authors: string[]; branches: string[] };
}

export interface Proposal {
  roles: RoleProposal[];
  /** Optional protected families with tracked files, switched on for every perimeter. */
  protect: string[];
  /** Tracked files in the protected set (always, or by the families above): humans keep these. */
  protectedFiles: Array<{ path: string; rule: string }>;
  /** Tracked files no role writes (build files, root scripts...): the owner decides. */
  unassigned: string[];
}

const DOC_DIRS = ['docs', 'doc', 'documentation', 'site', 'website'];
const TEST_DIRS = ['test', 'tests', 'spec', 'specs', '__tests__', 'e2e', 'testdata', 'integration-tests'];
const SOURCE_DIRS = ['src', 'lib', 'app', 'apps', 'pkg', 'cmd', 'internal', 'packages', 'crates', 'source'];
const DOC_FILE = /\.(md|mdx|rst|adoc|txt)$/i;
const CODE_FILE =
  /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs|py|go|rs|java|kt|kts|scala|rb|php|cs|fs|c|h|cc|cpp|hpp|m|mm|swift|ex|exs|erl|hs|ml|clj|lua|dart|vue|svelte|sh|sql|zig|nim|r|jl)$/i;
/** Test files by name, wherever they live, and the glob that covers each kind (from the name's own parts). */
const TEST_FILE_KINDS: Array<{ pattern: RegExp; glob: (match: RegExpExecArray) => string }> = [
  { pattern: /\.(test|spec)\.([a-z0-9]+)$/i, glob: (m) => `**/*.${m[1]}.${m[2]}` },
  { pattern: /_test\.(go|py|exs|rb)$/i, glob: (m) => `**/*_test.${m[1]}` },
  { pattern: /(?:^|\/)test_[^/]*\.py$/, glob: () => '**/test_*.py' },
  { pattern: /(Test|Tests|Spec)\.(java|kt|scala|cs|swift)$/, glob: (m) => `**/*${m[1]}.${m[2]}` },
];

function testGlobFor(path: string): string | null {
  for (const kind of TEST_FILE_KINDS) {
    const match = kind.pattern.exec(path);
    if (match !== null) return kind.glob(match);
  }
  return null;
}

const topDir = (path: string): string | null =>
  path.includes('/') ? path.slice(0, path.indexOf('/')) : null;

function inDirs(path: string, dirs: readonly string[]): boolean {
  return path
    .split('/')
    .slice(0, -1)
    .some((segment) => dirs.includes(segment.toLowerCase()));
}

export function proposePerimeters(
  trackedFiles: readonly string[],
  configFile = DEFAULT_CONFIG_FILE,
): Proposal {
  const files = trackedFiles.filter((path) => validatePath(path).ok);
  const builtIn = (path: string) => protectedRule(path, configFile, []) !== null;
  const protect = OPTIONAL_FAMILY_NAMES.filter((family) =>
    files.some((path) => !builtIn(path) && protectedRule(path, configFile, [family]) !== null),
  );
  const protectedFiles: Proposal['protectedFiles'] = [];
  const writable: string[] = [];
  for (const path of files) {
    const rule = protectedRule(path, configFile, protect);
    if (rule === null) writable.push(path);
    else protectedFiles.push({ path, rule });
  }

  const docDirs = new Set<string>();
  const docFiles = new Set<string>();
  const testDirs = new Set<string>();
  const nestedTestDirs = new Set<string>();
  const testGlobs = new Set<string>();
  const sourceDirs = new Set<string>();
  const counts = { docs: 0, tests: 0, source: 0 };
  const unassigned: string[] = [];
  for (const path of writable) {
    const top = topDir(path);
    const testGlob = testGlobFor(path);
    if (top !== null && TEST_DIRS.includes(top.toLowerCase())) {
      testDirs.add(top);
      counts.tests++;
    } else if (testGlob !== null) {
      testGlobs.add(testGlob);
      counts.tests++;
    } else if (top !== null && inDirs(path, TEST_DIRS)) {
      const segments = path.split('/');
      const at = segments.findIndex((s, i) => i < segments.length - 1 && TEST_DIRS.includes(s.toLowerCase()));
      nestedTestDirs.add(segments[at]!);
      counts.tests++;
    } else if (top !== null && DOC_DIRS.includes(top.toLowerCase())) {
      docDirs.add(top);
      counts.docs++;
    } else if (top === null && DOC_FILE.test(path)) {
      docFiles.add(path);
      counts.docs++;
    } else if (top !== null && (SOURCE_DIRS.includes(top.toLowerCase()) || CODE_FILE.test(path))) {
      sourceDirs.add(top);
      counts.source++;
    } else {
      unassigned.push(path);
    }
  }
  // A top-level folder holding code but also picked as docs or tests stays with that role.
  for (const dir of [...docDirs, ...testDirs]) sourceDirs.delete(dir);
  // Source folders take every file under them that no other role claimed.
  for (const path of unassigned.splice(0)) {
    const top = topDir(path);
    if (top !== null && sourceDirs.has(top)) counts.source++;
    else unassigned.push(path);
  }

  const sorted = (set: Set<string>) => [...set].sort();
  const dirGlobs = (set: Set<string>) => sorted(set).map((dir) => `${dir}/**`);
  const docsWrite = [...dirGlobs(docDirs), ...sorted(docFiles)];
  const testsWrite = [
    ...dirGlobs(testDirs),
    ...sorted(nestedTestDirs).map((dir) => `**/${dir}/**`),
    ...sorted(testGlobs),
  ];
  const sourceWrite = dirGlobs(sourceDirs);
  // Tests beside the source: the source perimeter must not be able to rewrite them.
  const colocated = [...sorted(nestedTestDirs).map((dir) => `**/${dir}/**`), ...sorted(testGlobs)];

  const roles: RoleProposal[] = [];
  if (docsWrite.length > 0) {
    roles.push({
      name: 'docs',
      description: 'Writes the documentation; reads it and nothing else.',
      read: docsWrite,
      write: docsWrite,
      deny: [],
      files: counts.docs,
      evidence: [
        ...sorted(docDirs).map((dir) => `${dir}/: documentation folder`),
        ...(docFiles.size > 0
          ? [`${docFiles.size} top-level text file(s): ${sorted(docFiles).join(', ')}`]
          : []),
      ],
    });
  }
  if (testsWrite.length > 0) {
    roles.push({
      name: 'test-author',
      description: 'Writes the tests from the docs and the source; cannot change the source it tests.',
      read: [...docsWrite, ...sourceWrite, ...testsWrite],
      write: testsWrite,
      deny: [],
      files: counts.tests,
      evidence: [
        ...sorted(testDirs).map((dir) => `${dir}/: test folder`),
        ...sorted(nestedTestDirs).map((dir) => `${dir}/ folders inside other folders`),
        ...sorted(testGlobs).map((glob) => `test files by name: ${glob}`),
      ],
    });
  }
  if (sourceWrite.length > 0) {
    roles.push({
      name: 'implementer',
      description: 'Implements; cannot change the tests it has to pass.',
      read: ['**'],
      write: sourceWrite,
      deny: colocated,
      files: counts.source,
      evidence: sorted(sourceDirs).map(
        (dir) => `${dir}/: ${SOURCE_DIRS.includes(dir.toLowerCase()) ? 'source folder' : 'holds code'}`,
      ),
    });
  }
  return { roles, protect, protectedFiles, unassigned: unassigned.sort() };
}
