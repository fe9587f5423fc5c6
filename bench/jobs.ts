/**
 * Agent jobs an hour on one repository, verification included: the built action run as a runner runs it
 * (main, the agent's session through the gateway endpoint, post; and in the two-job setup the verify job),
 * on two workloads: the economy section's repository and session, and a real project's history
 * (PERIMETER_HISTORY_REPO, the MCP TypeScript SDK: history-session.ts's 40 calls of whole-branch pages, wide
 * commits and merges, then a push). Each phase is metered on the stand-in: REST requests charged to the rate
 * limit, GraphQL points (a separate budget of 1,000 an hour for GITHUB_TOKEN), and git smart HTTP requests
 * (charged to neither). Jobs an hour: the smaller of 1,000 / REST and 1,000 / GraphQL. Beside them, in the same
 * run, the same session as the reference servers send it (naive-session.ts), with no verification at all.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { actionDir, Job, TwoJobs, type JobOptions } from '@perimeter/test-rigs';
import { difference, type Cost } from './economy/counting.js';
import { runNaiveSession } from './economy/naive-session.js';
import { runSessionSteps } from './economy/perimeter-session.js';
import type { RepoSize } from './economy/repo-model.js';
import { benchSession, SESSION_PERIMETER } from './economy/economy.js';
import type { SessionShape, Step } from './economy/session-script.js';
import { gitText } from '@perimeter/fake-github';
import { CONFIG as HISTORY_CONFIG, sessionCalls } from './history-session.js';

export interface PhaseCost {
  rest: number;
  /** all REST requests, 304s included */
  requests: number;
  graphql_points: number;
  git: number;
  routes: Record<string, number>;
}

export type Workload =
  | 'bench session'
  | "the SDK's history"
  | "the servers' history"
  | 'mixed session on the SDK'
  | 'mixed session on the servers';

