/**
 * push_files' decisions without I/O (src/gateway/push/push-plan.ts), and the pusher's order: nothing reaches
 * the landing unless every check passed. The same decisions against a repository are in
 * test/hardening/mutation-push.test.ts (memory upstream) and test/gateway/push-files.test.ts (stand-in).
 */
import { describe, expect, it } from 'vitest';
import type { PushResult, Landing } from '../../src/gateway/push/push-landing.js';
import {
  checkRequest,
  conflicts,
  credentialProblems,
  isNoChange,
  shapeProblems,
  treeChanges,
  writtenFiles,
  type PushPlan,
} from '../../src/gateway/push/push-plan.js';
import { Pusher } from '../../src/gateway/push/push.js';
import type { Snapshot } from '../../src/gateway/reads/repo-view.js';
import type { CallNotes } from '../../src/gateway/tool-answer.js';
import { TreeIndex } from '../../src/gateway/reads/tree-index.js';
import type { TreeEntry } from '../../src/github/upstream.js';
import { compilePerimeter, parseConfig } from '../../src/policy/index.js';
import { NO_FILTER, type AnswerFilter } from '../../src/safety/answer-filter.js';

const perimeter = compilePerimeter(
  parseConfig(`version: 1
perimeters:
  dev:
    read: ["src/**", "fixtures/**", "bin/**"]
    write: ["src/**", "fixtures/**", "bin/**", "drop/**"]
    allow-secrets-in: ["fixtures/**"]
    limits: { files-per-push: 3, bytes-per-file: 10, bytes-per-push: 15 }
`).perimeters[0]!,
);

function snapshot(head: string, entries: Array<[string, string, string?]>): Snapshot {
  const list: TreeEntry[] = entries.map(([path, sha, mode]) => ({
    path,
    sha,
    mode: mode ?? (sha === 'tree' ? '040000' : '100644'),
    type: sha === 'tree' ? 'tree' : 'blob',
  }));
  const signature = { name: 'n', email: 'e', date: '2026-01-01T00:00:00Z' };
  return {
    head,
    commit: {
      sha: head,
      tree: `tree-of-${head}`,
      parents: [],
      message: '',
      author: signature,
      committer: signature,
    },
    index: new TreeIndex(`tree-of-${head}`, list),
  };
}

const text = (path: string, content: string) => ({
  path,
  bytes: new TextEncoder().encode(content),
  text: content,
});
const plan = (files: PushPlan['files'], deletions: string[] = []): PushPlan => ({
  message: 'm',
  files,
  deletions,
  unscanned: [],
});

