/**
 * Agent jobs an hour on one repository, verification included: the built action run as a runner runs it
 * (main, the agent's session through the gateway endpoint, post; and in the two-job setup the verify job),
 * with the economy section's repository and session. Each phase is metered on the stand-in: REST requests
 * charged to the rate limit, GraphQL points (a separate budget of 1,000 an hour for GITHUB_TOKEN), and git
 * smart HTTP requests (charged to neither). Jobs an hour: the smaller of 1,000 / REST and 1,000 / GraphQL.
 */
import { actionDir, Job, TwoJobs } from '@perimeter/test-rigs';
import { compilePerimeter, parseConfig } from '../src/policy/index.js';
import { difference, type Cost } from './economy/counting.js';
import { runSessionSteps } from './economy/perimeter-session.js';
import { makeRepo, type RepoSize } from './economy/repo-model.js';
import { SESSION_PERIMETER } from './economy/economy.js';
import { makeSession, type SessionShape } from './economy/session-script.js';

export interface PhaseCost {
  rest: number;
  /** all REST requests, 304s included */
  requests: number;
  graphql_points: number;
  git: number;
  routes: Record<string, number>;
}

export interface JobsRow {
  setup: 'one job (post verifies)' | 'two jobs (the verify job verifies)';
  phases: Record<string, PhaseCost>;
  rest: number;
  graphql_points: number;
  git: number;
  jobs_per_hour: number;
  receipt: string;
}

const BUDGET = 1000;

function phase(cost: Cost): PhaseCost {
  return {
    rest: cost.spent,
    requests: cost.requests,
    graphql_points: cost.graphqlPoints,
    git: cost.git,
    routes: cost.byRoute,
  };
}

function row(setup: JobsRow['setup'], phases: Record<string, PhaseCost>, receipt: string): JobsRow {
  const sum = (key: 'rest' | 'graphql_points' | 'git'): number =>
    Object.values(phases).reduce((n, p) => n + p[key], 0);
  const rest = sum('rest');
  const points = sum('graphql_points');
  const perHour = Math.min(BUDGET / Math.max(rest, 1), points > 0 ? BUDGET / points : Infinity);
  return {
    setup,
    phases,
    rest,
    graphql_points: points,
    git: sum('git'),
    jobs_per_hour: Math.round(perHour * 10) / 10,
    receipt,
  };
}

export async function runJobs(options: { repo: RepoSize; session: SessionShape }): Promise<JobsRow[]> {
  const model = makeRepo(options.repo);
  const spec = parseConfig(model.config).perimeters.find((p) => p.name === SESSION_PERIMETER)!;
  const perimeter = compilePerimeter(spec);
  const steps = makeSession(
    model,
    (p) => perimeter.canRead(p).allowed,
    (p) => perimeter.canWrite(p).allowed,
    options.session,
  );
  const dir = await actionDir();
  const files = model.files as Record<string, string>;
  const history = model.history as Array<{ message: string; files: Record<string, string | null> }>;
  const inputs = { perimeters: SESSION_PERIMETER };
  const rows: JobsRow[] = [];

  {
    const job = await Job.create({ files, history, actionDir: dir, inputs, branch: 'main' });
    try {
      const phases: Record<string, PhaseCost> = {};
      let before = job.gh.stats();
      const mark = (name: string): void => {
        const now = job.gh.stats();
        phases[name] = phase(difference(now, before));
        before = now;
      };
      const main = await job.main();
      if (main.exitCode !== 0) throw new Error(`main failed: ${main.stderr}`);
      mark('main');
      await runSessionSteps(await job.agent(SESSION_PERIMETER), job.gh, job.commits, steps);
      mark('session');
      const post = await job.post();
      mark('post');
      const status = (await job.statuses(await job.head())).find((s) => s.context === 'perimeter');
      rows.push(
        row(
          'one job (post verifies)',
          phases,
          `${post.exitCode === 0 ? 'passed' : 'failed'}, ${status?.state ?? 'no status'}`,
        ),
      );
    } finally {
      await job.close();
    }
  }
  {
    const jobs = await TwoJobs.create({ files, history, actionDir: dir, inputs, branch: 'main' });
    try {
      const gh = jobs.agent.gh;
      const phases: Record<string, PhaseCost> = {};
      let before = gh.stats();
      const mark = (name: string): void => {
        const now = gh.stats();
        phases[name] = phase(difference(now, before));
        before = now;
      };
      const main = await jobs.startAgentJob();
      if (main.exitCode !== 0) throw new Error(`main failed: ${main.stderr}`);
      mark('main');
      await runSessionSteps(await jobs.agent.agent(SESSION_PERIMETER), gh, jobs.agent.commits, steps);
      mark('session');
      await jobs.endAgentJob();
      mark('post');
      const verify = await jobs.verify();
      mark('verify job');
      const status = (await jobs.agent.statuses(await jobs.agent.head(), jobs.verifyToken)).find(
        (s) => s.context === 'perimeter',
      );
      rows.push(
        row(
          'two jobs (the verify job verifies)',
          phases,
          `${verify.exitCode === 0 ? 'passed' : 'failed'}, ${status?.state ?? 'no status'}`,
        ),
      );
    } finally {
      await jobs.close();
    }
  }
  return rows;
}
