import type { AppBook } from './apps.js';
import type { ArtifactStore } from './actions/artifact-store.js';
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
  /**
   * per route: 'GET /repos/{owner}/{repo}/git/trees/{sha}', 'GIT POST /{owner}/{repo}.git/git-receive-pack', ...;
   * every GraphQL call is a 'POST /graphql', and a mutation is also counted as 'GRAPHQL mutation {field}' (not
   * in `total`), since a POST there may only read.
   */
  byRoute: Record<string, number>;
}

/**
 * The routes in `stats.byRoute` that could change something upstream, with their counts: REST and git
 * anything but GET and HEAD, and GraphQL mutations (a GraphQL query is a POST too, but only reads, as is
 * git's upload-pack, a fetch).
 */
export function writeRequests(stats: FakeStats): Record<string, number> {
  return Object.fromEntries(
    Object.entries(stats.byRoute).filter(
      ([route]) =>
        !/^((GIT )?(GET|HEAD) |POST \/graphql$|GIT POST \/\{owner\}\/\{repo\}\.git\/git-upload-pack$)/.test(
          route,
        ),
    ),
  );
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

  /** Counts a GraphQL mutation's top-level field in `byRoute` only (its request is already counted). */
  mutation(field: string): void {
    const key = `GRAPHQL mutation ${field}`;
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
  /** workflow artifacts and the runtime tokens of the jobs that upload them */
  artifacts: ArtifactStore;
  /** tokens with `contents: read` only: no write to git data, refs or contents, no git push */
  contentsReadOnly: Set<string>;
  /** the Apps behind the installation tokens, by slug and id */
  apps: AppBook;
  /** tokens that may administer repositories (create rulesets): the main token */
  adminTokens: Set<string>;
  /** tokens with less than `checks: write`: 'read' may list check runs, 'none' may not even read them */
  checks: Map<string, 'none' | 'read'>;
  /** tokens with less than `statuses: write`: 'read' may list statuses, 'none' may not even read them */
  statuses: Map<string, 'none' | 'read'>;
  /** tokens with less than `pull-requests: write`: 'read' may read pull requests and reviews, 'none' nothing */
  pullRequests: Map<string, 'none' | 'read'>;
  /** tokens with less than `actions: write`: 'read' may list runs, jobs and artifacts, 'none' nothing */
  actions: Map<string, 'none' | 'read'>;
  /** tokens with less than `issues: write`: 'read' may read issues and comments, 'none' nothing */
  issues: Map<string, 'none' | 'read'>;
}