describe('checkRequest', () => {
  describe('when every path is writable and within the limits', () => {
    it('decodes the files (base64 text becomes inline text) and finds no problem', () => {
      const checked = checkRequest(perimeter, {
        message: 'm',
        files: [
          { path: 'src/a.ts', content: 'a' },
          { path: 'src/b.ts', content: Buffer.from('b\n').toString('base64'), encoding: 'base64' },
        ],
        deletions: ['src/old.ts'],
      });
      expect(checked.problems).toEqual([]);
      expect(checked.files.map((f) => [f.path, f.text])).toEqual([
        ['src/a.ts', 'a'],
        ['src/b.ts', 'b\n'],
      ]);
      expect(checked.deletions).toEqual(['src/old.ts']);
    });
  });

  describe('when paths, limits or encodings are wrong', () => {
    it('lists every problem, one line each, in request order', () => {
      const checked = checkRequest(perimeter, {
        message: 'm',
        files: [
          { path: 'src/a.ts', content: '0123456789x' },
          { path: '../x', content: '' },
          { path: 'src/a.ts', content: 'a' },
          { path: 'README.md', content: '' },
          { path: 'src/bin', content: 'not base64!', encoding: 'base64' },
        ],
        deletions: ['drop/x'],
      });
      expect(checked.problems).toEqual([
        '6 paths, the limit is 3 per push',
        'src/a.ts: 11 bytes, the limit is 10 per file',
        expect.stringMatching(/^"\.\.\/x": invalid path: /),
        'src/a.ts: named more than once',
        expect.stringMatching(/^README\.md: not writable \(/),
        'src/bin: content is not valid base64',
        'drop/x: cannot delete a path this endpoint cannot read',
      ]);
    });

    it('counts the bytes of all files against the per-push limit', () => {
      const checked = checkRequest(perimeter, {
        message: 'm',
        files: [
          { path: 'src/a', content: '12345678' },
          { path: 'src/b', content: '12345678' },
        ],
      });
      expect(checked.problems).toEqual(['16 bytes in all, the limit is 15 per push']);
    });

    it('says a path the perimeter would send to review is refused because writes are not staged', () => {
      const reviewing = compilePerimeter(
        parseConfig('version: 1\nperimeters:\n  dev:\n    write: ["src/**"]\n    review: ["docs/**"]\n')
          .perimeters[0]!,
      );
      expect(
        checkRequest(reviewing, { message: 'm', files: [{ path: 'docs/a.md', content: 'a' }] }).problems,
      ).toEqual(['docs/a.md: not writable (no write glob matches; review applies with writes: stage only)']);
    });

    it('refuses an empty push', () => {
      expect(checkRequest(perimeter, { message: 'm', files: [] }).problems).toEqual([
        'nothing to push: no files and no deletions',
      ]);
    });
  });
});

describe('credentialProblems', () => {
  const finds: AnswerFilter = {
    ...NO_FILTER,
    findCredentials: async (t: string) => (t.includes('KEY') ? ['Test key', 'Test key'] : []),
  };

  it('scans the message, the paths and each file, except where allow-secrets-in says', async () => {
    const files = [text('src/KEY.ts', 'x'), text('src/a.ts', 'KEY'), text('fixtures/k.pem', 'KEY')];
    expect(await credentialProblems(perimeter, 'add KEY', files, finds)).toEqual({
      problems: [
        'the commit message looks like it contains a credential (Test key)',
        'a file path looks like it contains a credential (Test key)',
        'src/a.ts: looks like it contains a credential (Test key)',
      ],
      unscanned: [],
    });
  });

  it('scans the readable runs of binary content and says what it could not scan', async () => {
    const binary = new Uint8Array([0, 1, 2, ...new TextEncoder().encode('a KEY here'), 0]);
    const gzip = new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3]);
    const result = await credentialProblems(
      perimeter,
      'm',
      [
        { path: 'src/b.bin', bytes: binary, text: null },
        { path: 'src/c.gz', bytes: gzip, text: null },
      ],
      finds,
    );
    expect(result.problems).toEqual(['src/b.bin: looks like it contains a credential (Test key)']);
    expect(result.unscanned).toEqual([
      expect.stringMatching(/^src\/c\.gz: .*only its uncompressed parts were scanned$/),
    ]);
  });
});

describe('shapeProblems', () => {
  const base = snapshot('h1', [
    ['src', 'tree'],
    ['src/dir', 'tree'],
    ['src/dir/a', 's1'],
    ['src/file', 's2'],
  ]);

  it('refuses deleting what is missing or a directory, writing onto a directory or below a file', () => {
    expect(
      shapeProblems(
        perimeter,
        base,
        plan([text('src/dir', ''), text('src/file/x', ''), text('src/new', '')], ['src/gone', 'src/dir']),
      ),
    ).toEqual([
      'src/gone: cannot delete, no such file',
      'src/dir: cannot delete a directory; name its files',
      'src/dir: is a directory',
      'src/file/x: src/file is a file, not a directory',
    ]);
  });
});

describe('treeChanges', () => {
  it('keeps an executable executable, sends text inline, binary by its blob, deletions as null', () => {
    const base = snapshot('h1', [
      ['bin/run', 's1', '100755'],
      ['src/a', 's2'],
    ]);
    const files = [
      text('bin/run', 'x'),
      text('src/a', 'y'),
      { path: 'src/b.bin', bytes: new Uint8Array([0]), text: null },
    ];
    expect(treeChanges(base, plan(files, ['src/old']), new Map([['src/b.bin', 'blob1']]))).toEqual([
      { path: 'bin/run', mode: '100755', content: 'x' },
      { path: 'src/a', mode: '100644', content: 'y' },
      { path: 'src/b.bin', mode: '100644', sha: 'blob1' },
      { path: 'src/old', sha: null },
    ]);
  });
});

