/**
 * The post step while GitHub fails, run the way a runner runs it (dist bundles, separate processes):
 * whatever it cannot check or cannot post, it fails the step, and it never posts a success it did not check.
 */
import { describe, expect, it } from 'vitest';
import type { Job, StatusRecord } from '@perimeter/test-rigs';
import { jobSuite } from '../action/support/suite.js';

const { started } = jobSuite();

/** A job whose agent made an allowed change through the gateway: absent faults, a success. */
async function jobWithAllowedChange(): Promise<Job> {
  const job = await started();
  const agent = await job.agent('implementer');
  const pushed = await agent.callTool({
    name: 'push_files',
    arguments: {
      message: 'allowed',
      files: [{ path: 'src/count.ts', content: 'export const count = () => 1;\n' }],
    },
  });
  expect(pushed.isError).toBeFalsy();
  return job;
}

/** Every status on the start and end heads, once GitHub answers again. */
async function allStatuses(job: Job, startHead: string): Promise<StatusRecord[]> {
  job.gh.clearFaults();
  return [...(await job.statuses(await job.head())), ...(await job.statuses(startHead))];
}

describe('the post step when GitHub fails', () => {
  describe('when the refs cannot be listed (rate limit spent far beyond the wait)', () => {
    it('posts an error receipt and fails', async () => {
      const job = await jobWithAllowedChange();
      // refs come over git (ls-refs) and fall back to REST: both fail
      job.gh.injectFault({ kind: 'status', status: 502, count: 10_000, route: /^GIT / });
      job.gh.injectFault({ kind: 'rate-limit', count: 1, retryAfter: 3_600, route: /matching-refs/ });
      const post = await job.post();
      expect(post.exitCode).toBe(1);
      expect(post.summary).toMatch(/not verified/i);
      const statuses = await allStatuses(job, job.runner.main!.state.startHead!);
      expect(statuses.map((s) => s.state)).not.toContain('success');
      expect(statuses.filter((s) => s.context === 'perimeter')[0]?.state).toBe('error');
    });
  });

  describe('when the trees cannot be read after the refs were', () => {
    it('does not report success for the change it could not check, and fails', async () => {
      const job = await jobWithAllowedChange();
      // history comes from a git copy first, the API after it fails: both fail
      job.gh.injectFault({ kind: 'status', status: 502, count: 10_000, route: /git-upload-pack/ });
      job.gh.injectFault({
        kind: 'rate-limit',
        count: 1_000,
        retryAfter: 3_600,
        route: /git\/(trees|commits)|compare/,
      });
      const post = await job.post();
      expect(post.exitCode).toBe(1);
      const statuses = await allStatuses(job, job.runner.main!.state.startHead!);
      expect(statuses.map((s) => s.state)).not.toContain('success');
      expect(statuses.filter((s) => s.context === 'perimeter')[0]?.state).toBe('error');
    });
  });

  describe('when the receipt cannot be posted', () => {
    it('fails the step even though the change was allowed', async () => {
      const job = await jobWithAllowedChange();
      job.gh.injectFault({ kind: 'status', status: 502, count: 1_000, route: /statuses/ });
      const post = await job.post();
      expect(post.exitCode).toBe(1);
      // only main's pending status: nothing replaced it
      expect((await allStatuses(job, job.runner.main!.state.startHead!)).map((s) => s.state)).toEqual([
        'pending',
      ]);
    });
  });

  describe('when GitHub answers nothing but 5xx', () => {
    it('fails the step and posts nothing', async () => {
      const job = await jobWithAllowedChange();
      job.gh.injectFault({ kind: 'status', status: 503, count: 10_000 });
      const post = await job.post();
      expect(post.exitCode).toBe(1);
      expect(post.log + post.stderr).not.toContain(job.token);
      // only main's pending status: nothing replaced it
      expect((await allStatuses(job, job.runner.main!.state.startHead!)).map((s) => s.state)).toEqual([
        'pending',
      ]);
    });
  });
});
