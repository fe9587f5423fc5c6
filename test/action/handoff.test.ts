/** The handoff between main and a verify job: its schema, and the checks that tie it to GitHub's records. */
import { describe, expect, it } from 'vitest';
import type { StatusRecord, WorkflowJob } from '../../src/github/upstream.js';
import { HandoffError, parseHandoff, renderHandoff, type HandoffFacts } from '../../src/action/handoff.js';
import { checkPending, findAgentJob, receiptWindowOf } from '../../src/action/verify-job/handoff-check.js';

const A = 'a'.repeat(40);
const facts: HandoffFacts = {
  repository: 'octo/widgets',
  run: { id: 4242, attempt: 1, job: 'implement', runner: 'GitHub Actions 1' },
  branch: 'agent/work',
  config: { file: 'perimeters.yml', ref: 'main', sha: 'c'.repeat(40) },
  perimeters: ['implementer'],
  directPushes: 'check',
  ignoreRefs: [],
  identity: 'github-actions[bot]',
  startedAt: '2026-12-01T10:00:05.000Z',
  startRefs: { 'refs/heads/agent/work': A, 'refs/heads/main': 'b'.repeat(40) },
  pending: {
    id: 7,
    sha: A,
    context: 'perimeter',
    description: 'Agents at work',
    createdAt: '2026-12-01T10:00:10Z',
  },
};
const handoff = parseHandoff(renderHandoff(facts));

const job = (over: Partial<WorkflowJob> = {}): WorkflowJob => ({
  id: 1,
  runId: 4242,
  runAttempt: 1,
  name: 'implement',
  status: 'completed',
  conclusion: 'success',
  startedAt: '2026-12-01T10:00:00Z',
  completedAt: '2026-12-01T10:05:00Z',
  runnerName: 'GitHub Actions 1',
  ...over,
});

const pending = (over: Partial<StatusRecord> = {}): StatusRecord => ({
  id: 7,
  state: 'pending',
  context: 'perimeter',
  description: 'Agents at work',
  targetUrl: null,
  creator: 'github-actions[bot]',
  createdAt: '2026-12-01T10:00:10Z',
  ...over,
});

describe('parseHandoff', () => {
  it('reads back what main renders', () => {
    expect(handoff).toEqual({ format: 'perimeter-handoff', version: 1, ...facts });
  });

  describe('when the text is not a handoff', () => {
    it.each([
      ['', 'the handoff is empty'],
      ['[1', 'the handoff is not JSON'],
      ['{"format":"perimeter-handoff","version":9}', 'format version 9'],
      [JSON.stringify({ ...handoff, extra: 1 }), 'Unrecognized key'],
      [JSON.stringify({ ...handoff, startRefs: { 'refs/heads/x': 'nope' } }), 'startRefs.refs/heads/x'],
      [JSON.stringify({ ...handoff, directPushes: 'maybe' }), 'directPushes'],
    ])('throws a HandoffError naming what is wrong (%#)', (text, message) => {
      expect(() => parseHandoff(text)).toThrow(HandoffError);
      expect(() => parseHandoff(text)).toThrow(message);
    });
  });
});

describe('findAgentJob', () => {
  it("finds the one job of the run attempt on main's runner, running when main posted", () => {
    const verify = job({ id: 2, name: 'verify', runnerName: 'GitHub Actions 2', status: 'in_progress' });
    expect(findAgentJob([job(), verify], handoff).id).toBe(1);
  });

  describe('when GitHub does not show that job', () => {
    it.each([
      ['another attempt', [job({ runAttempt: 2 })], 'lists no job'],
      ['another runner', [job({ runnerName: 'GitHub Actions 9' })], 'lists no job'],
      ['a job that started later', [job({ startedAt: '2026-12-01T10:00:30Z' })], 'lists no job'],
      ['a job that ended before', [job({ completedAt: '2026-12-01T10:00:02Z' })], 'lists no job'],
      ['two candidates', [job(), job({ id: 2 })], 'cannot be told apart'],
      ['a job still running', [job({ status: 'in_progress', completedAt: null })], 'not completed'],
    ])('throws on %s', (_, jobs, message) => {
      expect(() => findAgentJob(jobs, handoff)).toThrow(message);
    });

    it('throws when the handoff starts long before the job did', () => {
      const early = parseHandoff(renderHandoff({ ...facts, startedAt: '2026-12-01T09:00:00Z' }));
      expect(() => findAgentJob([job()], early)).toThrow("the handoff's start");
    });
  });
});

describe('checkPending', () => {
  it("accepts GitHub's record of the pending status", () => {
    expect(() => checkPending([pending({ id: 3 }), pending()], handoff)).not.toThrow();
  });

  it.each([
    ['missing', [pending({ id: 8 })], 'GitHub has no status 7'],
    ['another creator', [pending({ creator: 'octocat' })], 'posted by octocat'],
    ['another state', [pending({ state: 'success' })], 'its state is success'],
    ['another time', [pending({ createdAt: '2026-12-01T10:00:11Z' })], 'posted at'],
    ['another text', [pending({ description: 'x' })], 'description differs'],
  ])('throws when it is %s', (_, statuses, message) => {
    expect(() => checkPending(statuses, handoff)).toThrow(message);
  });
});

describe('receiptWindowOf', () => {
  it('opens at the earlier of the job and main, and closes 5 s after the job completed', () => {
    expect(receiptWindowOf(handoff, job())).toEqual({
      context: 'perimeter',
      known: [7],
      since: '2026-12-01T10:00:00.000Z',
      until: '2026-12-01T10:05:05.000Z',
    });
  });
});
