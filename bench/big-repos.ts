/**
 * Big repositories: the gateway's first call (a recursive get_tree, which needs the whole index) at
 * 40,000 and 100,000 files, with GitHub's caps on a recursive tree listing as the stand-in models them
 * (100,000 entries or 7 MB of JSON, whichever comes first). Two layouts: the verification bench's
 * (100 top-level directories of 10 leaves) and the request-economy session's (7 top-level directories of
 * modules), so the figure is not one layout's luck. Requests are the stand-in's count, cold caches.
 */
import { makeRepo } from './economy/repo-model.js';
import { difference } from './economy/counting.js';
import { round } from './support/measure.js';
import { callTool, startBenchGateway, startStandIn } from './support/stand-in.js';

export interface BigRow {
  layout: 'wide' | 'modules';
  files: number;
  /** directories in the tree */
  directories: number;
  first_call_requests: number;
  /** of them GraphQL calls (batched tree reads), and the points they cost GraphQL's own budget */
  first_call_graphql: number;
  first_call_graphql_points: number;
  routes: Record<string, number>;
  /** a read after the agent's own push */
  after_push_requests: number;
  ms: number;
}

const CONFIG =
  'version: 1\nperimeters:\n  reader:\n    read: ["**"]\n    write: ["notes/**"]\n    branches: ["main"]\n';

function wide(files: number): Record<string, string> {
  const out: Record<string, string> = {};
  const tops = Math.min(100, Math.max(1, Math.round(files / 100)));
  const leaves = tops * 10;
  for (let i = 0; i < files; i++) {
    const leaf = i % leaves;
    out[`d${Math.floor(leaf / 10)}/s${leaf % 10}/f${Math.floor(i / leaves)}.txt`] = `${i}\n`;
  }
  return out;
}

function modules(files: number): Record<string, string> {
  const model = makeRepo({ files, historyCommits: 0 });
  return Object.fromEntries(Object.keys(model.files).map((path) => [path, `${path}\n`]));
}

function directories(paths: string[]): number {
  const dirs = new Set<string>();
  for (const path of paths)
    for (let at = path.lastIndexOf('/'); at > 0; at = path.lastIndexOf('/', at - 1))
      dirs.add(path.slice(0, at));
  return dirs.size;
}

export async function runBigRepos(sizes: number[]): Promise<BigRow[]> {
  const rows: BigRow[] = [];
  for (const files of sizes) {
    for (const layout of ['wide', 'modules'] as const) {
      const tree = layout === 'wide' ? wide(files) : modules(files);
      const standIn = await startStandIn({ files: tree });
      try {
        const gw = await startBenchGateway(standIn, CONFIG);
        try {
          const client = await gw.connect('reader');
          const before = standIn.fake.stats();
          const start = performance.now();
          const answer = await callTool(client, 'get_tree', { recursive: true });
          const ms = performance.now() - start;
          if (answer.isError) throw new Error(`get_tree failed at ${files} files (${layout})`);
          const cost = difference(standIn.fake.stats(), before);
          await callTool(client, 'push_files', {
            message: 'a note',
            files: [{ path: 'notes/big.md', content: 'noted\n' }],
          });
          const pushed = standIn.fake.stats();
          await callTool(client, 'get_tree', { recursive: true });
          rows.push({
            layout,
            files,
            directories: directories(Object.keys(tree)),
            first_call_requests: cost.requests,
            first_call_graphql: cost.graphql,
            first_call_graphql_points: cost.graphqlPoints,
            routes: cost.byRoute,
            after_push_requests: difference(standIn.fake.stats(), pushed).requests,
            ms: round(ms, 0),
          });
        } finally {
          await gw.close();
        }
      } finally {
        await standIn.close();
      }
    }
  }
  return rows;
}
