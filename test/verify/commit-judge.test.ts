import { describe, expect, it } from 'vitest';
import { compiledPerimeter } from '@perimeter/test-rigs';
import { judgeCommit, type BlobFacts, type Change, type CommitToJudge } from '../../src/verify/index.js';

const sha = (n: number): string => n.toString(16).padStart(40, '0');
const added = (path: string, n = 1, mode = '100644'): Change => ({
  path,
  kind: 'added',
  newMode: mode,
  newSha: sha(n),
});
const deleted = (path: string): Change => ({ path, kind: 'deleted', oldMode: '100644', oldSha: sha(99) });

/** A commit whose blobs are `size` bytes each (by blob number), with credentials where `secrets` says. */
function commit(
  changes: Change[],
  blobs: Record<number, Partial<BlobFacts>> = {},
  unread: number[] = [],
): CommitToJudge {
  return {
    label: 'commit abc1234',
    changes,
    blob: (s) => {
      const n = parseInt(s, 16);
      if (unread.includes(n)) return undefined;
      return { size: 10, credentials: [], ...blobs[n] };
    },
  };
}

const limits = { filesPerPush: 3, bytesPerFile: 100, bytesPerPush: 150 };
const impl = compiledPerimeter({ name: 'impl', write: ['src/**'], limits, branches: ['agent/**'] });
const tests = compiledPerimeter({
  name: 'tests',
  write: ['test/**'],
  limits,
  allowSecretsIn: ['test/fixtures/**'],
});

