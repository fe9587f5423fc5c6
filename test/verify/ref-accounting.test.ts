import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PushActivity } from '../../src/github/upstream.js';
import {
  accountForBranches,
  isInertMarker,
  MARKER_PREFIX,
  startFromActivity,
  ZERO_SHA,
} from '../../src/verify/gathering/ref-accounting.js';

const sha = (n: number): string => n.toString(16).padStart(40, '0');
const R = 'refs/heads/r';

/** GitHub's list, newest first, for moves given oldest first. */
function list(moves: Array<[string, string | null, string | null]>): PushActivity[] {
  return moves
    .map(([ref, before, after], i) => ({
      ref,
      before: before ?? ZERO_SHA,
      after: after ?? ZERO_SHA,
      actor: 'a',
      activityType: 'push',
      timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
    }))
    .reverse();
}

describe('accountForBranches', () => {
  describe('when the list holds every move', () => {
    it('gives each branch its moves from its start value to its end value, oldest first', () => {
      const account = accountForBranches(
        list([
          [R, sha(1), sha(2)],
          [R, sha(2), null],
          [R, null, sha(3)],
        ]),
        { [R]: sha(1) },
        { [R]: sha(3) },
      );
      expect(account.unaccounted).toEqual([]);
      expect(account.branches.get(R)?.moves.map((m) => m.after)).toEqual([sha(2), ZERO_SHA, sha(3)]);
    });

    it('keeps a branch that moved away and back, and leaves out moves before the start value and after the end', () => {
      const account = accountForBranches(
        list([
          [R, sha(9), sha(1)], // before the job: it arrived at its start value
          [R, sha(1), sha(2)],
          [R, sha(2), sha(1)],
          [R, sha(1), sha(5)], // after the end snapshot
        ]),
        { [R]: sha(1) },
        { [R]: sha(1) },
      );
      expect(account.branches.get(R)?.moves.map((m) => `${m.before}>${m.after}`)).toEqual([
        `${sha(1)}>${sha(2)}`,
        `${sha(2)}>${sha(1)}`,
      ]);
    });
  });

  describe('when the list does not account for a branch', () => {
    it.each([
      ['it shows no move, though the branch moved', [], 'no move away'],
      [
        'its chain breaks',
        [
          [R, sha(1), sha(2)],
          [R, sha(7), sha(3)],
        ],
        'not continuous',
      ],
      ['it has not caught up with the end', [[R, sha(1), sha(2)]], 'does not show it arriving'],
    ] as const)('says so when %s', (_, moves, words) => {
      const account = accountForBranches(
        list(moves as unknown as Array<[string, string, string]>),
        { [R]: sha(1) },
        { [R]: sha(3) },
      );
      expect(account.unaccounted).toEqual([expect.stringContaining(words)]);
    });
  });

  it('leaves refs outside refs/heads alone (GitHub does not record them)', () => {
    const account = accountForBranches([], { 'refs/tags/t': sha(1) }, { 'refs/tags/t': sha(2) });
    expect(account).toEqual({ branches: new Map(), unaccounted: [] });
  });

  it('accounts for exactly the moves made between the snapshots, whatever came before (property)', () => {
    const values = fc.constantFrom(null, sha(1), sha(2), sha(3), sha(4));
    const refs = fc.constantFrom('refs/heads/a', 'refs/heads/b');
    fc.assert(
      fc.property(
        fc.array(fc.tuple(refs, values), { maxLength: 8 }),
        fc.array(fc.tuple(refs, values), { maxLength: 8 }),
        (before, during) => {
          // play the moves: each sets a ref to a value; a move to the value it holds is no move
          const state: Record<string, string | null> = {};
          const moves: Array<[string, string | null, string | null]> = [];
          const play = (steps: Array<[string, string | null]>) => {
            for (const [ref, value] of steps) {
              const from = state[ref] ?? null;
              if (from === value) continue;
              moves.push([ref, from, value]);
              state[ref] = value;
            }
          };
          play(before);
          const snapshot = (): Record<string, string> =>
            Object.fromEntries(Object.entries(state).filter((e): e is [string, string] => e[1] !== null));
          const start = snapshot();
          const first = moves.length;
          play(during);
          const account = accountForBranches(list(moves), start, snapshot());
          expect(account.unaccounted).toEqual([]);
          for (const ref of ['refs/heads/a', 'refs/heads/b']) {
            const truth = moves.slice(first).filter(([r]) => r === ref);
            const got = account.branches.get(ref)?.moves ?? [];
            // what came before the job may be taken for the job's (never the reverse): the job's moves end it
            expect(got.length).toBeGreaterThanOrEqual(truth.length);
            expect(got.slice(got.length - truth.length).map((m) => m.after)).toEqual(
              truth.map(([, , after]) => after ?? ZERO_SHA),
            );
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('isInertMarker', () => {
  const start = { 'refs/heads/main': sha(1) };
  it('ignores an end marker that held only commits some ref held at the start', () => {
    expect(isInertMarker(`refs/heads/${MARKER_PREFIX}x`, [ZERO_SHA, sha(1)], start)).toBe(true);
  });
  it('judges a marker-named branch that carried anything new, and any other branch', () => {
    expect(isInertMarker(`refs/heads/${MARKER_PREFIX}x`, [sha(2)], start)).toBe(false);
    expect(isInertMarker('refs/heads/other', [sha(1)], start)).toBe(false);
  });
});

describe('startFromActivity', () => {
  const branches = ['refs/heads/main', 'refs/heads/agent/work', 'refs/heads/other'];
  const TAG = 'refs/tags/v1';
  /** a ref's value: a commit, or absent */
  const value = fc.option(fc.integer({ min: 1, max: 6 }).map(sha), { nil: null });

  it('finds the refs as they were before every recorded move, from the end and the moves alone', () => {
    fc.assert(
      fc.property(
        fc.tuple(...branches.map(() => value)),
        fc.array(fc.tuple(fc.constantFrom(...branches), value), { maxLength: 12 }),
        fc.option(fc.integer({ min: 1, max: 6 }).map(sha), { nil: null }),
        (initial, updates, tag) => {
          // ground truth: the refs at the start, then each update applied and recorded as GitHub records it
          const start: Record<string, string> = {};
          branches.forEach((ref, i) => {
            if (initial[i]) start[ref] = initial[i];
          });
          if (tag) start[TAG] = tag;
          const refs = { ...start };
          const moves: Array<[string, string | null, string | null]> = [];
          for (const [ref, next] of updates) {
            const before = refs[ref] ?? null;
            if (before === next) continue;
            moves.push([ref, before, next]);
            if (next === null) delete refs[ref];
            else refs[ref] = next;
          }
          expect(startFromActivity(list(moves), refs)).toEqual(
            Object.fromEntries(Object.entries(start).sort(([a], [b]) => (a < b ? -1 : 1))),
          );
          // and the moves account for every branch from that start to the end
          expect(
            accountForBranches(list(moves), startFromActivity(list(moves), refs), refs).unaccounted,
          ).toEqual([]);
        },
      ),
    );
  });

  it('cannot see a tag made during the window: GitHub records moves of branches only', () => {
    expect(startFromActivity([], { [TAG]: sha(9) })).toEqual({ [TAG]: sha(9) });
  });
});
