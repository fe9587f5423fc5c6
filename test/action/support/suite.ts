/**
 * The jobs of one end-to-end suite: the action's bundles found (or built) once, every job closed after its
 * test; `create()` for a job, `started()` for one whose main step succeeded.
 */
import { afterEach, beforeAll, expect } from 'vitest';
import { actionDir, FILES, Job, type JobOptions } from '@perimeter/test-rigs';

export function jobSuite(defaults: Partial<JobOptions> = {}): {
  /** a job in the stand-in, closed after the test; no step run yet */
  create(options?: Partial<JobOptions>): Promise<Job>;
  /** a job whose main step succeeded */
  started(options?: Partial<JobOptions>): Promise<Job>;
} {
  let dir = '';
  const jobs: Job[] = [];
  beforeAll(async () => {
    dir = await actionDir();
  }, 600_000);
  afterEach(async () => {
    for (const job of jobs.splice(0)) await job.close();
  });
  const create = async (options: Partial<JobOptions> = {}): Promise<Job> => {
    const job = await Job.create({ files: FILES, actionDir: dir, ...defaults, ...options });
    jobs.push(job);
    return job;
  };
  return {
    create,
    async started(options = {}) {
      const job = await create(options);
      const main = await job.main();
      expect(main.exitCode, main.log + main.stderr).toBe(0);
      return job;
    },
  };
}