export interface JobsRow {
  workload: Workload;
  setup:
    | 'one job (post verifies)'
    | 'two jobs (the verify job verifies)'
    | 'server-github (no verification)'
    | 'github-mcp-server (no verification)';
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

function row(
  workload: Workload,
  setup: JobsRow['setup'],
  phases: Record<string, PhaseCost>,
  receipt: string,
): JobsRow {
  const sum = (key: 'rest' | 'graphql_points' | 'git'): number =>
    Object.values(phases).reduce((n, p) => n + p[key], 0);
  const rest = sum('rest');
  const points = sum('graphql_points');
  const perHour = Math.min(BUDGET / Math.max(rest, 1), points > 0 ? BUDGET / points : Infinity);
  return {
    workload,
    setup,
    phases,
    rest,
    graphql_points: points,
    git: sum('git'),
    jobs_per_hour: Math.round(perHour * 10) / 10,
    receipt,
  };
}

/** What a workload is: the repository (files on `main`, or a real history with them committed on top), the
 * perimeter, and the session's steps once the repository exists (they may name its commits). */
interface WorkloadSpec {
  name: Workload;
  repository: Pick<JobOptions, 'files' | 'history' | 'source'>;
  perimeter: string;
  steps: (job: Job) => Promise<Step[]>;
}

/** Perimeter's two setups, then the reference servers' replay, each on a repository of its own. */
async function measure(workload: WorkloadSpec): Promise<JobsRow[]> {
  const dir = await actionDir();
  const options = {
    ...workload.repository,
    actionDir: dir,
    inputs: { perimeters: workload.perimeter },
    branch: 'main',
  };
  const rows: JobsRow[] = [];
  const meter = (job: Job) => {
    const phases: Record<string, PhaseCost> = {};
    let before = job.gh.stats();
    return {
      phases,
      mark(name: string): void {
        const now = job.gh.stats();
        phases[name] = phase(difference(now, before));
        before = now;
      },
    };
  };
  {
    const job = await Job.create(options);
    try {
      const steps = await workload.steps(job);
      const m = meter(job);
      const main = await job.main();
      if (main.exitCode !== 0) throw new Error(`main failed: ${main.stderr}`);
      m.mark('main');
      const run = await runSessionSteps(await job.agent(workload.perimeter), job.gh, job.commits, steps);
      // PERIMETER_BENCH_TRACE=1: which calls of the session spent either budget, and on what
      if (process.env.PERIMETER_BENCH_TRACE)
        for (const step of run.steps)
          if (step.cost.spent > 0 || step.cost.graphqlPoints > 0)
            console.log(`${workload.name}: ${step.label}: ${JSON.stringify(step.cost.byRoute)}`);
      m.mark('session');
      const post = await job.post();
      m.mark('post');
      const status = (await job.statuses(await job.head())).find((s) => s.context === 'perimeter');
      rows.push(
        row(
          workload.name,
          'one job (post verifies)',
          m.phases,
          `${post.exitCode === 0 ? 'passed' : 'failed'}, ${status?.state ?? 'no status'}`,
        ),
      );
    } finally {
      await job.close();
    }
  }
  {
    const jobs = await TwoJobs.create(options);
    try {
      const steps = await workload.steps(jobs.agent);
      const m = meter(jobs.agent);
      const main = await jobs.startAgentJob();
      if (main.exitCode !== 0) throw new Error(`main failed: ${main.stderr}`);
      m.mark('main');
      await runSessionSteps(
        await jobs.agent.agent(workload.perimeter),
        jobs.agent.gh,
        jobs.agent.commits,
        steps,
      );
      m.mark('session');
      await jobs.endAgentJob();
      m.mark('post');
      const verify = await jobs.verify();
      m.mark('verify job');
      const status = (await jobs.agent.statuses(await jobs.agent.head(), jobs.verifyToken)).find(
        (s) => s.context === 'perimeter',
      );
      rows.push(
        row(
          workload.name,
          'two jobs (the verify job verifies)',
          m.phases,
          `${verify.exitCode === 0 ? 'passed' : 'failed'}, ${status?.state ?? 'no status'}`,
        ),
      );
    } finally {
      await jobs.close();
    }
  }
  {
    const job = await Job.create(options);
    try {
      const steps = await workload.steps(job);
      const naive = await runNaiveSession(
        {
          fake: job.gh,
          repoDir: job.bare,
          token: job.token,
          commits: job.commits,
          upstream: () => {
            throw new Error('the replay sends its own requests');
          },
          close: () => job.close(),
        },
        steps,
      );
      const only = (rest: number): Record<string, PhaseCost> => ({
        session: { rest, requests: rest, graphql_points: 0, git: 0, routes: {} },
      });
      rows.push(row(workload.name, 'server-github (no verification)', only(naive.serverGithub), 'none'));
      rows.push(
        row(workload.name, 'github-mcp-server (no verification)', only(naive.githubMcpServer), 'none'),
      );
    } finally {
      await job.close();
    }
  }
  return rows;
}

/** The economy section's repository and session. */
export async function runJobs(options: { repo: RepoSize; session: SessionShape }): Promise<JobsRow[]> {
  const { model, steps } = benchSession(options.repo, options.session);
  return measure({
    name: 'bench session',
    repository: {
      files: model.files as Record<string, string>,
      history: model.history as Array<{ message: string; files: Record<string, string | null> }>,
    },
    perimeter: SESSION_PERIMETER,
    steps: async () => steps,
  });
}

/** A real project's history to run the history session on: where its clone is, its perimeters, a push. */
export interface RealHistory {
  name: Workload;
  /** the mixed session's workload name on this repository */
  mixed: Workload;
  /** a folder the mixed session lists and reads in (readable) */
  folder: string;
  /** a file that exists and the perimeter may not read */
  hidden: string;
  /** a bare or mirror clone with a `main` */
  source: string;
  config: string;
  /** the one file the session pushes, inside the perimeter's write globs */
  push: string;
}

/** The MCP servers monorepo: 4,158 commits on main, 2,044 of them merges, wide formatting commits. */
export const SERVERS_CONFIG = `version: 1
perimeters:
  dev:
    read: ["src/**", "scripts/**", "README.md", "package.json", "tsconfig.json"]
    write: ["src/**"]
    branches: ["main"]
`;

/** The real histories of the headline: the SDK's (PERIMETER_HISTORY_REPO) and the servers' (PERIMETER_HISTORY_REPO_2). */
export function realHistories(): RealHistory[] {
  return [
    {
      name: "the SDK's history",
      mixed: 'mixed session on the SDK',
      folder: 'packages/core-internal/src',
      hidden: '.github/CODEOWNERS',
      source: resolve(process.env.PERIMETER_HISTORY_REPO ?? '.cache/history/typescript-sdk.git'),
      config: HISTORY_CONFIG,
      push: 'packages/core/src/perimeter-bench.ts',
    },
    {
      name: "the servers' history",
      mixed: 'mixed session on the servers',
      folder: 'src/everything',
      hidden: '.github/dependabot.yml',
      source: resolve(process.env.PERIMETER_HISTORY_REPO_2 ?? '.cache/history/servers.git'),
      config: SERVERS_CONFIG,
      push: 'src/perimeter-bench.ts',
    },
  ];
}

/**
 * A real project's history with its perimeters.yml committed on `main`: the 40-call history session
 * (history-session.ts), then a push of one file. Null without the repository.
 */
export async function runHistoryJobs(history: RealHistory = realHistories()[0]!): Promise<JobsRow[] | null> {
  if (!existsSync(history.source)) return null;
  return measure({
    name: history.name,
    repository: { files: { 'perimeters.yml': history.config }, source: history.source },
    perimeter: 'dev',
    steps: async (job) => {
      const steps: Step[] = (await sessionCalls(job.bare)).map(([, tool, args]) => {
        if (tool === 'list_commits') return { tool, args: { page: args.page as number } };
        const history = job.commits.indexOf(args.sha as string);
        if (history < 0) throw new Error(`${String(args.sha)} is not on main's first-parent history`);
        return { tool: 'get_commit', commit: { history } };
      });
      steps.push({
        tool: 'push_files',
        args: {
          message: 'Session push (1 file)',
          files: [{ path: history.push, content: 'export const pushed = true;\n' }],
        },
      });
      return steps;
    },
  });
}

/**
 * A 40-call mixed session on a real history: the tree, a folder, file reads (some repeated, one hidden, one
 * missing), two batches, history (whole-branch pages, the folder's commits, wide commits and merges) and 3
 * pushes (1, 5 and 1 files), each followed by reads of what it wrote. Null without the repository.
 */
export async function runMixedJobs(history: RealHistory = realHistories()[0]!): Promise<JobsRow[] | null> {
  if (!existsSync(history.source)) return null;
  return measure({
    name: history.mixed,
    repository: { files: { 'perimeters.yml': history.config }, source: history.source },
    perimeter: 'dev',
    steps: async (job) => {
      const listed = await gitText(job.bare, ['ls-tree', '-r', '--name-only', 'main', '--', history.folder]);
      const files = listed.split('\n').filter(Boolean).slice(0, 12);
      const calls = await sessionCalls(job.bare);
      const commits = calls
        .filter(([, tool]) => tool === 'get_commit')
        .map(([, , args]) => job.commits.indexOf(args.sha as string))
        .filter((n) => n >= 0);
      const pick = (n: number) => commits[Math.floor((n * commits.length) / 6)] ?? job.commits.length - 2;
      const dir = history.push.slice(0, history.push.lastIndexOf('/'));
      const written = (n: number, k: number) => `${dir}/perimeter-bench-${n}-${k}.ts`;
      const push = (n: number, count: number): Step => ({
        tool: 'push_files',
        args: {
          message: `Session push ${n} (${count} files)`,
          files: Array.from({ length: count }, (_, k) => ({
            path: written(n, k),
            content: `export const pushed = ${n * 10 + k};\n`,
          })),
        },
      });
      const read = (i: number): Step => ({ tool: 'get_file', args: { path: files[i % files.length]! } });
      const steps: Step[] = [
        { tool: 'get_tree', args: {} },
        { tool: 'get_tree', args: { path: history.folder, recursive: true } },
        ...[0, 1, 2, 3, 0, 4, 1, 5, 2, 6].map(read),
        { tool: 'get_files', args: { paths: files.slice(6, 11) } },
        { tool: 'get_file', args: { path: history.hidden } },
        { tool: 'get_file', args: { path: `${history.folder}/missing.ts` } },
        { tool: 'list_commits', args: {} },
        { tool: 'list_commits', args: { page: 2 } },
        { tool: 'list_commits', args: { path: history.folder } },
        ...[0, 1, 2, 3, 4, 5].map((n): Step => ({ tool: 'get_commit', commit: { history: pick(n) } })),
        push(1, 1),
        { tool: 'get_file', args: { path: written(1, 0) } },
        push(2, 5),
        { tool: 'get_files', args: { paths: Array.from({ length: 5 }, (_, k) => written(2, k)) } },
        { tool: 'get_commit', commit: { push: 1 } },
        { tool: 'list_commits', args: { path: dir } },
        push(3, 1),
        { tool: 'get_tree', args: { path: dir } },
        ...[7, 3, 8, 0, 9].map(read),
        { tool: 'get_files', args: { paths: files.slice(0, 5) } },
        { tool: 'list_commits', args: {} },
      ];
      return steps;
    },
  });
}
