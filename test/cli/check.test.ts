import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { docYamlBlocks } from '../support/doc-yaml.js';
import { lintWorkflow } from '../support/lint-workflow.js';
import { CONFIG, makeCheckout, runCli } from './run-cli.js';

const dirs: string[] = [];
const checkout = (files: Record<string, string>, options?: { git?: boolean }) => {
  const dir = makeCheckout(files, options);
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe('perimeter check', () => {
  describe("when run on this repository's own perimeters.yml", () => {
    it('finds it valid', async () => {
      const result = await runCli(['check'], fileURLToPath(new URL('../..', import.meta.url)));
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(
        /^perimeters\.yml: valid \(version 1, \d+ perimeters\)\n\nTracked files: \d+\n/,
      );
    });
  });

  describe('when the config is valid in a git checkout', () => {
    it('counts tracked files per perimeter and lists overlaps and unreadable files', async () => {
      const dir = checkout({
        'perimeters.yml': CONFIG,
        'README.md': '#',
        'docs/a.md': 'a',
        'docs/shared/b.md': 'b',
        'src/x.ts': 'x',
        'src/.eslintrc': '{}',
        '.github/workflows/ci.yml': 'on: push',
        'config/server.pem': 'k',
        'package.json': '{}',
      });
      const result = await runCli(['check'], dir);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('perimeters.yml: valid (version 1, 2 perimeters)');
      expect(result.stdout).toContain('Tracked files: 9');
      expect(result.stdout).toMatch(/docs\s+reads 3, writes 3;/);
      expect(result.stdout).toMatch(/source\s+reads 5, writes 3;/);
      expect(result.stdout).toContain(
        'Writable by more than one perimeter (1):\n  docs/shared/b.md: docs, source\n',
      );
      expect(result.stdout).toContain(
        'Readable by no perimeter (3):\n  .github/workflows/ci.yml\n  package.json\n  perimeters.yml\n',
      );
    });
  });

  describe('when the checkout tracks a name that is not a valid path', () => {
    it('lists it as never readable or writable', async () => {
      const dir = checkout({ 'perimeters.yml': CONFIG, 'docs/we\\ird.md': 'x' });
      const result = await runCli(['check'], dir);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(
        'Not valid paths, never readable or writable (1):\n  "docs/we\\\\ird.md": backslash',
      );
    });
  });

  describe('when the directory is not a git checkout', () => {
    it('validates and skips the counts', async () => {
      const dir = checkout({ 'custom.yml': CONFIG }, { git: false });
      const result = await runCli(['check', '--config', 'custom.yml'], dir);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('custom.yml: valid');
      expect(result.stdout).toContain('Not in a git checkout');
      expect(result.stdout).toContain('  docs: all tools but the conversation ones; any branch\n');
    });
  });

  describe('when a perimeter has write globs but no push_files tool', () => {
    it('says its endpoint cannot write', async () => {
      const dir = checkout({
        'perimeters.yml': CONFIG.replace('  source:\n', '  source:\n    tools: [get_file]\n'),
      });
      const result = await runCli(['check'], dir);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(
        /source\s+reads 0, writes 0; tools: get_file \(no push_files: its gateway endpoint cannot write\); any branch/,
      );
    });
  });

  describe('when the config has errors', () => {
    it('prints every problem with position and exits 1 without a stack trace', async () => {
      const dir = checkout({
        'perimeters.yml': 'version: 1\nperimeters:\n  Docs:\n    read: ["/abs"]\n    tools: [rm_rf]\n',
      });
      const result = await runCli(['check'], dir);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain('perimeters.yml:3:3: perimeters.Docs: invalid name "Docs"');
      expect(result.stderr).toContain('perimeters.yml:4:12: perimeters.Docs.read[0]: "/abs": leading "/"');
      expect(result.stderr).toContain('perimeters.yml:5:13: perimeters.Docs.tools[0]: "rm_rf": unknown tool');
      expect(result.stderr).toContain('3 problems found.');
      expect(result.stderr).not.toMatch(/\n\s+at /);
    });
  });

  describe('when the config file is missing', () => {
    it('says so and exits 1', async () => {
      const dir = checkout({ 'README.md': '#' });
      const result = await runCli(['check'], dir);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        'perimeter check: cannot read perimeters.yml: no such file (run from the repository root or pass --config FILE)\n',
      );
    });
  });

  describe('when the config is the YAML of something else', () => {
    it('reports a syntax error and exits 1', async () => {
      const dir = checkout({ 'perimeters.yml': 'version: 1\nperimeters: {a: [}\n' });
      const result = await runCli(['check'], dir);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^perimeters\.yml:2:\d+: yaml: /);
    });
  });

  describe('when the config file is not what anyone would write', () => {
    const lol = (i: number) =>
      `l${i}: &l${i} [${Array(9)
        .fill(i === 0 ? '"lol"' : `*l${i - 1}`)
        .join(', ')}]`;
    it.each([
      ['empty', '', /^perimeters\.yml:1:1: version: missing; the file is empty/],
      ['binary', '\u0000\u00ff\u0001PK\u0003\u0004\n\t\u0000', /^perimeters\.yml:\d+:\d+: /],
      [
        'an alias bomb',
        `${Array.from({ length: 9 }, (_, i) => lol(i)).join('\n')}\nversion: 1\nperimeters:\n  p:\n    read: *l8\n    write: *l8\n`,
        /perimeters\.p\.read\[0\]: expected a string, got a list/,
      ],
      [
        'huge',
        `version: 1\nperimeters:\n  p:\n    read: [${'"src/x",'.repeat(40_000)}]\n`,
        /^perimeters\.yml:1:1: \(document\): the file is \d+ bytes; at most 262144 are read/,
      ],
    ])('reports a file that is %s with a position and exits 1, no stack trace', async (_, text, expected) => {
      const dir = checkout({ 'perimeters.yml': text }, { git: false });
      const result = await runCli(['check'], dir);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(expected);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    });

    it('says a directory is a directory', async () => {
      const dir = checkout({ 'conf/perimeters.yml/x': '' }, { git: false });
      const result = await runCli(['check', '--config', 'conf/perimeters.yml'], dir);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe('perimeter check: cannot read conf/perimeters.yml: it is a directory\n');
    });
  });

  describe('when the arguments are wrong', () => {
    it.each([[['check', '--bogus']], [['check', 'extra']], [['check', '--config']]])(
      'exits 2 for %j',
      async (args) => {
        const dir = checkout({ 'perimeters.yml': CONFIG }, { git: false });
        const result = await runCli(args, dir);
        expect(result.code).toBe(2);
        expect(result.stderr).toContain('Usage');
        expect(result.stderr).not.toMatch(/\n\s+at /);
      },
    );
  });
});

