/**
 * push_files' decisions in-process, over the memory upstream: every refusal, limit, shape problem and
 * race outcome pinned exactly, so the mutation run (which leaves out the stand-in suites) can tell when one
 * of them is gone. The same behaviour end to end is in test/gateway/push-files.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { Pusher, type PushRequest } from '../../src/gateway/push/push.js';
import { RepoView } from '../../src/gateway/reads/repo-view.js';
import type { CallNotes } from '../../src/gateway/tool-answer.js';
import { compilePerimeter, parseConfig, type Perimeter } from '../../src/policy/index.js';
import { NO_FILTER, type AnswerFilter } from '../../src/safety/answer-filter.js';
import { createMemoryUpstream, type MemoryUpstream } from '../gateway/support/memory-upstream.js';

const CONFIG = `
version: 1
perimeters:
  dev:
    read: ["**"]
    write: ["src/**", "run.sh", "fixtures/**"]
    allow-secrets-in: ["fixtures/**"]
    limits: { files-per-push: 4, bytes-per-file: 20, bytes-per-push: 30 }
`;
const BASE = { 'src/a.ts': 'a\n', 'src/dir/b.ts': 'b\n', 'src/file': 'f\n', 'README.md': 'r\n' };

const perimeter: Perimeter = compilePerimeter(parseConfig(CONFIG).perimeters[0]!);

/** Finds "CREDENTIAL" in content, as the secret filter would find a key. */
const FINDS_CREDENTIAL: AnswerFilter = {
  ...NO_FILTER,
  findCredentials: async (text: string) => (text.includes('CREDENTIAL') ? ['Test key', 'Test key'] : []),
};

interface Setup {
  upstream: MemoryUpstream;
  pusher: Pusher;
  push(
    request: Partial<PushRequest>,
  ): Promise<{ result?: Awaited<ReturnType<Pusher['push']>>; error?: string; notes: CallNotes }>;
  file(path: string): Promise<{ text: string; mode: string } | undefined>;
  writes(): string[];
}

async function setup(filter: AnswerFilter = NO_FILTER, files: Record<string, string> = BASE): Promise<Setup> {
  const upstream = await createMemoryUpstream(files);
  const pusher = new Pusher(new RepoView(upstream, 'main'), filter);
  return {
    upstream,
    pusher,
    async push(request) {
      const notes: CallNotes = { paths: [] };
      try {
        const result = await pusher.push(perimeter, { message: 'm', files: [], ...request }, notes);
        return { result, notes };
      } catch (error) {
        return { error: (error as Error).message, notes };
      }
    },
    async file(path) {
      const commit = await upstream.getCommit(await upstream.getBranchHead('main'));
      const entry = (await upstream.getTreeRecursive(commit.tree)).entries.find((e) => e.path === path);
      if (!entry) return undefined;
      return { text: Buffer.from(await upstream.getBlob(entry.sha)).toString('utf8'), mode: entry.mode };
    },
    writes: () => upstream.log.filter((name) => /^(create|update)/.test(name)),
  };
}

