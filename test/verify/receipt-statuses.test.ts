import { describe, expect, it } from 'vitest';
import type { CheckRunRecord, Receipts, StatusRecord } from '../../src/github/upstream.js';
import {
  findForeignCheckRuns,
  findForeignStatuses,
  MAX_STATUSES_PER_CONTEXT,
} from '../../src/verify/gathering/receipt-statuses.js';
import type { ReceiptWindow } from '../../src/verify/index.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const window: ReceiptWindow = {
  context: 'perimeter',
  known: [],
  since: '2026-12-01T10:00:00Z',
  until: '2026-12-01T10:30:00Z',
  checkRuns: true,
};

const run = (
  id: number,
  startedAt: string | null,
  name = 'perimeter',
  completedAt = startedAt,
): CheckRunRecord => ({
  id,
  name,
  status: 'completed',
  conclusion: 'success',
  title: 'ok',
  startedAt,
  completedAt,
  app: 'github-actions',
});

/** A small fake of the one Upstream call the search makes: check runs by commit. */
function upstream(
  runs: Record<string, CheckRunRecord[]>,
): Pick<Receipts, 'listCheckRuns'> & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    listCheckRuns: async (sha: string, name: string) => {
      asked.push(`${sha.slice(0, 1)} ${name}`);
      return runs[sha] ?? [];
    },
  };
}

describe('findForeignCheckRuns', () => {
  describe('when check runs of the receipt name are on the commits', () => {
    it('names every one claiming a start since the window opened, later ones and undated ones included', async () => {
      const fake = upstream({
        [A]: [run(1, '2026-12-01T09:59:59Z'), run(2, '2026-12-01T10:00:00Z'), run(3, '2099-01-01T00:00:00Z')],
        [B]: [run(4, null), run(5, 'not a time'), run(6, '2026-12-01T10:10:00Z', 'build')],
      });
      const found = await findForeignCheckRuns(fake, [A, B, A], window);
      expect(found.map((f) => [f.sha.slice(0, 1), f.run.id])).toEqual([
        ['a', 2],
        ['a', 3],
        ['b', 4],
        ['b', 5],
      ]);
      expect(fake.asked).toEqual(['a perimeter', 'b perimeter']);
    });
  });

  describe('when a check run claims to have started before the job', () => {
    it('names it when it claims to have completed since, or when the job made its commit', async () => {
      const fake = upstream({
        [A]: [
          run(1, '2001-01-01T00:00:00Z', 'perimeter', '2099-01-01T00:00:00Z'),
          run(2, '2001-01-01T00:00:00Z'),
        ],
        [B]: [run(3, '2001-01-01T00:00:00Z')],
      });
      const found = await findForeignCheckRuns(fake, [A, B], window, new Set([B]));
      expect(found.map((f) => [f.sha.slice(0, 1), f.run.id])).toEqual([
        ['a', 1],
        ['b', 3],
      ]);
    });
  });

  describe('when a list cannot be read', () => {
    it('throws, so the caller marks it unchecked', async () => {
      const failing: Pick<Receipts, 'listCheckRuns'> = {
        listCheckRuns: () => Promise.reject(new Error('403 Resource not accessible by integration')),
      };
      await expect(findForeignCheckRuns(failing, [A], window)).rejects.toThrow('Resource not accessible');
    });
  });
});

describe('findForeignStatuses', () => {
  const status = (id: number, createdAt: string, context = 'perimeter'): StatusRecord => ({
    id,
    state: 'success',
    context,
    description: 'All good',
    targetUrl: null,
    creator: 'github-actions[bot]',
    createdAt,
  });

  it('names statuses posted in the window and says which commits can take no more', async () => {
    const full = Array.from({ length: MAX_STATUSES_PER_CONTEXT }, (_, i) =>
      status(i + 10, '2026-12-01T10:05:00Z'),
    );
    const lists: Record<string, StatusRecord[]> = {
      [A]: full,
      [B]: [
        status(1, '2026-12-01T09:00:00Z'),
        status(2, '2026-12-01T10:01:00Z'),
        status(3, '2026-12-01T11:00:00Z'),
        status(4, '2026-12-01T10:01:00Z', 'build'),
      ],
    };
    const found = await findForeignStatuses(
      { listStatuses: async (sha: string) => lists[sha] ?? [] },
      [A, B],
      window,
    );
    expect(found.full).toEqual([A]);
    expect(found.foreign.filter((f) => f.sha === B).map((f) => [f.status.id, f.inWindow])).toEqual([
      [2, true],
      [3, false],
    ]);
    expect(found.foreign.filter((f) => f.sha === A)).toHaveLength(MAX_STATUSES_PER_CONTEXT);
  });
});

describe('screenReceipts', () => {
  describe('when the job reached 100 commits', () => {
    it('reads their receipts in at most 3 requests, with the answers of one REST list per commit', async () => {
      const { startHarness } = await import('@perimeter/test-rigs');
      const { commitToBare } = await import('@perimeter/fake-github');
      const { screenReceipts } = await import('../../src/verify/gathering/receipt-statuses.js');
      const h = await startHarness({
        files: { 'a.txt': 'a\n' },
        config: 'version: 1\nperimeters:\n  p:\n    read: ["**"]\n    write: []\n',
      });
      try {
        const shas: string[] = [];
        for (let i = 0; i < 100; i++)
          shas.push(await commitToBare(h.repoDir, 'main', { 'a.txt': `${i}\n` }, `c${i}`));
        const wide: ReceiptWindow = {
          ...window,
          since: '2000-01-01T00:00:00Z',
          until: '2999-01-01T00:00:00Z',
        };
        await h.upstream.createStatus(shas[10]!, {
          state: 'success',
          context: 'perimeter',
          description: 'forged',
        });
        await h.upstream.createStatus(shas[20]!, { state: 'success', context: 'ci', description: 'other' });
        for (const n of [30, 31])
          await h.upstream.createCheckRun(shas[n]!, {
            name: 'perimeter',
            conclusion: 'success',
            title: 'forged',
            summary: 'forged',
            annotations: [],
          });
        await h.upstream.createCheckRun(shas[30]!, {
          name: 'build',
          conclusion: 'success',
          title: 'b',
          summary: 'b',
          annotations: [],
        });
        h.fake.resetStats();
        const screen = await screenReceipts(h.upstream, shas, wide);
        const statuses = await findForeignStatuses(h.upstream, shas, wide, screen);
        const runs = await findForeignCheckRuns(h.upstream, shas, wide, new Set(), screen);
        expect(h.fake.stats().total).toBeLessThanOrEqual(3);
        expect(screen.size).toBe(100);
        // the same as one REST list per commit
        expect(statuses).toEqual(await findForeignStatuses(h.upstream, shas, wide));
        expect(runs).toEqual(await findForeignCheckRuns(h.upstream, shas, wide));
        expect(statuses.foreign.map((f) => f.sha)).toEqual([shas[10]]);
        expect(runs.map((f) => f.sha)).toEqual([shas[30], shas[31]]);
      } finally {
        await h.close();
      }
    });
  });
});