describe('perimeter check on workflows', () => {
  const agentWorkflow = (on: string) =>
    `on: ${on}\njobs:\n  agent:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v5\n      - uses: octo/perimeter@v1\n`;

  describe('when a job starts an agent on comments, issues or pull_request_target without a trust rule', () => {
    it('warns, naming the file and the events', async () => {
      const dir = checkout({
        'perimeters.yml': CONFIG,
        '.github/workflows/agent.yml': agentWorkflow('[issue_comment, issues]'),
        '.github/workflows/review.yaml': agentWorkflow('{ pull_request_target: { types: [opened] } }'),
        '.github/workflows/ci.yml': agentWorkflow('push'),
        '.github/workflows/other.yml': 'on: issue_comment\njobs:\n  x:\n    steps:\n      - run: echo\n',
        '.github/workflows/broken.yml': 'on: [',
      });
      const result = await runCli(['check'], dir);
      expect(result.code).toBe(0);
      const warnings = result.stdout.split('\n').filter((line) => line.startsWith('warning: '));
      expect(warnings).toEqual([
        'warning: .github/workflows/agent.yml: job "agent" starts an agent with Perimeter on issue_comment, issues, which people without write access can trigger, and perimeters.yml has no trust rule: add "trust:" so untrusted triggers get only the perimeters marked "untrusted-triggers: true"',
        expect.stringMatching(
          /^warning: \.github\/workflows\/review\.yaml: job "agent" starts an agent with Perimeter on pull_request_target,/,
        ),
      ]);
    });
  });

  describe('when an agent on pull_request_target checks out the pull request head', () => {
    it('warns, even with an if: on the pull request author', async () => {
      const dangerous = `name: review
on: { pull_request_target: { types: [opened, synchronize] } }
jobs:
  review:
    if: github.event.pull_request.author_association == 'MEMBER'
    runs-on: ubuntu-latest
    permissions: { contents: write, statuses: write }
    steps:
      - uses: actions/checkout@v7
        with:
          ref: \${{ github.event.pull_request.head.sha }}
          allow-unsafe-pr-checkout: true
          persist-credentials: false
      - id: perimeter
        uses: octo/perimeter@v1
        with: { perimeters: docs, branch: main }
      - run: claude -p "Review this pull request" --mcp-config "\${{ steps.perimeter.outputs.mcp-config-docs }}"
`;
      expect(await lintWorkflow(dangerous)).toEqual([]);
      const result = await runCli(
        ['check'],
        checkout({ 'perimeters.yml': CONFIG, '.github/workflows/review.yml': dangerous }),
      );
      expect(result.stdout.split('\n').filter((line) => line.startsWith('warning: '))).toEqual([
        expect.stringMatching(
          /^warning: \.github\/workflows\/review\.yml: job "review" starts an agent with Perimeter on pull_request_target, /,
        ),
      ]);
    });
  });

  describe('when run with --json', () => {
    it('lists the same warnings as data', async () => {
      const dir = checkout({
        'perimeters.yml': CONFIG,
        '.github/workflows/agent.yml': agentWorkflow('issue_comment'),
      });
      const result = await runCli(['check', '--json'], dir);
      expect((JSON.parse(result.stdout) as { warnings: unknown }).warnings).toEqual([
        {
          workflow: '.github/workflows/agent.yml',
          job: 'agent',
          events: ['issue_comment'],
          problem: 'no trust rule',
        },
      ]);
    });
  });

  describe('when perimeters.yml has a trust rule', () => {
    it('does not warn', async () => {
      const dir = checkout({
        'perimeters.yml': `trust:\n  associations: [OWNER, MEMBER]\n${CONFIG}`,
        '.github/workflows/agent.yml': agentWorkflow('issue_comment'),
      });
      const result = await runCli(['check'], dir);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).not.toContain('warning:');
    });
  });
});