describe('Pusher (in-process)', () => {
  describe('when every path is writable', () => {
    it('commits writes and deletions once and records paths, digests and the commit', async () => {
      const s = await setup();
      const before = await s.upstream.getBranchHead('main');
      const { result, notes } = await s.push({
        message: 'hello',
        files: [{ path: 'src/new.ts', content: 'new\n' }],
        deletions: ['src/a.ts'],
      });
      const head = await s.upstream.getBranchHead('main');
      expect(result).toEqual({ commit: head, head, files: ['src/new.ts'], deletions: ['src/a.ts'] });
      expect(head).not.toBe(before);
      expect((await s.upstream.getCommit(head)).parents).toEqual([before]);
      expect(await s.file('src/new.ts')).toEqual({ text: 'new\n', mode: '100644' });
      expect(await s.file('src/a.ts')).toBeUndefined();
      expect(notes.paths).toEqual(['src/new.ts', 'src/a.ts']);
      expect(notes.commit).toBe(head);
      expect(notes.message).toEqual({
        length: 5,
        sha256: '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824',
      });
      expect(notes.content).toEqual([
        { path: 'src/new.ts', length: 4, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
      ]);
      expect(s.writes()).toEqual(['createTree', 'createCommit', 'updateBranch']);
    });

    it('sends text inline and only binary content as a blob, byte for byte', async () => {
      const s = await setup();
      const bytes = Buffer.from([0, 1, 2, 255]);
      const { result } = await s.push({
        files: [
          { path: 'src/bin', content: bytes.toString('base64'), encoding: 'base64' },
          { path: 'src/text.ts', content: Buffer.from('hi\n').toString('base64'), encoding: 'base64' },
          { path: 'src/plain.ts', content: 'plain\n', encoding: 'utf-8' },
        ],
      });
      expect(result?.commit).not.toBeNull();
      expect(s.writes()).toEqual(['createBlob', 'createTree', 'createCommit', 'updateBranch']);
      const commit = await s.upstream.getCommit(await s.upstream.getBranchHead('main'));
      const entry = (await s.upstream.getTreeRecursive(commit.tree)).entries.find(
        (e) => e.path === 'src/bin',
      )!;
      expect(Buffer.from(await s.upstream.getBlob(entry.sha))).toEqual(bytes);
      expect((await s.file('src/text.ts'))?.text).toBe('hi\n');
    });

    it('accepts base64 wrapped over lines', async () => {
      const s = await setup();
      const { result } = await s.push({
        files: [{ path: 'src/w.ts', content: 'aGVs\nbG8=\n', encoding: 'base64' }],
      });
      expect(result?.commit).not.toBeNull();
      expect((await s.file('src/w.ts'))?.text).toBe('hello');
    });

    it('keeps the executable bit of a replaced file and gives new files 100644', async () => {
      const s = await setup();
      const base = await s.upstream.getCommit(await s.upstream.getBranchHead('main'));
      const tree = await s.upstream.createTree(base.tree, [{ path: 'run.sh', mode: '100755', content: 'x' }]);
      await s.upstream.updateBranch('main', await s.upstream.createCommit('exec', tree, [base.sha]));
      await s.push({
        files: [
          { path: 'run.sh', content: 'y' },
          { path: 'src/n.ts', content: 'n' },
        ],
      });
      expect(await s.file('run.sh')).toEqual({ text: 'y', mode: '100755' });
      expect(await s.file('src/n.ts')).toEqual({ text: 'n', mode: '100644' });
    });

    it('makes no commit when nothing changes, and says why', async () => {
      const s = await setup();
      const head = await s.upstream.getBranchHead('main');
      const { result, notes } = await s.push({ files: [{ path: 'src/a.ts', content: 'a\n' }] });
      expect(result).toEqual({ commit: null, head, files: ['src/a.ts'], deletions: [] });
      expect(notes.reason).toBe('no change: the files already have this content');
      expect(notes.commit).toBeUndefined();
      expect(s.writes()).toEqual(['createTree']);
    });
  });

  describe('when something is wrong, nothing is written', () => {
    const cases: Array<[string, Partial<PushRequest>, string[]]> = [
      ['nothing to push', { files: [] }, ['nothing to push: no files and no deletions']],
      [
        'too many paths',
        {
          files: ['a', 'b', 'c'].map((n) => ({ path: `src/${n}`, content: '' })),
          deletions: ['src/a.ts', 'src/file'],
        },
        ['5 paths, the limit is 4 per push'],
      ],
      [
        'an invalid path',
        { files: [{ path: 'src/../x', content: '' }] },
        ['"src/../x": invalid path: ".." segment'],
      ],
      [
        'a duplicate',
        { files: [{ path: 'src/d', content: '' }], deletions: ['src/d'] },
        ['src/d: named more than once'],
      ],
      [
        'an unwritable path',
        { files: [{ path: 'README.md', content: '' }] },
        ['README.md: not writable (no write glob matches)'],
      ],
      [
        'bad base64',
        { files: [{ path: 'src/x', content: 'a', encoding: 'base64' }] },
        ['src/x: content is not valid base64'],
      ],
      [
        'bad base64 characters',
        { files: [{ path: 'src/x', content: 'ab*=', encoding: 'base64' }] },
        ['src/x: content is not valid base64'],
      ],
      [
        'too much padding',
        { files: [{ path: 'src/x', content: 'a===', encoding: 'base64' }] },
        ['src/x: content is not valid base64'],
      ],
      [
        'a file over the limit',
        { files: [{ path: 'src/x', content: 'x'.repeat(21) }] },
        ['src/x: 21 bytes, the limit is 20 per file'],
      ],
      [
        'a push over the limit',
        {
          files: [
            { path: 'src/x', content: 'x'.repeat(20) },
            { path: 'src/y', content: 'y'.repeat(11) },
          ],
        },
        ['31 bytes in all, the limit is 30 per push'],
      ],
      [
        'deleting a missing file',
        { deletions: ['src/none.ts'] },
        ['src/none.ts: cannot delete, no such file'],
      ],
      [
        'deleting a directory',
        { deletions: ['src/dir'] },
        ['src/dir: cannot delete a directory; name its files'],
      ],
      [
        'writing over a directory',
        { files: [{ path: 'src/dir', content: '' }] },
        ['src/dir: is a directory'],
      ],
      [
        'writing under a file',
        { files: [{ path: 'src/file/x/y.ts', content: '' }] },
        ['src/file/x/y.ts: src/file is a file, not a directory'],
      ],
    ];

    it.each(cases)('refuses %s with exactly its problem', async (_name, request, problems) => {
      const s = await setup();
      const { error, notes } = await s.push(request);
      expect(error).toBe(`push refused, nothing was written:\n${problems.map((p) => `- ${p}`).join('\n')}`);
      expect(notes.reason).toBe(problems.join('; '));
      expect(s.writes()).toEqual([]);
    });

    it('checks sizes at exactly the limits', async () => {
      const s = await setup();
      const { result } = await s.push({
        files: [
          { path: 'src/x', content: 'x'.repeat(20) },
          { path: 'src/y', content: 'y'.repeat(10) },
        ],
        deletions: ['src/a.ts', 'src/file'],
      });
      expect(result?.commit).not.toBeNull();
    });

    it('names every problem of a call at once', async () => {
      const s = await setup();
      const { error } = await s.push({
        files: [
          { path: 'README.md', content: '' },
          { path: '/abs', content: '' },
        ],
      });
      expect(error).toBe(
        'push refused, nothing was written:\n- README.md: not writable (no write glob matches)\n- "/abs": invalid path: leading "/" (paths are relative to the repository root)',
      );
    });

    it('refuses content with a credential, except where the perimeter allows secrets, and not in binary content', async () => {
      const s = await setup(FINDS_CREDENTIAL);
      const refused = await s.push({ files: [{ path: 'src/k.ts', content: 'CREDENTIAL' }] });
      expect(refused.error).toBe(
        'push refused, nothing was written:\n- src/k.ts: looks like it contains a credential (Test key)',
      );
      const viaBase64 = await s.push({
        files: [
          { path: 'src/k.ts', content: Buffer.from('CREDENTIAL').toString('base64'), encoding: 'base64' },
        ],
      });
      expect(viaBase64.error).toMatch(/looks like it contains a credential/);
      expect(s.writes()).toEqual([]);
      expect(
        (await s.push({ files: [{ path: 'fixtures/k.txt', content: 'CREDENTIAL' }] })).result?.commit,
      ).not.toBeNull();
      const binary = Buffer.concat([Buffer.from([0, 255]), Buffer.from('CREDENTIAL')]).toString('base64');
      expect(
        (await s.push({ files: [{ path: 'src/bin', content: binary, encoding: 'base64' }] })).result?.commit,
      ).not.toBeNull();
    });

    it('refuses a credential in the message or a path, and in content for a perimeter that allows it nowhere', async () => {
      const s = await setup(FINDS_CREDENTIAL);
      expect(
        (await s.push({ message: 'CREDENTIAL', files: [{ path: 'src/m.ts', content: 'm' }] })).error,
      ).toBe(
        'push refused, nothing was written:\n- the commit message looks like it contains a credential (Test key)',
      );
      expect((await s.push({ files: [{ path: 'fixtures/CREDENTIAL', content: 'm' }] })).error).toBe(
        'push refused, nothing was written:\n- a file path looks like it contains a credential (Test key)',
      );
      const strict = compilePerimeter(
        parseConfig(`version: 1
perimeters:
  strict:
    read: ["**"]
    write: ["src/**", "fixtures/**"]
`).perimeters[0]!,
      );
      const error = await s.pusher
        .push(
          strict,
          { message: 'm', files: [{ path: 'fixtures/k.txt', content: 'CREDENTIAL' }] },
          { paths: [] },
        )
        .then(
          () => '',
          (e: Error) => e.message,
        );
      expect(error).toBe(
        'push refused, nothing was written:\n- fixtures/k.txt: looks like it contains a credential (Test key)',
      );
      expect(s.writes()).toEqual([]);
    });

    it('does not ask the credential check when the paths are already refused', async () => {
      let asked = 0;
      const s = await setup({ ...NO_FILTER, findCredentials: async () => (asked++, []) });
      await s.push({ files: [{ path: 'README.md', content: 'x' }] });
      expect(asked).toBe(0);
    });
  });

  describe('when the branch moves meanwhile', () => {
    it('rebuilds on the new head when the other change touched other paths', async () => {
      const s = await setup();
      let theirs = '';
      s.upstream.beforeNextUpdate(async () => {
        theirs = await s.upstream.commitDirect('main', { 'src/other.ts': 'other\n' });
      });
      const { result } = await s.push({ files: [{ path: 'src/mine.ts', content: 'mine\n' }] });
      const head = await s.upstream.getBranchHead('main');
      expect(result?.commit).toBe(head);
      expect((await s.upstream.getCommit(head)).parents).toEqual([theirs]);
      expect(await s.file('src/other.ts')).toMatchObject({ text: 'other\n' });
      expect(await s.file('src/mine.ts')).toMatchObject({ text: 'mine\n' });
      expect(s.writes().filter((w) => w === 'updateBranch')).toHaveLength(2); // refused once, then landed
    });

    it('refuses a conflict on the same path, naming it and the new head', async () => {
      const s = await setup();
      s.upstream.beforeNextUpdate(
        async () => void (await s.upstream.commitDirect('main', { 'src/a.ts': 'theirs\n' })),
      );
      const { error, notes } = await s.push({ files: [{ path: 'src/a.ts', content: 'mine\n' }] });
      const head = await s.upstream.getBranchHead('main');
      expect(error).toBe(
        `push conflict, nothing was written: the branch moved to ${head} and that change also touched: src/a.ts. Read those files again and push again.`,
      );
      expect(notes.reason).toBe(`conflict with ${head}: src/a.ts`);
      expect(await s.file('src/a.ts')).toMatchObject({ text: 'theirs\n' });
    });

    it('counts a deletion and a mode change as conflicts too', async () => {
      const s = await setup();
      s.upstream.beforeNextUpdate(
        async () => void (await s.upstream.commitDirect('main', { 'src/a.ts': null })),
      );
      expect((await s.push({ files: [{ path: 'src/a.ts', content: 'mine\n' }] })).error).toMatch(
        /conflict.*touched: src\/a\.ts/,
      );
      const t = await setup();
      t.upstream.beforeNextUpdate(async () => {
        const base = await t.upstream.getCommit(await t.upstream.getBranchHead('main'));
        const tree = await t.upstream.createTree(base.tree, [
          { path: 'src/a.ts', mode: '100755', content: 'a\n' },
        ]);
        await t.upstream.updateBranch('main', await t.upstream.createCommit('chmod', tree, [base.sha]));
      });
      expect((await t.push({ files: [{ path: 'src/a.ts', content: 'mine\n' }] })).error).toMatch(/conflict/);
    });

    it('refuses when the other change made a deletion impossible', async () => {
      const s = await setup();
      s.upstream.beforeNextUpdate(
        async () => void (await s.upstream.commitDirect('main', { 'src/file': null })),
      );
      const { error } = await s.push({ deletions: ['src/file'] });
      expect(error).toMatch(/conflict.*src\/file/);
    });

    it('tries three times in all, then gives up', async () => {
      const s = await setup();
      let moves = 0;
      const move = async (): Promise<void> => {
        moves++;
        await s.upstream.commitDirect('main', { [`other/${moves}`]: 'x' });
        s.upstream.beforeNextUpdate(move);
      };
      s.upstream.beforeNextUpdate(move);
      const { error } = await s.push({ files: [{ path: 'src/b.ts', content: 'b' }] });
      const head = await s.upstream.getBranchHead('main');
      expect(error).toBe(
        `push failed, nothing was written: the branch kept moving (now at ${head}); try again`,
      );
      expect(moves).toBe(3);
      expect(s.writes().filter((w) => w === 'createCommit')).toHaveLength(3);
      expect(s.writes().filter((w) => w === 'updateBranch')).toHaveLength(3);
    });

    it('passes on an upstream failure of the ref update as it is', async () => {
      const s = await setup();
      const failing = { ...s.upstream, updateBranch: async () => Promise.reject(new Error('boom')) };
      const pusher = new Pusher(new RepoView(failing, 'main'), NO_FILTER);
      await expect(
        pusher.push(perimeter, { message: 'm', files: [{ path: 'src/z', content: 'z' }] }, { paths: [] }),
      ).rejects.toThrow('boom');
    });
  });

  describe('when pushes arrive together', () => {
    it('runs them one at a time, and a refused one does not stop the next', async () => {
      const s = await setup();
      const results = await Promise.all([
        s.push({ files: [{ path: 'src/p1', content: '1' }] }),
        s.push({ files: [{ path: 'README.md', content: 'no' }] }),
        s.push({ files: [{ path: 'src/p2', content: '2' }] }),
      ]);
      expect(results.map((r) => (r.error ? 'refused' : 'ok'))).toEqual(['ok', 'refused', 'ok']);
      expect(s.writes().filter((w) => w === 'updateBranch')).toHaveLength(2);
      expect(s.upstream.log.filter((w) => w === 'updateBranch')).toHaveLength(2);
    });
  });
});
