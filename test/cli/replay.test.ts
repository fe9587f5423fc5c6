import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listCommitChanges } from '../../src/cli/git.js';
import { makeCheckout, runCli } from './run-cli.js';

const CONFIG = `version: 1
perimeters:
  source:
    read: ["**"]
    write: ["src/**"]
  tests:
    read: ["**"]
    write: ["test/**"]
`;

let dir: string;
const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
    cwd: dir,
    encoding: 'utf8',
  }).trim();
function commit(message: string, files: Record<string, string | null>): string {
  for (const [path, content] of Object.entries(files)) {
    if (content === null) git('rm', '-q', '--', path);
    else {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), content);
      git('add', '--', path);
    }
  }
  git('commit', '-q', '--allow-empty', '-m', message);
  return git('rev-parse', 'HEAD');
}
const shas: Record<string, string> = {};

beforeAll(() => {
  dir = makeCheckout({ 'perimeters.yml': CONFIG, 'README.md': '#' });
  shas.source = commit('parser', { 'src/parser.ts': 'p' });
  shas.tests = commit('parser tests', { 'test/parser.test.ts': 't' });
  shas.both = commit('parser and tests together', { 'src/parser.ts': 'p2', 'test/parser.test.ts': 't2' });
  git('checkout', '-q', '-b', 'side', 'HEAD~1');
  shas.side = commit('on a side branch', { 'src/side.ts': 's' });
  git('checkout', '-q', 'main');
  git('merge', '-q', '--no-ff', '-m', 'merge side', 'side');
  shas.removal = commit('remove the readme', { 'README.md': null });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('perimeter replay', () => {
  describe('when the proposed config is the committed one', () => {
    it('shows who could have made each commit, leaves merges out and exits 0', async () => {
      const result = await runCli(['replay', 'HEAD~5..HEAD'], dir);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(
        'Replaying perimeters.yml against HEAD~5..HEAD: 5 commits (and 1 merge, not judged); base HEAD:perimeters.yml\n',
      );
      const line = (sha: string) => result.stdout.split('\n').find((l) => l.startsWith(sha.slice(0, 7)));
      expect(line(shas.source!)).toMatch(/ok\s+-1\s+parser$/);
      expect(line(shas.tests!)).toMatch(/-1\s+ok\s+parser tests$/);
      expect(line(shas.both!)).toMatch(/-1\s+-1\s+parser and tests together$/);
      expect(line(shas.removal!)).toMatch(/-1\s+-1\s+remove the readme$/);
      expect(result.stdout).toContain('Commits each perimeter could have made (of 5): source 2, tests 1\n');
      expect(result.stdout).toContain('No changes from HEAD:perimeters.yml.\n');
      expect(result.stdout.split('\n')[2]).toBe('Against HEAD:perimeters.yml: no verdict changes.');
    });
  });

  describe('when a tightened perimeter refuses a wide commit', () => {
    it('counts the paths and names only the first of them, so no line grows with the commit', async () => {
      git('checkout', '-q', '-b', 'wide', 'main');
      const files = Object.fromEntries(
        Array.from({ length: 30 }, (_, i) => [`src/wide/f${String(i).padStart(2, '0')}.ts`, `${i}`]),
      );
      const sha = commit('thirty files', files);
      writeFileSync(
        join(dir, 'perimeters.yml'),
        CONFIG.replace('write: ["src/**"]', 'write: ["src/parser.ts"]'),
      );
      try {
        const result = await runCli(['replay', 'main..wide'], dir);
        expect(result.code).toBe(3);
        const lines = result.stdout.split('\n');
        expect(lines.slice(2, 4)).toEqual([
          'Against HEAD:perimeters.yml: 1 commit newly refused, 0 newly allowed (1 change in all)',
          '  source: 1 newly refused, 0 newly allowed',
        ]);
        // folded at 100 columns, continued under the list
        expect(lines.slice(4).join('\n')).toMatch(
          /^ {4}paths now refused \(30\): src\/wide\/f00\.ts,[^]*src\/wide\/f07\.ts and 22 more\n\n/,
        );
        const at = lines.findIndex((l) => l.startsWith(`  ${sha.slice(0, 7)} source:`));
        const end = lines.findIndex((l, i) => i > at && !l.startsWith('    ') && !l.startsWith('      '));
        const change = lines.slice(at, end).join('\n');
        expect(change).toMatch(
          /^ {2}[0-9a-f]{7} source: allowed -> refused\n {4}now refused: src\/wide\/f00\.ts/,
        );
        expect(change).toMatch(
          /src\/wide\/f09\.ts: added outside every perimeter \(source: no write glob matches\) and 20 more$/,
        );
        expect(change).not.toContain('f10.ts');
        for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(120);
      } finally {
        git('checkout', '--', 'perimeters.yml');
        git('checkout', '-q', 'main');
      }
    });
  });

  describe('when the proposal tightens a perimeter', () => {
    it('lists each commit it would now refuse, with the path and the rule, and exits 3', async () => {
      writeFileSync(
        join(dir, 'perimeters.yml'),
        CONFIG.replace('write: ["src/**"]', 'write: ["src/parser.ts"]'),
      );
      try {
        const result = await runCli(['replay', 'HEAD~5..HEAD'], dir);
        expect(result.code).toBe(3);
        // what changes leads, before the table of every commit
        expect(result.stdout.split('\n').slice(2, 6)).toEqual([
          'Against HEAD:perimeters.yml: 1 commit newly refused, 0 newly allowed (1 change in all)',
          '  source: 1 newly refused, 0 newly allowed',
          '    paths now refused (1): src/side.ts',
          '',
        ]);
        expect(result.stdout).toContain(
          `Changes from HEAD:perimeters.yml (1):\n  ${shas.side!.slice(0, 7)} source: allowed -> refused\n    now refused: src/side.ts: added outside every perimeter (source: no write glob matches)\n`,
        );
        const json = JSON.parse((await runCli(['replay', '--json', 'HEAD~5..HEAD'], dir)).stdout);
        expect(json.changes).toEqual([
          {
            sha: shas.side,
            subject: 'on a side branch',
            perimeter: 'source',
            before: 'allowed',
            after: 'refused',
            newlyRefused: [
              { path: 'src/side.ts', rule: 'added outside every perimeter (source: no write glob matches)' },
            ],
            newlyAllowed: [],
          },
        ]);
        expect(json.commits).toHaveLength(5);
        expect((await runCli(['replay', '--no-base', 'HEAD~5..HEAD'], dir)).code).toBe(0);
      } finally {
        git('checkout', '--', 'perimeters.yml');
      }
    });
  });

  describe('when the range or the base cannot be read', () => {
    it('says what git said and exits 1; a bad option is usage (2)', async () => {
      expect(await runCli(['replay', 'nope..HEAD'], dir)).toMatchObject({
        code: 1,
        stderr: "perimeter replay: fatal: bad revision 'nope..HEAD'\n",
      });
      expect((await runCli(['replay', '--base', 'nope', 'HEAD~1..HEAD'], dir)).stderr).toBe(
        'perimeter replay: no such commit: "nope"\n',
      );
      expect((await runCli(['replay', '--', '--all'], dir)).stderr).toBe(
        'perimeter replay: not a range: "--all"\n',
      );
      expect((await runCli(['replay'], dir)).code).toBe(2);
    });
  });
});

describe('what replay says "ok" means', () => {
  /** The closing note, its folded lines joined. */
  const note = (stdout: string) =>
    (/\n\("ok": [^]*?\)\n/.exec(stdout)?.[0] ?? '').replace(/\n /g, ' ').trim();

  it('on the default branch, where no perimeter that does not name it may be bound, says so', async () => {
    // no origin/HEAD: the checkout does not say which branch is the default
    expect(note((await runCli(['replay', 'HEAD~5..HEAD'], dir)).stdout)).toBe(
      '("ok": its rules allow the commit, as the receipt judges; if "main" is the default branch (this ' +
        'checkout does not say), the action binds a perimeter there only when its branches list names it, which ' +
        'none of these perimeters does: for them "ok" means a commit made on a branch of its own; ' +
        '"-N": N refusals, a path it could not have written or the commit over its limits)',
    );
    git('symbolic-ref', 'refs/remotes/origin/HEAD', 'refs/remotes/origin/main');
    writeFileSync(
      join(dir, 'perimeters.yml'),
      CONFIG.replace('write: ["src/**"]', 'write: ["src/**"]\n    branches: [main]'),
    );
    try {
      const named = note((await runCli(['replay', 'HEAD~5..HEAD'], dir)).stdout);
      expect(named).toContain('"main" is the default branch, the action binds a perimeter there only when');
      expect(named).toContain(
        'which tests do not: for those "ok" means a commit made on a branch of its own',
      );
      // another branch: "ok" is a push there
      expect(note((await runCli(['replay', '--branch', 'feature', 'HEAD~5..HEAD'], dir)).stdout)).toMatch(
        /^\("ok": that perimeter could have pushed it to "feature", judged as the receipt judges;/,
      );
    } finally {
      git('symbolic-ref', '--delete', 'refs/remotes/origin/HEAD');
      writeFileSync(join(dir, 'perimeters.yml'), CONFIG);
    }
  });
});

describe('perimeter replay judging as the receipt does', () => {
  const RULES = `version: 1
perimeters:
  agent:
    read: ["**"]
    write: ["src/**"]
    branches: ["agent/**"]
  small:
    tools: [get_file]
    read: ["**"]
    write: ["src/**"]
    limits: { files-per-push: 1, bytes-per-file: 4 }
`;
  let repo: string;
  const run = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
      cwd: repo,
      encoding: 'utf8',
    }).trim();
  beforeAll(() => {
    repo = makeCheckout({ 'perimeters.yml': RULES });
    run('checkout', '-q', '-b', 'agent/one');
    writeFileSync(join(repo, 'small.ts'), 'x');
    mkdirSync(join(repo, 'src'));
    writeFileSync(join(repo, 'src', 'a.ts'), 'tiny');
    run('add', '-A');
    run('commit', '-qm', 'one small file');
    writeFileSync(join(repo, 'src', 'b.ts'), 'more than four bytes');
    run('add', '-A');
    run('commit', '-qm', 'one large file');
    execFileSync('ln', ['-s', 'a.ts', join(repo, 'src', 'link')]);
    run('add', '-A');
    run('commit', '-qm', 'a symlink');
  });
  afterAll(() => rmSync(repo, { recursive: true, force: true }));

  const json = async (...args: string[]) =>
    JSON.parse((await runCli(['replay', '--json', '--no-base', ...args], repo)).stdout);

  describe('when the limits or the file modes refuse a commit', () => {
    it("refuses it with the receipt's rule, on the branch the range ends on", async () => {
      const onAgent = await json('HEAD~3..HEAD');
      expect(onAgent.branch).toBe('agent/one');
      const [link, large, small] = onAgent.commits;
      expect(small.verdicts.agent.allowed).toBe(false); // small.ts: outside src/**
      expect(small.verdicts.small.refused).toEqual([
        { path: 'small.ts', rule: 'added outside every perimeter (small: no write glob matches)' },
      ]);
      expect(large.verdicts.agent).toEqual({ allowed: true, refused: [] });
      expect(large.verdicts.small.refused).toEqual([{ rule: expect.stringContaining('bytes a file') }]);
      expect(link.verdicts.agent.refused).toEqual([
        { path: 'src/link', rule: 'symlink added (symlinks are never allowed)' },
      ]);
    });
  });

  describe('when --branch names a branch the perimeter may not be bound to', () => {
    it('refuses every path by the branch rule', async () => {
      const onMain = await json('--branch', 'main', 'HEAD~3..HEAD');
      expect(onMain.commits[1].verdicts.agent.refused).toEqual([
        {
          path: 'src/b.ts',
          rule: 'added outside every perimeter (no exposed perimeter may work on branch "main")',
        },
      ]);
    });
  });

  describe('when the range ends on no branch', () => {
    it('asks for --branch (usage, 2)', async () => {
      const detached = await runCli(
        ['replay', `${run('rev-parse', 'HEAD~1')}..${run('rev-parse', 'HEAD')}`],
        repo,
      );
      expect(detached.code).toBe(2);
      expect(detached.stderr).toContain('name the branch its commits were made on with --branch');
    });
  });
});

describe('listCommitChanges', () => {
  it('reads file names that look like commit ids or status letters as file names', () => {
    const repo = makeCheckout({ 'a.txt': 'a' });
    try {
      const parent = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repo, encoding: 'utf8' }).trim();
      const names = [parent, 'M', `\n${parent}`, 'with\ttab'];
      for (const name of names) writeFileSync(join(repo, name), 'x');
      execFileSync('git', ['add', '-A'], { cwd: repo });
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '-qm', 'crafted'], {
        cwd: repo,
      });
      const { commits } = listCommitChanges(repo, 'HEAD');
      expect(commits.map((c) => c.subject)).toEqual(['crafted', 'seed']);
      expect(commits[0]!.changes.map((c) => c.path).sort()).toEqual([...names].sort());
      expect(commits[1]!.changes.map((c) => c.path)).toEqual(['a.txt']);
    } finally {
      rmSync(repo, { recursive: true, force: true });
    }
  });

  describe('when a commit subject holds terminal escapes and a carriage return', () => {
    it('prints them as escapes: the terminal shows the subject, never what it would draw', async () => {
      const subject = '\u001b[2K\rNo changes from HEAD:perimeters.yml.\u001b[8m';
      const sha = commit(subject, { 'src/sneaky.ts': 's' });
      const result = await runCli(['replay', 'HEAD~1..HEAD'], dir);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).not.toContain('\u001b');
      expect(result.stdout).not.toContain('\r');
      const line = result.stdout.split('\n').find((l) => l.startsWith(sha.slice(0, 7)));
      expect(line).toMatch(/ok\s+-1\s+\\u001b\[2K\\u000dNo changes from HEAD:perimeters\.yml\.\\u001b\[8m$/);
      git('reset', '-q', '--hard', 'HEAD~1');
    });
  });
});
