import { describe, expect, it } from 'vitest';
import { compiledPerimeter } from '@perimeter/test-rigs';
import type { TreeEntry } from '../../src/github/index.js';
import { TreeIndex } from '../../src/gateway/reads/tree-index.js';
import { planFromIndex, symlinksOutsideView } from '../../src/gateway/reads/workspace-view.js';

const sha = (n: number) => n.toString(16).padStart(40, '0');
const blob = (path: string, n: number, mode = '100644'): TreeEntry => ({
  path,
  mode,
  type: 'blob',
  sha: sha(n),
  size: 1,
});
const dir = (path: string): TreeEntry => ({ path, mode: '040000', type: 'tree', sha: sha(999) });

const index = new TreeIndex(sha(0), [
  dir('src'),
  dir('src/keys'),
  dir('docs'),
  blob('src/a.ts', 1),
  blob('src/run.sh', 2, '100755'),
  blob('src/.env', 3),
  blob('src/keys/deploy.pem', 4),
  blob('src/secret.txt', 5),
  blob('docs/roadmap.md', 6),
  blob('src/same.ts', 7, '120000'),
  blob('src/out.md', 8, '120000'),
  blob('src/up', 9, '120000'),
  blob('src/chain', 10, '120000'),
  blob('src/dir', 11, '120000'),
  { path: 'src/vendor', mode: '160000', type: 'commit', sha: sha(12) },
]);
const perimeter = compiledPerimeter({ read: ['src/**'], write: ['src/**'], deny: ['src/secret.txt'] });

describe('planFromIndex', () => {
  it('hands out what the perimeter reads: no hidden, denied or credential file', () => {
    const plan = planFromIndex(index, perimeter);
    expect(plan.files.map((f) => f.path)).toEqual([
      'src/a.ts',
      'src/chain',
      'src/dir',
      'src/out.md',
      'src/run.sh',
      'src/same.ts',
      'src/up',
    ]);
    for (const f of plan.files) expect(perimeter.canRead(f.path).allowed).toBe(true);
  });

  it('keeps modes as git has them, and leaves a submodule out saying so', () => {
    const plan = planFromIndex(index, perimeter);
    expect(plan.files.find((f) => f.path === 'src/run.sh')?.mode).toBe('100755');
    expect(plan.files.find((f) => f.path === 'src/same.ts')?.mode).toBe('120000');
    expect(plan.leftOut).toEqual([
      { path: 'src/vendor', reason: expect.stringMatching(/^submodule/) as string },
    ]);
  });
});

describe('planFromIndex', () => {
  describe('when the perimeter has no tool that serves content', () => {
    it('hands out nothing, and says why', () => {
      const writer = compiledPerimeter({
        read: ['src/**'],
        write: ['src/**'],
        tools: ['get_tree', 'push_files'],
      });
      const plan = planFromIndex(index, writer);
      expect(plan.files).toEqual([]);
      expect(plan.leftOut).toEqual([
        {
          path: '',
          reason: expect.stringMatching(/no tool of this perimeter serves file content/) as string,
        },
      ]);
    });
  });
});

describe('symlinksOutsideView', () => {
  const plan = planFromIndex(index, perimeter);
  const targets = new Map<string, string | null>([
    ['src/same.ts', 'a.ts'],
    ['src/out.md', '../docs/roadmap.md'],
    ['src/up', '../../etc/passwd'],
    ['src/chain', 'out.md'],
    ['src/dir', '.'],
  ]);

  it('keeps links to files and folders the perimeter reads', () => {
    const out = symlinksOutsideView(plan, targets);
    expect(out.has('src/same.ts')).toBe(false);
    expect(out.has('src/dir')).toBe(false);
  });

  it('leaves out a link to a hidden file, one leaving the repository, and one to a link left out', () => {
    const out = symlinksOutsideView(plan, targets);
    expect(out.get('src/out.md')).toMatch(/not in what this perimeter reads/);
    expect(out.get('src/up')).toMatch(/outside the repository/);
    expect(out.get('src/chain')).toMatch(/a symlink left out/);
  });

  it('leaves out links to credential files, absolute targets and targets that are not text', () => {
    const out = symlinksOutsideView(
      plan,
      new Map<string, string | null>([
        ['src/same.ts', '.env'],
        ['src/out.md', '/etc/passwd'],
        ['src/up', null],
        ['src/chain', 'keys/deploy.pem'],
        ['src/dir', 'secret.txt'],
      ]),
    );
    expect([...out.keys()].sort()).toEqual(['src/chain', 'src/dir', 'src/out.md', 'src/same.ts', 'src/up']);
  });
});
