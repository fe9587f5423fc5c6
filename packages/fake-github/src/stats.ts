import type { RateBudget, WriteWindow } from './budget.js';
import type { FaultBox } from './fault-box.js';
import type { FakeRepo } from './repo.js';
import type { Route } from './router.js';

export interface FakeStats {
  /** API requests received, REST and GraphQL (including 304s and refusals) */
  total: number;
  /** REST requests answered 304 Not Modified */
  notModified: number;
  /** REST requests counted against the core rate limit */
  spent: number;
  /** points charged to the GraphQL budget (a separate one; POST /graphql requests are in `total` and `byRoute`) */
  graphqlPoints: number;
  /** git smart HTTP requests */
  git: number;
  /** per route: 'GET /repos/{owner}/{repo}/git/trees/{sha}', 'GIT POST /{owner}/{repo}.git/git-receive-pack', ... */
  byRoute: Record<string, number>;
}

export class StatsCounter {
  private stats: FakeStats = StatsCounter.empty();

  private static empty(): FakeStats {
    return { total: 0, notModified: 0, spent: 0, graphqlPoints: 0, git: 0, byRoute: {} };
  }

  request(key: string, git: boolean): void {
    if (git) this.stats.git += 1;
    else this.stats.total += 1;
    this.stats.byRoute[key] = (this.stats.byRoute[key] ?? 0) + 1;
  }

  notModified(): void {
    this.stats.notModified += 1;
  }

  spent(): void {
    this.stats.spent += 1;
  }

  graphqlPoints(points: number): void {
    this.stats.graphqlPoints += points;
  }

  snapshot(): FakeStats {
    return structuredClone(this.stats);
  }

  reset(): void {
    this.stats = StatsCounter.empty();
  }
}

/** What the request handlers share. */
export interface ServerState {
  /** token -> login */
  tokens: Map<string, string>;
  /** lower-case 'owner/name' -> repository */
  repos: Map<string, FakeRepo>;
  routes: Route[];
  budget: RateBudget;
  /** GraphQL's own hourly budget of points */
  graphqlBudget: RateBudget;
  /** content-creating requests per minute before a secondary limit, when set */
  writes: WriteWindow | null;
  faults: FaultBox;
  stats: StatsCounter;
  baseUrl: string;
  canWriteWorkflows: boolean;
}
