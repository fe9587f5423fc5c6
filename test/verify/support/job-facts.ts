import type { BlobFacts, JobFacts } from '../../../src/verify/index.js';
import { ZERO_SHA } from '../../../src/verify/gathering/ref-accounting.js';
import type { BranchHistory } from '../../../src/verify/index.js';
import { compiledPerimeter } from '@perimeter/test-rigs';

export const A = 'a'.repeat(40);
export const B = 'b'.repeat(40);
export const C = 'c'.repeat(40);

/** The activity list's account of one ref going through `heads` in order (null: absent). */
export function moved(ref: string, heads: Array<string | null>, type = 'push'): Map<string, BranchHistory> {
  const value = (sha: string | null) => sha ?? ZERO_SHA;
  const moves = heads.slice(1).map((after, i) => ({
    ref,
    before: value(heads[i] ?? null),
    after: value(after),
    actor: 'mallory',
    activityType: type,
    timestamp: '2026-01-01T00:00:00Z',
  }));
  return new Map([[ref, { ref, moves }]]);
}

/** Every blob read, one byte each, no credential. */
const anyBlob = new (class extends Map<string, BlobFacts> {
  override get(): BlobFacts {
    return { size: 1, credentials: [] };
  }
})();

/**
 * What the verifier gathered for a plain job: the gateway moved agent/x from A to B through one commit the
 * ledger records, and nothing else happened. Tests override what their case changes.
 */
export function jobFacts(overrides: Partial<JobFacts> = {}): JobFacts {
  return {
    // the one new commit made the whole net change, and every blob is one byte with nothing secret in it
    commitChanges: [{ sha: B, changes: overrides.changes ?? [] }],
    blobs: anyBlob,
    branch: 'agent/x',
    startHead: A,
    endHead: B,
    baseline: { sha: A, label: 'the start of the job' },
    historyRewritten: false,
    changes: [],
    intermediate: [],
    refChanges: [{ ref: 'refs/heads/agent/x', kind: 'moved', before: A, after: B }],
    start: { 'refs/heads/agent/x': A, 'refs/heads/main': A },
    newCommits: { shas: [B], complete: true },
    ledger: { ok: true, commits: [B], perPerimeter: { impl: { calls: 3, refusals: 1 } } },
    directPushes: 'check',
    perimeters: [
      compiledPerimeter({ name: 'impl', read: ['**'], write: ['src/**'] }),
      compiledPerimeter({ name: 'tests', read: ['**'], write: ['test/**'] }),
    ],
    gatewayCommits: [B],
    otherCommits: [],
    identity: 'github-actions[bot]',
    ignoreRefs: [],
    branchMoves: moved('refs/heads/agent/x', [A, B]),
    unchecked: [],
    notes: [],
    ...overrides,
  };
}
