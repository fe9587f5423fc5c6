import { describe, expect, it } from 'vitest';
import { changedPaths } from '../../src/gateway/reads/changed-paths.js';
import { createMemoryUpstream } from './support/memory-upstream.js';

async function twoTrees(before: Record<string, string>, changes: Record<string, string | null>) {
  const upstream = await createMemoryUpstream(before);
  const a = (await upstream.getCommit(await upstream.getBranchHead('main'))).tree;
  await upstream.commitDirect('main', changes);
  const b = (await upstream.getCommit(await upstream.getBranchHead('main'))).tree;
  upstream.log.length = 0;
  return { upstream, a, b };
}

describe('changedPaths', () => {
  it('reports added, modified and deleted files, and both sides of a file turned directory', async () => {
    const { upstream, a, b } = await twoTrees(
      { 'a.txt': 'a', 'src/x.ts': 'x', 'src/y.ts': 'y', thing: 'file' },
      { 'a.txt': 'A', 'src/y.ts': null, 'src/z.ts': 'z', thing: null, 'thing/inner.txt': 'now a dir' },
    );
    const changes = await changedPaths(upstream, a, b);
    expect(changes.map((c) => `${c.status} ${c.path}`).sort()).toEqual([
      'added src/z.ts',
      'added thing/inner.txt',
      'deleted src/y.ts',
      'deleted thing',
      'modified a.txt',
    ]);
  });

  it('lists every file of the root commit against nothing', async () => {
    const { upstream, a } = await twoTrees({ 'a.txt': 'a', 'd/b.txt': 'b' }, {});
    expect((await changedPaths(upstream, null, a)).map((c) => c.path)).toEqual(['a.txt', 'd/b.txt']);
  });

  describe('when the change sits deep in one directory', () => {
    const files: Record<string, string> = {};
    for (const dir of ['one', 'two', 'three'])
      for (let i = 0; i < 5; i++) files[`${dir}/sub/f${i}.txt`] = `${dir}${i}`;

    it('lists only the trees on the way to it', async () => {
      const { upstream, a, b } = await twoTrees(files, { 'two/sub/f3.txt': 'changed' });
      expect(await changedPaths(upstream, a, b)).toEqual([
        expect.objectContaining({ path: 'two/sub/f3.txt', status: 'modified' }),
      ]);
      expect(upstream.log.filter((r) => r === 'getTree')).toHaveLength(6);
    });

    it('keeps to `within`, skips what descendInto rejects, and stops when asked', async () => {
      const { upstream, a, b } = await twoTrees(files, { 'one/sub/f1.txt': 'x', 'three/sub/f2.txt': 'y' });
      expect((await changedPaths(upstream, a, b, { within: 'three' })).map((c) => c.path)).toEqual([
        'three/sub/f2.txt',
      ]);
      upstream.log.length = 0;
      const pruned = await changedPaths(upstream, a, b, { descendInto: (dir) => !dir.startsWith('one') });
      expect(pruned.map((c) => c.path)).toEqual(['three/sub/f2.txt']);
      const first = await changedPaths(upstream, a, b, { stopWhen: () => true });
      expect(first.map((c) => c.path)).toEqual(['one/sub/f1.txt']);
    });
  });
});
