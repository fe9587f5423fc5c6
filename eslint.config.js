import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

// Dependencies point one way: policy, ledger <- github, verify, gateway, safety <- action, cli.
// One list per folder: a later no-restricted-imports for the same file would replace an earlier one.
const layer = (files, ...rules) => ({
  files,
  rules: {
    'no-restricted-imports': [
      'error',
      { patterns: rules.map(([forbidden, message]) => ({ group: forbidden, message })) },
    ],
  },
});

const PURE = [
  ['../*', '@actions/*', 'node:fs*', 'node:child_process', 'node:net', 'node:http'],
  'policy is pure: no I/O and nothing else from src',
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
  layer(['src/policy/**'], PURE),
  layer(
    ['src/ledger/**'],
    [['../*', '@actions/*'], 'the ledger (record format, writer, chain check) imports nothing else from src'],
  ),
  layer(['src/github/**', 'src/safety/**'], RUNNER),
  layer(['src/gateway/**'], RUNNER, [['**/verify/*'], APART]),
  layer(['src/verify/**'], RUNNER, [['**/gateway/*'], APART]),
  layer(['src/cli/**'], [['**/action/*', '@actions/core'], 'the CLI never depends on the action']),
);
