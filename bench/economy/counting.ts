import type { FakeGithub, FakeStats } from '@perimeter/fake-github';

/** What one step cost upstream, from the stand-in's own accounting. */
export interface Cost {
  /** REST requests received, 304s included */
  requests: number;
  /** answered 304 Not Modified: GitHub does not charge them to the rate limit */
  notModified: number;
  /** charged to the REST rate limit */
  spent: number;
  /** GraphQL calls (in `requests` too), and the points charged to GraphQL's own budget */
  graphql: number;
  graphqlPoints: number;
  /** git smart HTTP requests (blob fetches): charged to neither budget, and not in `requests` */
  git: number;
  byRoute: Record<string, number>;
}

export const ZERO: Cost = {
  requests: 0,
  notModified: 0,
  spent: 0,
  graphql: 0,
  graphqlPoints: 0,
  git: 0,
  byRoute: {},
};

export function difference(after: FakeStats, before: FakeStats): Cost {
  const byRoute: Record<string, number> = {};
  for (const [route, n] of Object.entries(after.byRoute)) {
    const d = n - (before.byRoute[route] ?? 0);
    if (d > 0) byRoute[route] = d;
  }
  return {
    requests: after.total - before.total,
    notModified: after.notModified - before.notModified,
    spent: after.spent - before.spent,
    graphql: (after.byRoute['POST /graphql'] ?? 0) - (before.byRoute['POST /graphql'] ?? 0),
    graphqlPoints: after.graphqlPoints - before.graphqlPoints,
    git: after.git - before.git,
    byRoute,
  };
}

export function add(a: Cost, b: Cost): Cost {
  const byRoute = { ...a.byRoute };
  for (const [route, n] of Object.entries(b.byRoute)) byRoute[route] = (byRoute[route] ?? 0) + n;
  return {
    requests: a.requests + b.requests,
    notModified: a.notModified + b.notModified,
    spent: a.spent + b.spent,
    graphql: a.graphql + b.graphql,
    graphqlPoints: a.graphqlPoints + b.graphqlPoints,
    git: a.git + b.git,
    byRoute,
  };
}

/** Runs `work` and returns what it cost on `fake` (nothing else may use the stand-in meanwhile). */
export async function metered<T>(
  fake: FakeGithub,
  work: () => Promise<T>,
): Promise<{ value: T; cost: Cost }> {
  const before = fake.stats();
  const value = await work();
  return { value, cost: difference(fake.stats(), before) };
}
