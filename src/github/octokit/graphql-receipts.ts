import type { CheckRunRecord, ReceiptScreen } from '../upstream.js';

/**
 * The receipts on many commits in one GraphQL call, each commit under an alias
 * (https://docs.github.com/en/graphql/reference/objects#commit): `status { context(name:) }`, the newest
 * status of the receipt's context (GraphQL keeps no older ones: a commit that has one has its statuses
 * listed by REST), and, when asked, the check runs of that name in each check suite. Points: `status` is no
 * connection; `checkSuites` is one request a commit and each suite's `checkRuns` one more, so 50 commits
 * with SUITES suites make 50 + 50 × SUITES requests, 3 points
 * (https://docs.github.com/en/graphql/overview/rate-limits-and-query-limits-for-the-graphql-api).
 */
export const RECEIPT_COMMITS_PER_CALL = 50;
/** suites asked per commit, and runs of the name per suite; more than either goes to REST for that commit */
const SUITES = 4;
const RUNS = 10;

export function receiptsQuery(commits: string[], checkRuns: boolean): string {
  const runs = checkRuns
    ? ` checkSuites(first: ${SUITES}) { totalCount nodes { app { slug } checkRuns(first: ${RUNS}, filterBy: { checkName: $context, checkType: ALL }) { totalCount nodes { databaseId name status conclusion title startedAt completedAt } } } }`
    : '';
  const aliases = commits.map(
    (sha, i) =>
      `c${i}: object(oid: "${sha}") { ... on Commit { status { context(name: $context) { createdAt } }${runs} } }`,
  );
  return `query($owner: String!, $name: String!, $context: String!) { repository(owner: $owner, name: $name) { ${aliases.join(' ')} } }`;
}

interface GqlRun {
  databaseId: number | null;
  name: string;
  status: string;
  conclusion: string | null;
  title: string | null;
  startedAt: string | null;
  completedAt: string | null;
}

interface GqlCommit {
  status?: { context: { createdAt: string } | null } | null;
  checkSuites?: {
    totalCount: number;
    nodes: Array<{
      app: { slug: string } | null;
      checkRuns: { totalCount: number; nodes: Array<GqlRun | null> } | null;
    } | null>;
  } | null;
}

export interface ReceiptsAnswer {
  repository: Record<string, GqlCommit | null> | null;
}

/**
 * Each commit's screen; a commit whose answer is missing or not whole (more suites or runs than asked,
 * a run without its id) is left out, for REST.
 */
export function receiptsOf(
  commits: string[],
  answer: ReceiptsAnswer,
  checkRuns: boolean,
): Map<string, ReceiptScreen> {
  const out = new Map<string, ReceiptScreen>();
  commits.forEach((sha, i) => {
    const commit = answer.repository?.[`c${i}`];
    if (!commit || commit.status === undefined) return;
    const hasStatus = Boolean(commit.status?.context);
    if (!checkRuns) return void out.set(sha, { hasStatus, checkRuns: null });
    const suites = commit.checkSuites;
    if (!suites || suites.totalCount > suites.nodes.length) return;
    const runs: CheckRunRecord[] = [];
    for (const suite of suites.nodes) {
      const listed = suite?.checkRuns;
      if (!suite || !listed || listed.totalCount > listed.nodes.length) return;
      for (const run of listed.nodes) {
        if (!run || typeof run.databaseId !== 'number') return;
        runs.push({
          id: run.databaseId,
          name: run.name,
          status: run.status.toLowerCase(),
          conclusion: run.conclusion === null ? null : run.conclusion.toLowerCase(),
          title: run.title,
          startedAt: run.startedAt,
          completedAt: run.completedAt,
          app: suite.app?.slug ?? null,
        });
      }
    }
    // newest first, as REST lists them
    runs.sort((a, b) => b.id - a.id);
    out.set(sha, { hasStatus, checkRuns: runs });
  });
  return out;
}
