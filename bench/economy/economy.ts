/**
 * Request economy: the scripted session through Perimeter, through the naive baseline (two variants)
 * and the computed floor, on the same repository model; each against its own fresh stand-in.
 */
import { compilePerimeter, parseConfig } from '../../src/policy/index.js';
import { startStandIn } from '../support/stand-in.js';
import { computeFloor } from './floor.js';
import { runNaiveSession, type NaiveRun } from './naive-session.js';
import { runPerimeterSession, type SessionRun } from './perimeter-session.js';
import { makeRepo, type RepoSize } from './repo-model.js';
import { makeSession, type SessionShape, type Step } from './session-script.js';

export const SESSION_PERIMETER = 'implementer';

/** GITHUB_TOKEN's hourly budgets per repository: 1,000 REST requests, and apart from them 1,000 GraphQL points */
const HOURLY_BUDGET = 1000;
const perHour = (spent: number): number => Math.round((HOURLY_BUDGET / Math.max(spent, 1)) * 10) / 10;

export interface EconomyOptions {
  repo: RepoSize;
  session: SessionShape;
  /** replay the naive baselines too (default true) */
  naive?: boolean;
}

export interface EconomyResult {
  repository: { files: number; commits: number; perimeters: number; perimeter: string };
  session: {
    calls: number;
    perimeter: number;
    perimeter_not_modified: number;
    perimeter_spent: number;
    /** REST requests charged and GraphQL calls: what the floor counts */
    perimeter_charged: number;
    /** GraphQL calls (in `perimeter` too) and the points they cost GraphQL's own budget */
    perimeter_graphql: number;
    perimeter_graphql_points: number;
    /**
     * Sessions like this one an hour within GITHUB_TOKEN's budgets: 1,000 REST requests (charged ones) and,
     * apart from them, 1,000 GraphQL points an hour per repository; `both` is the smaller
     */
    sessions_per_hour: {
      rest: number;
      graphql: number | null;
      both: number;
      server_github: number;
      github_mcp_server: number;
    };
    /** contents API per read, one contents PUT per file written (counted) */
    naive: number;
    /** github-mcp-server's own requests: ref + contents per read, push_files (measured) */
    naive_github_mcp_server: number;
    /** server-github's requests: a contents GET per read (measured), 4 per push_files (counted) */
    naive_server_github: number;
    floor: number;
    /** the floor without the ref checks a conditional GET gets answered 304 */
    floor_charged: number;
    floor_parts: {
      ref_checks: number;
      free_ref_checks: number;
      objects: number;
      writes: number;
      /** git smart HTTP requests for blobs (charged to neither budget) */
      git: number;
    };
    /** git smart HTTP requests the session made (blob fetches): charged to neither budget */
    perimeter_git: number;
    perimeter_to_floor: number;
    naive_to_perimeter: number;
    naive_github_mcp_server_to_perimeter: number;
    /** the same ratios on charged requests (304s excluded; the naive baselines make no conditional requests) */
    charged: {
      perimeter_to_floor: number;
      naive_to_perimeter: number;
      naive_github_mcp_server_to_perimeter: number;
      naive_server_github_to_perimeter: number;
    };
  };
  /** file count -> requests (the most any push of that size took) */
  push_files_requests: Record<string, number>;
  /** requests of each get_file that re-read unchanged content with no push just before */
  warm_repeat_reads: { count: number; max: number; histogram: Record<string, number> };
  by_tool: Record<
    string,
    {
      calls: number;
      perimeter: number;
      perimeter_charged: number;
      floor: number;
      floor_charged: number;
      naive: number;
    }
  >;
  steps: Array<{
    step: string;
    perimeter: number;
    not_modified: number;
    floor: number;
    floor_free_ref_checks: number;
    routes: Record<string, number>;
  }>;
}

/** The bench session: the generated repository, its `implementer` perimeter and the scripted calls on it. */
export function benchSession(repo: RepoSize, shape: SessionShape) {
  const model = makeRepo(repo);
  const spec = parseConfig(model.config).perimeters.find((p) => p.name === SESSION_PERIMETER)!;
  const perimeter = compilePerimeter(spec);
  const steps = makeSession(
    model,
    (p) => perimeter.canRead(p).allowed,
    (p) => perimeter.canWrite(p).allowed,
    shape,
  );
  return { model, perimeter, steps };
}

