import { describe, expect, it } from 'vitest';
import { compareSnapshots, judge, type JobFacts } from '../../src/verify/index.js';
import { compiledPerimeter } from '@perimeter/test-rigs';
import { A, B, C, jobFacts, moved } from './support/job-facts.js';

const facts = jobFacts;

describe('judge', () => {
  describe('when every change is inside some perimeter', () => {
    const src = { path: 'src/a.ts', kind: 'modified' as const, oldMode: '100644', newMode: '100644' };
    const test = { path: 'test/a.test.ts', kind: 'added' as const, newMode: '100644' };
    const twoCommits: Partial<JobFacts> = {
      endHead: C,
      changes: [src, test],
      commitChanges: [
        { sha: B, changes: [src] },
        { sha: C, changes: [test] },
      ],
      refChanges: [{ ref: 'refs/heads/agent/x', kind: 'moved', before: A, after: C }],
      newCommits: { shas: [C, B], complete: true },
      ledger: { ok: true, commits: [B, C], perPerimeter: {} },
      gatewayCommits: [B, C],
      branchMoves: moved('refs/heads/agent/x', [A, B, C]),
    };

    it('succeeds and names the perimeter and glob that allowed each file', () => {
      const verdict = judge(facts(twoCommits));
      expect(verdict.state).toBe('success');
      expect(verdict.violations).toEqual([]);
      expect(verdict.files.map((f) => [f.path, f.perimeter, f.rule])).toEqual([
        ['src/a.ts', 'impl', 'impl: write glob "src/**"'],
        ['test/a.test.ts', 'tests', 'tests: write glob "test/**"'],
      ]);
      expect(verdict.commits).toEqual({
        gateway: [C, B],
        direct: [],
        others: [],
        unattributed: [],
        complete: true,
      });
    });

    it('fails one commit that needs two perimeters, naming what each lacks', () => {
      const verdict = judge(facts({ changes: [src, test] }));
      expect(verdict.state).toBe('failure');
      expect(verdict.violations.map((v) => v.message)).toEqual([
        'commit bbbbbbb: no one perimeter may make the whole commit ("impl" may not write test/a.test.ts; "tests" may not write src/a.ts)',
      ]);
    });

    it("fails a commit over its perimeter's limits, pushed around the gateway or not", () => {
      const many = Array.from({ length: 3 }, (_, i) => ({
        path: `src/${i}.ts`,
        kind: 'added' as const,
        newMode: '100644',
      }));
      const narrow = compiledPerimeter({
        name: 'impl',
        read: ['**'],
        write: ['src/**'],
        limits: { filesPerPush: 2, bytesPerFile: 1000, bytesPerPush: 1000 },
      });
      const verdict = judge(facts({ changes: many, perimeters: [narrow] }));
      expect(verdict.violations.map((v) => v.message)).toEqual([
        'commit bbbbbbb: no one perimeter may make the whole commit ("impl" may push 2 path(s) at once, and the commit changes 3)',
      ]);
    });

    it('fails a commit whose content holds a credential, naming the file', () => {
      const secret = new Map([['f'.repeat(40), { size: 40, credentials: ['GitHub token'] }]]);
      const verdict = judge(facts({ changes: [{ ...src, newSha: 'f'.repeat(40) }], blobs: secret }));
      expect(verdict.violations).toEqual([
        expect.objectContaining({
          path: 'src/a.ts',
          message: expect.stringContaining('looks like it contains a credential (GitHub token)'),
        }),
      ]);
    });

    it('calls a commit whose content was not read unchecked, never a success', () => {
      const verdict = judge(facts({ changes: [{ ...src, newSha: 'f'.repeat(40) }], blobs: new Map() }));
      expect(verdict.state).toBe('error');
      expect(verdict.unchecked.join()).toContain('the content of 1 file(s) was not read');
    });

    it('calls new commits not each looked at unchecked', () => {
      const verdict = judge(facts({ changes: [src], commitChanges: undefined }));
      expect(verdict.state).toBe('error');
      expect(verdict.unchecked.join()).toContain('they were not each looked at');
    });
  });

  describe('when require-changes is on', () => {
    const idle: Partial<JobFacts> = {
      endHead: A,
      refChanges: [],
      newCommits: { shas: [], complete: true },
      gatewayCommits: [],
      ledger: { ok: true, commits: [], perPerimeter: {} },
      branchMoves: new Map(),
    };
    it('fails a job that changed nothing on its branch', () => {
      const verdict = judge(facts({ ...idle, requireChanges: true }));
      expect(verdict.state).toBe('failure');
      expect(verdict.violations).toEqual([
        expect.objectContaining({ kind: 'no-change', message: expect.stringContaining('changed nothing') }),
      ]);
    });
    it('leaves a job that changed nothing a success when it is off', () => {
      expect(judge(facts(idle)).state).toBe('success');
    });
    it('passes a job that delivered', () => {
      const changes = [{ path: 'src/a.ts', kind: 'modified' as const, oldMode: '100644', newMode: '100644' }];
      expect(judge(facts({ changes, requireChanges: true })).state).toBe('success');
    });
  });

  describe('when the commits behind each changed path are known', () => {
    it('names, on each violation, the commits that made it and who pushed each', () => {
      // A -> B by the gateway (github-actions[bot]), B -> C pushed around it by mallory
      const moves = new Map([
        [
          'refs/heads/agent/x',
          {
            ref: 'refs/heads/agent/x',
            moves: [
              {
                ...moved('refs/heads/agent/x', [A, B]).get('refs/heads/agent/x')!.moves[0]!,
                actor: 'github-actions[bot]',
              },
              moved('refs/heads/agent/x', [B, C]).get('refs/heads/agent/x')!.moves[0]!,
            ],
          },
        ],
      ]);
      const verdict = judge(
        facts({
          endHead: C,
          newCommits: { shas: [C, B], complete: true },
          refChanges: [{ ref: 'refs/heads/agent/x', kind: 'moved', before: A, after: C }],
          branchMoves: moves,
          changes: [
            { path: 'src/a.ts', kind: 'modified', oldMode: '100644', newMode: '100644' },
            { path: 'docs/x.md', kind: 'added', newMode: '100644' },
            { path: 'README.md', kind: 'modified', oldMode: '100644', newMode: '100644' },
          ],
          pathCommits: new Map([
            ['src/a.ts', [B]],
            ['docs/x.md', [C]],
            ['README.md', [C, B]],
          ]),
        }),
      );
      expect(verdict.violations.map((v) => [v.path, v.madeIn])).toEqual([
        ['docs/x.md', [{ sha: C, pusher: 'mallory' }]],
        [
          'README.md',
          [
            { sha: B, pusher: 'github-actions[bot]' },
            { sha: C, pusher: 'mallory' },
          ],
        ],
      ]);
    });
    it('names none where the commits were not each looked at', () => {
      const verdict = judge(facts({ changes: [{ path: 'README.md', kind: 'deleted', oldMode: '100644' }] }));
      expect(verdict.violations[0]!.madeIn).toBeUndefined();
    });
  });

  describe('when a path is outside every perimeter', () => {
    it('fails and lists the refusal of each perimeter', () => {
      const verdict = judge(facts({ changes: [{ path: 'README.md', kind: 'deleted', oldMode: '100644' }] }));
      expect(verdict.state).toBe('failure');
      expect(verdict.files[0]).toMatchObject({
        allowed: false,
        rule: 'impl: no write glob matches; tests: no write glob matches',
      });
      expect(verdict.violations).toEqual([expect.objectContaining({ kind: 'path', path: 'README.md' })]);
    });
  });

  describe('when a pushed path matches a deny glob or an optional protected family', () => {
    it('fails, naming the deny glob and the family', () => {
      const verdict = judge(
        facts({
          perimeters: [
            compiledPerimeter({
              name: 'impl',
              read: ['**'],
              write: ['**'],
              deny: ['**/*.lock'],
              ownerDeny: ['secrets/**'],
              protect: ['manifests'],
            }),
          ],
          changes: [
            { path: 'yarn.lock', kind: 'modified', oldMode: '100644', newMode: '100644' },
            { path: 'secrets/a.txt', kind: 'added', newMode: '100644' },
            { path: 'package.json', kind: 'modified', oldMode: '100644', newMode: '100644' },
            { path: 'src/a.ts', kind: 'modified', oldMode: '100644', newMode: '100644' },
          ],
        }),
      );
      expect(verdict.state).toBe('failure');
      expect(verdict.files.map((f) => [f.path, f.allowed, f.rule])).toEqual([
        ['yarn.lock', false, 'impl: deny glob "**/*.lock"'],
        ['secrets/a.txt', false, 'impl: top-level deny glob "secrets/**"'],
        ['package.json', false, 'impl: protected: package.json, manifests family'],
        ['src/a.ts', true, 'impl: write glob "**"'],
      ]);
    });
  });

  describe('when a protected path matches a write glob', () => {
    it('refuses it unless allow-protected names it', () => {
      const open = compiledPerimeter({ name: 'ops', read: ['**'], write: ['**'] });
      const trusted = compiledPerimeter({
        name: 'ci',
        read: ['**'],
        write: ['.github/**'],
        allowProtected: ['.github/**'],
      });
      const change = { path: '.github/workflows/x.yml', kind: 'added' as const, newMode: '100644' };
      expect(judge(facts({ perimeters: [open], changes: [change] })).files[0]).toMatchObject({
        allowed: false,
        rule: expect.stringContaining('protected'),
      });
      expect(judge(facts({ perimeters: [open, trusted], changes: [change] })).files[0]).toMatchObject({
        allowed: true,
        perimeter: 'ci',
      });
    });
  });

  describe('when a protected path matches no write glob', () => {
    it('says it is protected too', () => {
      const verdict = judge(facts({ changes: [{ path: 'CLAUDE.md', kind: 'added', newMode: '100644' }] }));
      expect(verdict.files[0]?.rule).toMatch(
        /^impl: no write glob matches; tests: no write glob matches; protected: /,
      );
    });
  });

  describe('when the perimeters are not bound to the branch', () => {
    it('refuses every path', () => {
      const verdict = judge(
        facts({
          perimeters: [
            compiledPerimeter({ name: 'impl', read: ['**'], write: ['src/**'], branches: ['feature/**'] }),
          ],
          changes: [{ path: 'src/a.ts', kind: 'added', newMode: '100644' }],
        }),
      );
      expect(verdict.state).toBe('failure');
      expect(verdict.files[0]?.rule).toBe('no exposed perimeter may work on branch "agent/x"');
    });
  });

  describe('when a symlink or submodule arrives inside a write glob', () => {
    it.each([
      ['120000', 'symlink'],
      ['160000', 'submodule'],
    ])('mode %s is a %s violation, added or retargeted, but deleting one is fine', (mode, kind) => {
      const added = judge(facts({ changes: [{ path: 'src/link', kind: 'added', newMode: mode }] }));
      expect(added.state).toBe('failure');
      expect(added.violations[0]?.kind).toBe(kind);
      const retargeted = judge(
        facts({ changes: [{ path: 'src/link', kind: 'modified', oldMode: mode, newMode: mode }] }),
      );
      expect(retargeted.violations[0]?.kind).toBe(kind);
      const deleted = judge(facts({ changes: [{ path: 'src/link', kind: 'deleted', oldMode: mode }] }));
      expect(deleted.state).toBe('success');
    });
  });

  describe('when an intermediate commit changed a path the end result does not show', () => {
    it('judges it too and marks it as undone later', () => {
      const verdict = judge(
        facts({
          changes: [{ path: 'src/a.ts', kind: 'modified', oldMode: '100644', newMode: '100644' }],
          intermediate: [{ path: '.env', kind: 'added', newMode: '100644' }],
        }),
      );
      expect(verdict.state).toBe('failure');
      expect(verdict.files.map((f) => [f.path, f.allowed, f.transient ?? false])).toEqual([
        ['src/a.ts', true, false],
        ['.env', false, true],
      ]);
      expect(verdict.violations[0]?.message).toContain('by an intermediate commit');
    });
  });

  describe('when history was rewritten or the branch deleted', () => {
    it('fails', () => {
      expect(judge(facts({ historyRewritten: true })).violations.map((v) => v.kind)).toEqual(['history']);
      expect(judge(facts({ endHead: null, newCommits: null })).violations.map((v) => v.kind)).toContain(
        'branch-deleted',
      );
    });
  });

  describe('when the branch was force-pushed away and back onto a descendant of the start', () => {
    it('fails once on the history, naming the head the end does not contain', () => {
      const verdict = judge(facts({ branchMoves: moved('refs/heads/agent/x', [A, C, B], 'force_push') }));
      expect(verdict.state).toBe('failure');
      expect(verdict.violations.map((v) => v.kind)).toEqual(['history']);
      expect(verdict.violations[0]!.message).toContain('held ccccccc during the job (force_push by mallory)');
    });

    it('does not add a second history violation when the rewrite shows in the refs already', () => {
      const verdict = judge(
        facts({ historyRewritten: true, branchMoves: moved('refs/heads/agent/x', [A, C, B], 'force_push') }),
      );
      expect(verdict.violations.map((v) => v.kind)).toEqual(['history']);
    });
  });

  describe('when the branch was deleted and created again during the job', () => {
    it('fails on the deletion even though it ends on a descendant of its start', () => {
      const verdict = judge(facts({ branchMoves: moved('refs/heads/agent/x', [A, null, A, B]) }));
      expect(verdict.state).toBe('failure');
      expect(verdict.violations.map((v) => v.kind)).toEqual(['branch-deleted']);
      expect(verdict.violations[0]!.message).toMatch(
        /deleted during the job \(by mallory\) and created again/,
      );
    });

    it('fails on a head held in between that its end does not contain', () => {
      const verdict = judge(
        facts({
          endHead: A,
          newCommits: { shas: [], complete: true },
          branchMoves: moved('refs/heads/agent/x', [A, null, C, null, A]),
        }),
      );
      expect(verdict.violations.map((v) => v.kind)).toEqual(['branch-deleted', 'history']);
    });
  });

  describe('when the activity list was not read', () => {
    it('is an error, never a success', () => {
      const verdict = judge(facts({ branchMoves: null }));
      expect(verdict.state).toBe('error');
      expect(verdict.unchecked.join()).toMatch(/activity list was not read/);
    });
  });

  describe('when the ledger claims a commit GitHub did not make', () => {
    it('counts it as pushed directly, which direct-pushes: deny refuses', () => {
      const verdict = judge(facts({ gatewayCommits: [], directPushes: 'deny' }));
      expect(verdict.commits).toMatchObject({ gateway: [], direct: [B] });
      expect(verdict.violations.map((v) => v.kind)).toEqual(['direct-push']);
    });
  });

  describe('when another ref changed', () => {
    it('fails for each, but not for the bound branch moving', () => {
      const verdict = judge(
        facts({
          refChanges: compareSnapshots(
            { 'refs/heads/agent/x': A, 'refs/heads/main': A, 'refs/tags/v1': C },
            { 'refs/heads/agent/x': B, 'refs/heads/main': B, 'refs/heads/new': C },
          ),
        }),
      );
      expect(verdict.violations.map((v) => [v.kind, v.ref])).toEqual([
        ['ref', 'refs/heads/main'],
        ['ref', 'refs/heads/new'],
        ['ref', 'refs/tags/v1'],
      ]);
      expect(verdict.refChanges.map((r) => r.kind)).toEqual(['moved', 'created', 'deleted']);
    });
  });

  describe('when commits were pushed around the gateway', () => {
    const direct = { newCommits: { shas: [C, B], complete: true } };
    it('counts them under direct-pushes: check', () => {
      const verdict = judge(facts(direct));
      expect(verdict.state).toBe('success');
      expect(verdict.commits).toMatchObject({ gateway: [B], direct: [C] });
      expect(verdict.notes.join()).toContain('without the gateway');
    });
    it('fails under direct-pushes: deny', () => {
      const verdict = judge(facts({ ...direct, directPushes: 'deny' }));
      expect(verdict.state).toBe('failure');
      expect(verdict.violations.map((v) => v.kind)).toEqual(['direct-push']);
    });
    it('is an error under deny when the commit list is incomplete', () => {
      const verdict = judge(facts({ newCommits: { shas: [B], complete: false }, directPushes: 'deny' }));
      expect(verdict.state).toBe('error');
    });
  });

  describe('when something could not be checked', () => {
    it.each([
      ['no ledger', { ledger: null }],
      [
        'a broken ledger',
        { ledger: { ok: false, problem: 'record 3 altered', commits: [], perPerimeter: {} } },
      ],
      ['a reported problem', { unchecked: ['the gateway died'] }],
      ['unknown new commits', { newCommits: null }],
    ])('is an error with %s', (_name, overrides) => {
      const verdict = judge(facts(overrides as Partial<JobFacts>));
      expect(verdict.state).toBe('error');
      expect(verdict.unchecked.length).toBeGreaterThan(0);
    });
    it('is still a failure when a violation was found', () => {
      const verdict = judge(facts({ ledger: null, historyRewritten: true }));
      expect(verdict.state).toBe('failure');
      expect(verdict.unchecked).toHaveLength(1);
    });
    it('never attributes commits without a usable ledger', () => {
      const verdict = judge(facts({ ledger: null, directPushes: 'deny' }));
      expect(verdict.commits).toMatchObject({ gateway: [], direct: [], others: [], unattributed: [B] });
      expect(verdict.state).toBe('error');
    });
  });
});