describe('perimeter check on deny, protect and untrusted-triggers', () => {
  it('shows them per perimeter and counts denied files as neither readable nor writable', async () => {
    const dir = checkout({
      'perimeters.yml': `version: 1
protect: [manifests]
deny: ["secrets/**"]
perimeters:
  all:
    read: ["**"]
    write: ["**"]
    deny: ["**/*.lock"]
    untrusted-triggers: true
`,
      'src/a.ts': 'a',
      'yarn.lock': 'x',
      'package.json': '{}',
      'secrets/k.txt': 'k',
    });
    const result = await runCli(['check'], dir);
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain(
      '  all  reads 3, writes 1; all tools but the conversation ones; any branch; deny: **/*.lock; top-level deny: secrets/**; ' +
        'protects: manifests; exposed to untrusted triggers\n',
    );
    expect(result.stdout).toContain('Readable by no perimeter (2):\n  secrets/k.txt\n  yarn.lock\n');
  });
});

describe('perimeter check on the workflows README and docs show, as pasted', () => {
  const workflows = docYamlBlocks().filter((b) => b.kind === 'workflow');
  const fileOf = (b: { file: string; line: number }) =>
    `.github/workflows/${b.file.replace(/\W+/g, '-')}-${b.line}.yml`;
  const warningsFor = async (files: Record<string, string>) => {
    const result = await runCli(['check'], checkout({ 'perimeters.yml': CONFIG, ...files }));
    expect(result.stderr).toBe('');
    return result.stdout.split('\n').filter((line) => line.startsWith('warning: '));
  };
  const gate = workflows.find(
    (b) => b.text.includes('pull_request_target') && b.text.includes('perimeter/verify@'),
  );
  const comment = workflows.find(
    (b) => b.text.includes('issue_comment') && b.text.includes('author_association'),
  );

  it('include the pull-request gate and a workflow started by an issue comment', () => {
    expect(gate).toBeDefined();
    expect(comment).toBeDefined();
  });

  it('warns about none, with perimeters.yml that has no trust rule', async () => {
    expect(await warningsFor(Object.fromEntries(workflows.map((b) => [fileOf(b), b.text])))).toEqual([]);
  });

  describe('when one is changed to start an agent nobody vetted', () => {
    it('warns about the gate made to start the gateway', async () => {
      const text = gate!.text.replace(/perimeter\/verify@/, 'perimeter@');
      expect(await warningsFor({ [fileOf(gate!)]: text })).toEqual([
        expect.stringContaining('starts an agent with Perimeter on pull_request_target'),
      ]);
    });

    it('warns about the issue-comment workflow without its if:', async () => {
      const text = comment!.text.replace(/^ {4}if: [\s\S]*?(?=^ {4}runs-on:)/m, '');
      expect(text).not.toContain('author_association');
      expect(await warningsFor({ [fileOf(comment!)]: text })).toEqual([
        expect.stringContaining('starts an agent with Perimeter on issue_comment'),
      ]);
    });
  });
});