export async function runEconomy(options: EconomyOptions): Promise<EconomyResult> {
  const { model, perimeter, steps } = benchSession(options.repo, options.session);
  const floor = computeFloor(model, steps, perimeter);

  const onStandIn = async <T>(
    run: (s: Awaited<ReturnType<typeof startStandIn>>) => Promise<T>,
  ): Promise<T> => {
    const standIn = await startStandIn({ files: model.files, history: model.history });
    try {
      return await run(standIn);
    } finally {
      await standIn.close();
    }
  };
  const mine = await onStandIn((s) => runPerimeterSession(s, model.config, SESSION_PERIMETER, steps));
  const naive =
    options.naive === false
      ? {
          perFile: NaN,
          githubMcpServer: NaN,
          serverGithub: NaN,
          steps: steps.map((s) => ({ tool: s.tool, perFile: NaN, githubMcpServer: NaN, serverGithub: NaN })),
        }
      : await onStandIn((s) => runNaiveSession(s, steps));
  return summarize(
    model.files,
    model.history.length + 1,
    parseConfig(model.config).perimeters.length,
    steps,
    mine,
    naive,
    floor,
  );
}

function summarize(
  files: Record<string, string>,
  commits: number,
  perimeters: number,
  steps: Step[],
  mine: SessionRun,
  naive: NaiveRun,
  floor: ReturnType<typeof computeFloor>,
): EconomyResult {
  const ratio = (a: number, b: number): number => Math.round((a / b) * 100) / 100;
  const pushes: Record<string, number> = {};
  for (const s of mine.steps)
    if (s.files !== undefined)
      pushes[String(s.files)] = Math.max(pushes[String(s.files)] ?? 0, s.cost.requests);
  const warm = mine.steps.filter((s) => s.warmRepeat);
  const histogram: Record<string, number> = {};
  for (const s of warm) histogram[String(s.cost.requests)] = (histogram[String(s.cost.requests)] ?? 0) + 1;
  const byTool: EconomyResult['by_tool'] = {};
  mine.steps.forEach((s, i) => {
    const row = (byTool[s.tool] ??= {
      calls: 0,
      perimeter: 0,
      perimeter_charged: 0,
      floor: 0,
      floor_charged: 0,
      naive: 0,
    });
    row.calls++;
    row.perimeter += s.cost.requests;
    row.perimeter_charged += s.cost.spent;
    const f = floor.steps[i]!;
    row.floor += f.objects + f.writes;
    row.floor_charged += f.objects + f.writes;
  });
  naive.steps.forEach((s) => (byTool[s.tool]!.naive += s.perFile));
  const total = mine.total.requests;
  // what the floor counts: REST requests charged, and GraphQL calls (charged to GraphQL's own budget)
  const charged = mine.total.spent + mine.total.graphql;
  const rest = mine.total.spent;
  return {
    repository: { files: Object.keys(files).length, commits, perimeters, perimeter: SESSION_PERIMETER },
    session: {
      calls: steps.length,
      perimeter: total,
      perimeter_not_modified: mine.total.notModified,
      perimeter_spent: mine.total.spent,
      perimeter_charged: charged,
      perimeter_graphql: mine.total.graphql,
      perimeter_graphql_points: mine.total.graphqlPoints,
      sessions_per_hour: {
        rest: perHour(rest),
        graphql: mine.total.graphqlPoints > 0 ? perHour(mine.total.graphqlPoints) : null,
        both: Math.min(
          perHour(rest),
          mine.total.graphqlPoints > 0 ? perHour(mine.total.graphqlPoints) : Infinity,
        ),
        server_github: perHour(naive.serverGithub),
        github_mcp_server: perHour(naive.githubMcpServer),
      },
      naive: naive.perFile,
      naive_github_mcp_server: naive.githubMcpServer,
      naive_server_github: naive.serverGithub,
      floor: floor.total,
      floor_charged: floor.charged,
      floor_parts: {
        ref_checks: floor.refChecks,
        free_ref_checks: floor.freeRefChecks,
        objects: floor.objects,
        writes: floor.writes,
        git: floor.git,
      },
      perimeter_git: mine.total.git,
      perimeter_to_floor: ratio(total, floor.total),
      naive_to_perimeter: ratio(naive.perFile, total),
      naive_github_mcp_server_to_perimeter: ratio(naive.githubMcpServer, total),
      charged: {
        perimeter_to_floor: ratio(charged, floor.charged),
        naive_to_perimeter: ratio(naive.perFile, charged),
        naive_github_mcp_server_to_perimeter: ratio(naive.githubMcpServer, charged),
        naive_server_github_to_perimeter: ratio(naive.serverGithub, charged),
      },
    },
    push_files_requests: pushes,
    warm_repeat_reads: {
      count: warm.length,
      max: Math.max(0, ...warm.map((s) => s.cost.requests)),
      histogram,
    },
    by_tool: byTool,
    steps: mine.steps.map((s, i) => {
      const f = floor.steps[i]!;
      return {
        step: s.label,
        perimeter: s.cost.requests,
        not_modified: s.cost.notModified,
        floor: f.objects + f.writes,
        floor_free_ref_checks: f.freeRefChecks,
        routes: s.cost.byRoute,
      };
    }),
  };
}
