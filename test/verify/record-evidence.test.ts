import { describe, expect, it } from 'vitest';
import type { RunArtifact, WorkflowJob, WorkflowStep } from '../../src/github/upstream.js';
import { judgeRecordArtifact, RecordEvidenceError } from '../../src/verify/index.js';

const NAME = 'perimeter-implement-1';

const step = (name: string, started: string, completed: string, conclusion = 'success'): WorkflowStep => ({
  name,
  number: 0,
  status: 'completed',
  conclusion,
  startedAt: `2026-12-01T10:00:${started}Z`,
  completedAt: `2026-12-01T10:00:${completed}Z`,
});

/** Set up at :00, main :01-:02, the agent :02-:20, post :20-:24, checkout's post :24-:25, Complete job. */
const job = (over: { post?: string } = {}): WorkflowJob => ({
  id: 7,
  runId: 4242,
  runAttempt: 1,
  name: 'implement',
  status: 'completed',
  conclusion: 'success',
  startedAt: '2026-12-01T10:00:00Z',
  completedAt: '2026-12-01T10:00:26Z',
  runnerName: 'GitHub Actions 1',
  steps: [
    step('Set up job', '00', '01'),
    step('Run octo/perimeter@v1', '01', '02'),
    step('Run claude -p "$TASK"', '02', '20'),
    step('Post Run octo/perimeter@v1', '20', '24', over.post),
    step('Post Run actions/checkout@v5', '24', '25'),
    step('Complete job', '25', '26'),
  ],
});

const artifact = (over: Partial<RunArtifact> = {}): RunArtifact => ({
  id: 7001,
  name: NAME,
  createdAt: '2026-12-01T10:00:22Z',
  digest: 'sha256:ab',
  expired: false,
  ...over,
});

const refusal = (artifacts: RunArtifact[], jobs = [job()]): string => {
  try {
    judgeRecordArtifact(NAME, artifacts, jobs);
  } catch (error) {
    expect(error).toBeInstanceOf(RecordEvidenceError);
    return (error as Error).message;
  }
  throw new Error('the artifact was taken for the record');
};

describe('judgeRecordArtifact', () => {
  it("takes the one artifact of the name that the agent job's post step uploaded, with its digest", () => {
    expect(judgeRecordArtifact(NAME, [artifact()], [job()])).toEqual({
      id: 7001,
      digest: 'sha256:ab',
      job: 'implement',
    });
  });

  it('takes one uploaded in the second the agent steps ended, or the second the last post step ended', () => {
    for (const createdAt of ['2026-12-01T10:00:20Z', '2026-12-01T10:00:25Z'])
      expect(judgeRecordArtifact(NAME, [artifact({ createdAt })], [job()]).id).toBe(7001);
  });

  it('passes over a step GitHub gives no end time (skipped)', () => {
    const skipped = job();
    skipped.steps.splice(3, 0, { ...step('Run tests', '20', '20', 'skipped'), completedAt: null });
    expect(judgeRecordArtifact(NAME, [artifact()], [skipped]).id).toBe(7001);
  });

  describe('when an agent step uploaded it', () => {
    it('throws naming the time and the agent steps', () => {
      expect(refusal([artifact({ createdAt: '2026-12-01T10:00:19Z' })])).toMatch(
        /created at 2026-12-01T10:00:19Z, before the steps of job "implement" ahead of its post steps ended \(2026-12-01T10:00:20Z\)/,
      );
    });
  });

  describe('when it replaced the record after post', () => {
    it('throws naming the time post ended', () => {
      expect(refusal([artifact({ createdAt: '2026-12-01T10:00:26Z' })])).toMatch(
        /after the post steps of job "implement" ended \(2026-12-01T10:00:25Z\): it replaced the record/,
      );
    });
  });

  describe('when a post step failed (post fails when the name was taken)', () => {
    it('throws naming the step', () => {
      expect(refusal([artifact()], [job({ post: 'failure' })])).toContain(
        'the post step "Post Run octo/perimeter@v1" of job "implement" ended failure',
      );
    });
  });

  describe('when the run holds no such artifact, two of them, or one without a digest', () => {
    it.each([
      [[], 'GitHub lists no artifact'],
      [[artifact(), artifact({ id: 7002 })], 'GitHub lists 2 artifacts'],
      [[artifact({ digest: null })], 'GitHub records no digest'],
      [[artifact({ expired: true })], 'has expired'],
      [[artifact({ name: 'perimeter-other-1' })], 'GitHub lists no artifact'],
    ])('throws (%#)', (artifacts, says) => {
      expect(refusal(artifacts)).toContain(says);
    });
  });

  describe('when the job has no post step GitHub timed', () => {
    it('throws', () => {
      const cancelled = { ...job(), steps: job().steps.slice(0, 3) };
      expect(refusal([artifact()], [cancelled])).toContain('no finished post step');
    });
  });

  describe('when a matrix has several legs', () => {
    it("takes the artifact inside one leg's post steps", () => {
      const other = { ...job(), id: 8, name: 'implement (b)', steps: job().steps.map((s) => ({ ...s })) };
      other.steps[3] = step('Post Run octo/perimeter@v1', '40', '44');
      other.steps[2] = step('Run claude', '02', '40');
      expect(judgeRecordArtifact(NAME, [artifact()], [other, job()]).job).toBe('implement');
    });
  });
});
