import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import noImportCycle from './eslint/no-import-cycle.js';
import wings from './eslint/wings.js';

// One list per file: a later no-restricted-imports for the same file would replace an earlier one.
const restrict = (files, patterns) => ({
  files,
  rules: { 'no-restricted-imports': ['error', { patterns }] },
});

// The workspace packages (packages/*) are used by name, through their public entry; test/ is for tests only.
const BY_ENTRY = [
  {
    regex: '(^|/)packages/',
    message: 'import a workspace package by its name (its public entry), not by path',
  },
  {
    group: ['@perimeter/*/**'],
    message: 'import a workspace package through its public entry, not its files',
  },
];
const NO_TESTS = [
  {
    regex: '(^|/)test/',
    message: 'only tests import from test/; what others share lives in packages/ (by name)',
  },
];
// src/ is what ships in dist/: it never depends on the stand-in or the test rigs.
const SHIPPED = [
  ...BY_ENTRY,
  ...NO_TESTS,
  { group: ['@perimeter/*'], message: 'src/ never imports the test packages' },
  {
    group: ['**/github/*', '!**/github/index.js', '**/verify/*', '!**/verify/index.js'],
    message: 'src/github and src/verify are reached through their entry, index.js',
  },
  {
    group: ['**/policy/*', '!**/policy/index.js'],
    message: 'src/policy is reached through its entry, index.js',
  },
];

// Dependencies point one way: policy, ledger, clients <- github, verify, gateway, safety <- action, cli.
const layer = (files, ...rules) =>
  restrict(files, [...SHIPPED, ...rules.map(([forbidden, message]) => ({ group: forbidden, message }))]);

const PURE = [
  ['../*', '@actions/*', 'node:fs*', 'node:child_process', 'node:net', 'node:http'],
  'policy is pure: no I/O and nothing else from src',
];
// a folder inside src/policy reaches its siblings by ../ but nothing above src/policy
const PURE_NESTED = [
  ['../../*', '@actions/*', 'node:fs*', 'node:child_process', 'node:net', 'node:http'],
  PURE[1],
];
const RUNNER = [['@actions/core', '**/action/*', '**/cli/*'], 'only src/action talks to the runner'];
const APART =
  'the gateway and the verifier share only policy, github, safety and ledger: the post check runs no gateway code';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.stryker-tmp/**', 'reports/**', '.cache/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  { languageOptions: { globals: { ...globals.node } } },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['**/*.ts'],
    plugins: { perimeter: { rules: { 'no-import-cycle': noImportCycle, wings } } },
    rules: {
      'perimeter/no-import-cycle': 'error',
      'perimeter/wings': ['error', { folders: ['src/action', 'src/gateway', 'src/github', 'src/verify'] }],
    },
  },
  restrict(['**/*.{ts,mts,js,mjs}'], [...BY_ENTRY, ...NO_TESTS]),
  restrict(['test/**', 'packages/*/test/**'], BY_ENTRY),
  restrict(
    ['packages/fake-github/**'],
    [
      ...BY_ENTRY,
      ...NO_TESTS,
      {
        group: ['@perimeter/test-rigs'],
        message: 'the stand-in stands alone: the rigs use it, not the other way',
      },
      { regex: '^(\\.\\./){2,}src/', message: 'the stand-in stands alone: it knows GitHub, not Perimeter' },
    ],
  ),
  restrict(['src/**'], SHIPPED),
  layer(['src/policy/*.ts'], PURE),
  layer(['src/policy/*/**'], PURE_NESTED),
  layer(
    ['src/ledger/**'],
    [['../*', '@actions/*'], 'the ledger (record format, writer, chain check) imports nothing else from src'],
  ),
  layer(['src/github/**', 'src/safety/**'], RUNNER),
  layer(
    ['src/clients/**'],
    [['../*', '@actions/*'], 'the client configurations import nothing else from src'],
  ),
  layer(['src/gateway/**'], RUNNER, [['**/verify/*'], APART]),
  layer(['src/verify/**'], RUNNER, [['**/gateway/*'], APART]),
  layer(['src/cli/**'], [['**/action/*', '@actions/core'], 'the CLI never depends on the action']),
);
