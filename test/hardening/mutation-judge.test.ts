/**
 * The verdict's wording and state pinned in-process for the mutation run: the stand-in suite
 * (test/verify/verify-job.test.ts) shows the same cases end to end but is too slow to run per mutant.
 */
import { describe, expect, it } from 'vitest';
import { compareSnapshots, judge, type JobFacts } from '../../src/verify/index.js';
import type { Change } from '../../src/verify/change.js';
import type { BranchHistory } from '../../src/verify/index.js';
import { compiledPerimeter } from '@perimeter/test-rigs';
import { A, B, C, jobFacts } from '../verify/support/job-facts.js';

const impl = compiledPerimeter({ name: 'impl', read: ['**'], write: ['src/**'], branches: ['agent/**'] });

function facts(overrides: Partial<JobFacts> = {}): JobFacts {
  return jobFacts({
    ledger: { ok: true, commits: [B], perPerimeter: { impl: { calls: 2, refusals: 0 } } },
    perimeters: [impl],
    identity: 'mallory',
    branchMoves: new Map(),
    ...overrides,
  });
}

/** The activity list's account of `ref` moving through `heads` by force pushes. */
function history(ref: string, ...heads: string[]): Map<string, BranchHistory> {
  const moves = heads.slice(1).map((after, i) => ({
    ref,
    before: heads[i] as string,
    after,
    actor: 'mallory',
    activityType: 'force_push',
    timestamp: '2026-01-01T00:00:00Z',
  }));
  return new Map([[ref, { ref, moves }]]);
}

const change = (path: string, extra: Partial<Change> = {}): Change => ({ path, kind: 'modified', ...extra });