describe('judgeCommit', () => {
  describe('when one perimeter may make the whole commit', () => {
    it('allows it and names that perimeter', () => {
      expect(judgeCommit(commit([added('src/a.ts'), deleted('src/b.ts')]), 'agent/x', [tests, impl])).toEqual(
        {
          violations: [],
          unchecked: [],
          madeBy: 'impl',
        },
      );
    });

    it('allows exactly the limits: files, bytes a file and bytes a push', () => {
      const atLimits = commit([added('src/a', 1), added('src/b', 2), deleted('src/c')], {
        1: { size: 100 },
        2: { size: 50 },
      });
      expect(judgeCommit(atLimits, 'agent/x', [impl]).madeBy).toBe('impl');
    });

    it('allows an empty commit', () => {
      expect(judgeCommit(commit([]), 'agent/x', [impl]).madeBy).toBe('impl');
    });
  });

  describe('when no perimeter is bound to the branch', () => {
    it('refuses the commit, and each path', () => {
      const judged = judgeCommit(commit([]), 'main', [impl]);
      expect(judged.violations).toEqual([
        { kind: 'path', message: 'commit abc1234: no exposed perimeter may work on branch "main"' },
      ]);
      expect(judged).toEqual({ violations: judged.violations, unchecked: [], madeBy: null });
      expect(judgeCommit(commit([added('src/a.ts')]), 'main', [impl]).violations[0]).toMatchObject({
        path: 'src/a.ts',
        message: expect.stringContaining('no exposed perimeter may work on branch "main"'),
      });
    });
  });

  describe("when each path is some perimeter's but no one perimeter's", () => {
    it('refuses it, naming what each lacks', () => {
      const judged = judgeCommit(commit([added('src/a.ts'), added('test/a.ts', 2)]), 'agent/x', [
        impl,
        tests,
      ]);
      expect(judged).toEqual({
        violations: [
          {
            kind: 'path',
            message:
              'commit abc1234: no one perimeter may make the whole commit ("impl" may not write test/a.ts; "tests" may not write src/a.ts)',
          },
        ],
        unchecked: [],
        madeBy: null,
      });
    });

    it('names three paths a perimeter may not write and counts the rest', () => {
      const many = ['test/1', 'test/2', 'test/3', 'test/4'].map((p, i) => added(p, i + 1));
      const wide = compiledPerimeter({ name: 'tests', write: ['test/**'] });
      const judged = judgeCommit(commit([added('src/a', 9), ...many]), 'agent/x', [impl, wide]);
      expect(judged.violations[0]!.message).toBe(
        'commit abc1234: no one perimeter may make the whole commit ("impl" may not write test/1, test/2, test/3 and 1 more, may push 3 path(s) at once, and the commit changes 5; "tests" may not write src/a)',
      );
    });

    it('names exactly three paths with no count after them', () => {
      const three = ['test/1', 'test/2', 'test/3'].map((p, i) => added(p, i + 1));
      const [src, tst] = [['src/**'], ['test/**']].map((write, i) =>
        compiledPerimeter({ name: ['impl', 'tests'][i]!, write }),
      );
      const judged = judgeCommit(commit([added('src/a', 9), ...three]), 'agent/x', [src!, tst!]);
      expect(judged.violations[0]!.message).toBe(
        'commit abc1234: no one perimeter may make the whole commit ("impl" may not write test/1, test/2, test/3; "tests" may not write src/a)',
      );
    });
  });

  describe('when the commit is over the limits of every perimeter that may write its paths', () => {
    it.each([
      [
        'files',
        [added('src/a', 1), added('src/b', 2), added('src/c', 3), deleted('src/d')],
        {},
        '"impl" may push 3 path(s) at once, and the commit changes 4',
      ],
      [
        'bytes a file',
        [added('src/a', 1)],
        { 1: { size: 101 } },
        '"impl" may write 100 bytes a file, and src/a holds 101',
      ],
      [
        'bytes a push',
        [added('src/a', 1), added('src/b', 2)],
        { 1: { size: 80 }, 2: { size: 71 } },
        '"impl" may push 150 bytes at once, and the commit holds 151',
      ],
    ])('refuses it over %s', (_, changes, blobs, why) => {
      expect(judgeCommit(commit(changes as Change[], blobs), 'agent/x', [impl]).violations).toEqual([
        { kind: 'path', message: `commit abc1234: no one perimeter may make the whole commit (${why})` },
      ]);
    });

    it('does not count a deleted file against the byte limits', () => {
      const judged = judgeCommit(
        commit([added('src/a', 1), deleted('src/b')], { 1: { size: 150 } }),
        'agent/x',
        [compiledPerimeter({ name: 'impl', write: ['src/**'], limits: { ...limits, bytesPerFile: 150 } })],
      );
      expect(judged.madeBy).toBe('impl');
    });
  });

  describe('when a file holds a credential', () => {
    it('refuses the file, naming the perimeter that would have made the commit', () => {
      const judged = judgeCommit(
        commit([added('src/a', 1)], { 1: { credentials: ['GitHub token', 'private key'] } }),
        'agent/x',
        [impl],
      );
      expect(judged).toEqual({
        violations: [
          {
            kind: 'path',
            path: 'src/a',
            message:
              'src/a: looks like it contains a credential (GitHub token, private key), and "impl" does not allow secrets in it (allow-secrets-in)',
          },
        ],
        unchecked: [],
        madeBy: null,
      });
    });

    it("allows it in the perimeter's allow-secrets-in", () => {
      const judged = judgeCommit(
        commit([added('test/fixtures/token.txt', 1)], { 1: { credentials: ['private key'] } }),
        'agent/x',
        [tests],
      );
      expect(judged.madeBy).toBe('tests');
    });

    it('does not look at a deleted file', () => {
      expect(judgeCommit(commit([deleted('src/a')]), 'agent/x', [impl]).madeBy).toBe('impl');
    });
  });

  describe('when a blob the limits need was not read', () => {
    it('leaves the commit unchecked, never allowed or refused', () => {
      expect(judgeCommit(commit([added('src/a', 1), added('src/b', 2)], {}, [2]), 'agent/x', [impl])).toEqual(
        {
          violations: [],
          unchecked: [
            'commit abc1234: the content of 1 file(s) was not read, so its limits and credentials were not checked',
          ],
          madeBy: null,
        },
      );
    });

    it('refuses it all the same when its paths already need two perimeters', () => {
      const judged = judgeCommit(commit([added('src/a', 1), added('test/b', 2)], {}, [1, 2]), 'agent/x', [
        impl,
        tests,
      ]);
      expect(judged.unchecked).toEqual([]);
      expect(judged.violations).toHaveLength(1);
    });
  });

  describe('when a path breaks a rule of its own', () => {
    it('refuses the path by its rule, and says no more', () => {
      const judged = judgeCommit(commit([added('src/link', 1, '120000')]), 'agent/x', [impl]);
      expect(judged).toEqual({
        violations: [expect.objectContaining({ kind: 'symlink', path: 'src/link' })],
        unchecked: [],
        madeBy: null,
      });
    });
  });
});
