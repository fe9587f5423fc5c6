import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

// Dependencies point one way: policy <- github, verify, gateway, safety <- action, cli.
const layer = (files, forbidden, message) => ({
  files,
  rules: {
    'no-restricted-imports': ['error', { patterns: forbidden.map((group) => ({ group: [group], message })) }],
  },
});

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
  layer(
    ['src/policy/**'],
    ['../*', '@actions/*', 'node:fs*', 'node:child_process', 'node:net', 'node:http'],
    'policy is pure: no I/O and nothing else from src',
  ),
  layer(
    ['src/github/**', 'src/verify/**', 'src/gateway/**', 'src/safety/**'],
    ['@actions/core', '../action/*', '../cli/*'],
    'only src/action talks to the runner',
  ),
  layer(['src/cli/**'], ['../action/*', '@actions/core'], 'the CLI never depends on the action'),
);