describe('judge, pinned', () => {
  it('is a success when everything was checked and inside, and passes facts through', () => {
    const verdict = judge(facts({ changes: [change('src/a.ts')], notes: ['n'] }));
    expect(verdict).toMatchObject({
      state: 'success',
      branch: 'agent/x',
      startHead: A,
      endHead: B,
      violations: [],
      unchecked: [],
      notes: ['n'],
      refChanges: [],
      commits: { gateway: [B], direct: [], others: [], unattributed: [], complete: true },
      perPerimeter: { impl: { calls: 2, refusals: 0 } },
    });
    expect(verdict.files).toEqual([
      {
        path: 'src/a.ts',
        kind: 'modified',
        allowed: true,
        rule: 'impl: write glob "src/**"',
        perimeter: 'impl',
      },
    ]);
  });

  it('words path, symlink and submodule violations, and intermediate ones', () => {
    const verdict = judge(
      facts({
        changes: [
          change('docs/a.md'),
          change('src/link', { kind: 'added', newMode: '120000' }),
          change('src/sub', { kind: 'modified', newMode: '160000' }),
          change('src/gone-link', { kind: 'deleted', oldMode: '120000', newMode: '120000' }),
          change('src/gone-sub', { kind: 'deleted', oldMode: '160000', newMode: '160000' }),
          change('src/x\u0000', { problem: 'NUL in a name' }),
        ],
        intermediate: [change('docs/b.md', { kind: 'added' })],
      }),
    );
    expect(verdict.state).toBe('failure');
    expect(verdict.violations).toEqual([
      {
        kind: 'path',
        path: 'docs/a.md',
        message: 'docs/a.md: modified outside every perimeter (impl: no write glob matches)',
      },
      { kind: 'symlink', path: 'src/link', message: 'src/link: symlink added (symlinks are never allowed)' },
      {
        kind: 'submodule',
        path: 'src/sub',
        message: 'src/sub: submodule modified (submodules are never allowed)',
      },
      {
        kind: 'path',
        path: 'src/x\u0000',
        message: 'src/x\u0000: modified outside every perimeter (invalid path: NUL in a name)',
      },
      {
        kind: 'path',
        path: 'docs/b.md',
        message:
          'docs/b.md: added outside every perimeter by an intermediate commit (impl: no write glob matches)',
      },
    ]);
    expect(verdict.files.filter((f) => f.allowed).map((f) => f.path)).toEqual([
      'src/gone-link',
      'src/gone-sub',
    ]);
    expect(verdict.files.find((f) => f.path === 'docs/b.md')?.transient).toBe(true);
  });

  it('names the protected rule once, and refuses every path when no perimeter may work on the branch', () => {
    const verdict = judge(facts({ changes: [change('src/.github/x.yml'), change('.github/w.yml')] }));
    expect(verdict.violations.map((v) => v.message)).toEqual([
      'src/.github/x.yml: modified outside every perimeter (impl: protected: .github/**)',
      '.github/w.yml: modified outside every perimeter (impl: no write glob matches; protected: .github/**)',
    ]);
    const elsewhere = judge(facts({ branch: 'main', changes: [change('src/a.ts')], refChanges: [] }));
    expect(elsewhere.violations.map((v) => v.message)).toEqual([
      'src/a.ts: modified outside every perimeter (no exposed perimeter may work on branch "main")',
    ]);
  });

  it('words deleted and rewritten branches, force pushes and other refs with short SHAs', () => {
    const deleted = judge(facts({ endHead: null, newCommits: { shas: [], complete: true } }));
    expect(deleted.violations).toEqual([
      {
        kind: 'branch-deleted',
        ref: 'refs/heads/agent/x',
        message: 'branch "agent/x" was deleted during the job',
      },
    ]);
    const rewritten = judge(
      facts({ historyRewritten: true, branchMoves: history('refs/heads/agent/x', A, C) }),
    );
    expect(rewritten.violations).toEqual([
      {
        kind: 'history',
        ref: 'refs/heads/agent/x',
        message: 'history of "agent/x" was rewritten: aaaaaaa is not an ancestor of bbbbbbb',
      },
    ]);
    const forced = judge(facts({ branchMoves: history('refs/heads/agent/x', A, C, B) }));
    expect(forced.violations.map((v) => v.message)).toEqual([
      '"agent/x" held ccccccc during the job (force_push by mallory), which its end head does not contain: history was rewritten and the commits in between were not checked',
    ]);
    const refs = judge(
      facts({
        refChanges: [
          { ref: 'refs/heads/agent/x', kind: 'moved', before: A, after: B },
          { ref: 'refs/tags/v1', kind: 'created', before: null, after: C },
        ],
        branchMoves: history('refs/heads/main', A, C, A),
      }),
    );
    expect(refs.refChanges).toEqual([{ ref: 'refs/tags/v1', kind: 'created', before: null, after: C }]);
    expect(refs.violations).toEqual([
      {
        kind: 'ref',
        ref: 'refs/tags/v1',
        message:
          'refs/tags/v1 was created during the job (nothing → ccccccc); only "agent/x" may change (GitHub records no actor for refs outside refs/heads; name it in ignore-refs if another workflow changes it)',
      },
      {
        kind: 'ref',
        ref: 'refs/heads/main',
        message:
          'refs/heads/main was changed during the job and changed back (force_push by mallory, aaaaaaa → ccccccc; force_push by mallory, ccccccc → aaaaaaa); only "agent/x" may change (by mallory, the identity of this job\'s token: another workflow with the same token cannot be told apart; name it in ignore-refs if one changes it)',
      },
    ]);
  });

  it('is an error, never a success, when the ledger is missing or broken, and leaves commits unattributed', () => {
    const missing = judge(facts({ ledger: null }));
    expect(missing.state).toBe('error');
    expect(missing.unchecked).toEqual(['there is no gateway ledger, so commits could not be attributed']);
    expect(missing.commits).toEqual({
      gateway: [],
      direct: [],
      others: [],
      unattributed: [B],
      complete: true,
    });
    expect(missing.perPerimeter).toEqual({});
    const broken = judge(facts({ ledger: { ok: false, commits: [B], perPerimeter: {} } }));
    expect(broken.unchecked).toEqual(['the gateway ledger is broken: unknown problem']);
    const said = judge(facts({ ledger: { ok: false, problem: 'record 3', commits: [], perPerimeter: {} } }));
    expect(said.unchecked).toEqual(['the gateway ledger is broken: record 3']);
    expect(said.state).toBe('error');
  });

  it('denies direct pushes when told to, names them, and is an error when the list is incomplete', () => {
    const denied = judge(
      facts({
        directPushes: 'deny',
        newCommits: { shas: [C, B], complete: true },
        ledger: { ok: true, commits: [B, C], perPerimeter: {} },
        gatewayCommits: [B],
      }),
    );
    expect(denied.violations).toEqual([
      {
        kind: 'direct-push',
        ref: 'refs/heads/agent/x',
        message: '1 commit(s) reached "agent/x" without the gateway (direct-pushes: deny): ccccccc',
      },
    ]);
    expect(denied.commits).toEqual({
      gateway: [B],
      direct: [C],
      others: [],
      unattributed: [],
      complete: true,
    });
    const clean = judge(facts({ directPushes: 'deny' }));
    expect(clean.state).toBe('success');
    const incomplete = judge(facts({ directPushes: 'deny', newCommits: { shas: [B], complete: false } }));
    expect(incomplete.unchecked).toEqual([
      'not every new commit could be listed, so not each one was examined',
    ]);
    expect(incomplete.state).toBe('error');
    // Whatever direct-pushes says: a commit not listed is a commit not examined.
    const checkIncomplete = judge(facts({ newCommits: { shas: [B], complete: false } }));
    expect(checkIncomplete.state).toBe('error');
    expect(checkIncomplete.commits.complete).toBe(false);
  });

  it('notes allowed direct pushes, and is an error when the new commits are unknown', () => {
    const noted = judge(facts({ newCommits: { shas: [C], complete: true } }));
    expect(noted.notes).toEqual([
      '1 commit(s) were pushed without the gateway (allowed by direct-pushes: check)',
    ]);
    expect(noted.state).toBe('success');
    const unknown = judge(facts({ newCommits: null }));
    expect(unknown.unchecked).toEqual(['the new commits could not be listed']);
    expect(unknown.commits).toEqual({
      gateway: [],
      direct: [],
      others: [],
      unattributed: [],
      complete: false,
    });
    const unchanged = judge(facts({ newCommits: null, endHead: A, refChanges: [] }));
    expect(unchanged.state).toBe('success');
  });

  it('keeps unchecked facts from the caller and makes them an error', () => {
    const verdict = judge(facts({ unchecked: ['x'] }));
    expect(verdict).toMatchObject({ state: 'error', unchecked: ['x'] });
  });
});

describe('compareSnapshots, pinned', () => {
  it('lists created, moved and deleted refs by name and skips unchanged ones', () => {
    expect(
      compareSnapshots(
        { 'refs/heads/b': A, 'refs/heads/a': A, 'refs/tags/t': C },
        { 'refs/heads/a': B, 'refs/heads/c': C, 'refs/tags/t': C },
      ),
    ).toEqual([
      { ref: 'refs/heads/a', kind: 'moved', before: A, after: B },
      { ref: 'refs/heads/b', kind: 'deleted', before: A, after: null },
      { ref: 'refs/heads/c', kind: 'created', before: null, after: C },
    ]);
  });
});
