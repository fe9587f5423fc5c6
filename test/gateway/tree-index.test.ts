import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blobSha } from '../../src/github/git-objects.js';
import { indexAfterPush, TreeIndex } from '../../src/gateway/reads/tree-index.js';
import { commitToBare, gitText } from '@perimeter/fake-github';
import { startStandIn, type StandIn } from '@perimeter/test-rigs';

const FILES = {
  'a.txt': 'a\n',
  'src/x.ts': 'x\n',
  'src/deep/y.ts': 'y\n',
  'src/deep/z.ts': 'z\n',
  'docs/r.md': 'r\n',
};

describe('indexAfterPush', () => {
  let s: StandIn;
  let base: TreeIndex;
  beforeAll(async () => {
    s = await startStandIn(FILES);
    const tree = (await s.upstream().getCommit(s.seed)).tree;
    base = new TreeIndex(tree, (await s.upstream().getTreeRecursive(tree)).entries);
  });
  afterAll(async () => s.stop());

  const written = (path: string, text: string, mode = '100644') => ({
    path,
    mode,
    sha: blobSha(Buffer.from(text)),
    size: Buffer.byteLength(text),
  });

  it('builds the index of the tree git makes from the same writes', async () => {
    const head = await commitToBare(s.dir, 'main', {
      'src/deep/y.ts': null,
      'src/deep/z.ts': null,
      'src/new/n.ts': 'n\n',
      'a.txt': 'A\n',
    });
    const tree = (await gitText(s.dir, ['rev-parse', `${head}^{tree}`])).trim();
    const index = indexAfterPush(
      base,
      [written('src/new/n.ts', 'n\n'), written('a.txt', 'A\n')],
      ['src/deep/y.ts', 'src/deep/z.ts'],
      tree,
    );
    expect(index).not.toBeNull();
    const listed = (await s.upstream().getTreeRecursive(tree)).entries;
    const shape = (e: { path: string; mode: string; type: string; sha: string }) =>
      `${e.mode} ${e.type} ${e.sha} ${e.path}`;
    expect([...index!.entries()].map(shape).sort()).toEqual(listed.map(shape).sort());
    expect(index!.get('src/deep')).toBeUndefined();
  });

  it('is null when the recomputed root is not the tree GitHub made', async () => {
    const from = (await gitText(s.dir, ['rev-parse', 'main^{tree}'])).trim();
    const start = new TreeIndex(from, (await s.upstream().getTreeRecursive(from)).entries);
    const head = await commitToBare(s.dir, 'main', { 'docs/r.md': 'R\n' });
    const tree = (await gitText(s.dir, ['rev-parse', `${head}^{tree}`])).trim();
    expect(indexAfterPush(start, [written('docs/r.md', 'R\n')], [], tree)).not.toBeNull();
    // an executable where git made a plain file: the SHAs disagree, so nothing is assumed
    expect(indexAfterPush(start, [written('docs/r.md', 'R\n', '100755')], [], tree)).toBeNull();
  });
});