describe('isNoChange', () => {
  const base = snapshot('h1', []);
  it('answers "no change" only for an unchanged tree of readable files', () => {
    expect(isNoChange(perimeter, base, base.commit.tree, plan([text('src/a', '')]))).toBe(true);
    expect(isNoChange(perimeter, base, 'other-tree', plan([text('src/a', '')]))).toBe(false);
    // drop/** is writable, not readable: the push commits, so `commit: null` confirms no guess
    expect(isNoChange(perimeter, base, base.commit.tree, plan([text('drop/a', '')]))).toBe(false);
  });
});

describe('conflicts', () => {
  const base = snapshot('h1', [
    ['src', 'tree'],
    ['src/a', 's1'],
    ['src/b', 's2'],
    ['bin', 'tree'],
    ['bin/run', 's3', '100644'],
  ]);

  describe('when the branch moved under unrelated paths', () => {
    it('finds none', () => {
      const next = snapshot(
        'h2',
        [...base.index.entries()]
          .map((e) => [e.path, e.sha, e.mode] as [string, string, string])
          .concat([['src/c', 's9', '100644']]),
      );
      expect(conflicts(perimeter, base, next, plan([text('src/a', 'x')], ['src/b']))).toEqual([]);
    });
  });

  describe('when a touched path changed content or mode, or the new tree refuses the push', () => {
    it('names each', () => {
      const next = snapshot('h2', [
        ['src', 'tree'],
        ['src/a', 's1-changed'],
        ['bin', 'tree'],
        ['bin/run', 's3', '100755'],
      ]);
      expect(
        conflicts(perimeter, base, next, plan([text('src/a', 'x'), text('bin/run', 'y')], ['src/b'])),
      ).toEqual(['src/a', 'bin/run', 'src/b', 'src/b: cannot delete, no such file']);
    });
  });
});

describe('writtenFiles', () => {
  it('gives each written file its mode, blob SHA (git hashes text itself) and size', () => {
    const files = [
      text('src/a', 'hello\n'),
      { path: 'src/b.bin', bytes: new Uint8Array([0, 1]), text: null },
    ];
    const p = plan(files);
    const changes = treeChanges(snapshot('h1', []), p, new Map([['src/b.bin', 'blob1']]));
    expect(writtenFiles(p, changes, new Map([['src/b.bin', 'blob1']]))).toEqual([
      // `git hash-object` of "hello\n"
      { path: 'src/a', mode: '100644', sha: 'ce013625030ba8dba906f756967f9e9ca394464a', size: 6 },
      { path: 'src/b.bin', mode: '100644', sha: 'blob1', size: 2 },
    ]);
  });
});

describe('Pusher', () => {
  class RecordingLanding implements Landing {
    plans: PushPlan[] = [];
    async land(_p: unknown, landed: PushPlan): Promise<PushResult> {
      this.plans.push(landed);
      return { commit: 'c', head: 'c', files: landed.files.map((f) => f.path), deletions: landed.deletions };
    }
  }
  const view = {} as ConstructorParameters<typeof Pusher>[0];

  describe('when a check fails', () => {
    it('never reaches the landing, and the ledger notes get the paths, digests and reason', async () => {
      const landing = new RecordingLanding();
      const pusher = new Pusher(view, NO_FILTER, landing);
      const notes: CallNotes = { paths: [] };
      await expect(
        pusher.push(perimeter, { message: 'm', files: [{ path: 'README.md', content: 'x' }] }, notes),
      ).rejects.toThrow(/^push refused, nothing was written:\n- README\.md: not writable/);
      expect(landing.plans).toEqual([]);
      expect(notes).toMatchObject({
        paths: ['README.md'],
        message: { length: 1 },
        content: [{ path: 'README.md', length: 1 }],
        reason: expect.stringMatching(/^README\.md: not writable/),
      });
    });
  });

  describe('when every check passes', () => {
    it('hands the landing the plan, with what could not be scanned', async () => {
      const landing = new RecordingLanding();
      const pusher = new Pusher(view, NO_FILTER, landing);
      const result = await pusher.push(
        perimeter,
        { message: 'm', files: [{ path: 'src/a', content: 'x' }] },
        { paths: [] },
      );
      expect(result.commit).toBe('c');
      expect(landing.plans).toEqual([plan([text('src/a', 'x')])]);
    });
  });
});
