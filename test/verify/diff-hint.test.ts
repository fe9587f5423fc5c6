import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diffFromHint } from '../../src/verify/gathering/diff-hint.js';
import { diffTrees } from '../../src/verify/index.js';
import { plumbCommit, startStandIn, type Entry, type StandIn } from '@perimeter/test-rigs';

let s: StandIn;
beforeAll(async () => {
  s = await startStandIn({
    'README.md': 'readme\n',
    'src/a.ts': 'a\n',
    'src/lib/b.ts': 'b\n',
    'src/old-name.ts': 'moving\n',
    'only/one.txt': '1',
    'becomes-dir': 'file for now',
  });
});
afterAll(() => s.stop());

/** The same change diffed three ways: the tree walk, the hint alone, and diffTrees given the hint. */
async function both(entries: Record<string, Entry>) {
  const head = await plumbCommit(s.dir, `hint-${Math.random().toString(36).slice(2)}`, entries, {
    parent: s.seed,
  });
  const up = s.upstream();
  const [baseTree, headTree] = [(await up.getCommit(s.seed)).tree, (await up.getCommit(head)).tree];
  const { files } = await up.compare(s.seed, head);
  return {
    walked: await diffTrees(s.upstream(), baseTree, headTree),
    hinted: await diffFromHint(s.upstream(), baseTree, headTree, files),
    combined: await diffTrees(s.upstream(), baseTree, headTree, files),
  };
}

describe('diffFromHint', () => {
  describe('when plain files are added, modified, renamed and removed', () => {
    it('rebuilds the head tree and gives the walk’s answer', async () => {
      const { walked, hinted, combined } = await both({
        'src/a.ts': { mode: '100644', content: 'a2\n' },
        'src/old-name.ts': null,
        'src/new-name.ts': { mode: '100644', content: 'moving\n' },
        'only/one.txt': null,
        'new/deep/file.ts': { mode: '100644', content: 'n\n' },
      });
      expect(new Set(hinted)).toEqual(new Set(walked));
      expect(combined).toEqual(walked);
      expect(walked.map((c) => `${c.kind} ${c.path}`)).toEqual([
        'added new/deep/file.ts',
        'deleted only/one.txt',
        'modified src/a.ts',
        'added src/new-name.ts',
        'deleted src/old-name.ts',
      ]);
    });
  });

  describe.each([
    ['a new symlink', { 'src/link': { mode: '120000', content: '/etc/passwd' } }],
    ['a new executable', { 'src/run.sh': { mode: '100755', content: '#!/bin/sh\n' } }],
    ['a mode change only', { 'src/a.ts': { mode: '100755', content: 'a\n' } }],
    ['a file turned symlink', { 'src/a.ts': { mode: '120000', content: 'a\n' } }],
    ['a new submodule', { 'src/vendor': { mode: '160000', sha: 'd'.repeat(40) } }],
    [
      'a file turned directory',
      { 'becomes-dir': null, 'becomes-dir/inner.txt': { mode: '100644', content: 'i' } },
    ],
  ] as Array<[string, Record<string, Entry>]>)('when the change is %s', (_, entries) => {
    it('gives the walk’s exact answer, rebuilding only when the list describes the head exactly', async () => {
      const { walked, hinted, combined } = await both(entries);
      if (hinted !== null) expect(new Set(hinted)).toEqual(new Set(walked));
      expect(combined).toEqual(walked);
      expect(walked.length).toBeGreaterThan(0);
    });
  });

  describe('when the file list lies', () => {
    it('is not used: a listed change that is not in the head, or a change left out', async () => {
      const head = await plumbCommit(
        s.dir,
        'hint-lie',
        { 'src/a.ts': { mode: '100644', content: 'a3\n' }, 'README.md': { mode: '100644', content: 'r2\n' } },
        { parent: s.seed },
      );
      const up = s.upstream();
      const [baseTree, headTree] = [(await up.getCommit(s.seed)).tree, (await up.getCommit(head)).tree];
      const { files } = await up.compare(s.seed, head);
      const partial = files.filter((f) => f.path !== 'README.md');
      expect(await diffFromHint(up, baseTree, headTree, partial)).toBeNull();
      const extra = [...files, { path: 'src/lib/b.ts', status: 'removed', sha: 'e'.repeat(40) }];
      expect(await diffFromHint(up, baseTree, headTree, extra)).toBeNull();
      expect((await diffTrees(up, baseTree, headTree, partial)).map((c) => c.path)).toEqual([
        'README.md',
        'src/a.ts',
      ]);
    });
  });
});
