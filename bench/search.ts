/**
 * search over 2,000, 40,000 and 100,000 readable files: requests and time of one search through the gateway
 * (the action's: history over git, the secret filter on), cold (the first search reads every readable blob)
 * and warm (a second pattern, blobs and their filtered texts kept), against the baseline an agent without
 * search has in the same run: get_tree (folder by folder past its 10,000 entries), then get_files 100 paths
 * a call over every file, searching the answers itself. Requests are the stand-in's count (REST and GraphQL; git smart HTTP apart, charged to
 * neither budget). Run alone: `npx tsx bench/search.ts [files...]`.
 */
import { createSecretFilter } from '../src/safety/index.js';
import { difference } from './economy/counting.js';
import { round } from './support/measure.js';
import { answerOf, callTool, startBenchGateway, startStandIn } from './support/stand-in.js';
import { sourceText } from './workspace.js';

const CONFIG =
  'version: 1\nperimeters:\n  reader:\n    read: ["**"]\n    write: ["notes/**"]\n    branches: ["main"]\n';
const PER_CALL = 100;

export interface SearchRow {
  files: number;
  matches: number;
  cold: { requests: number; git: number; ms: number };
  warm: { requests: number; git: number; ms: number };
  /** get_tree, then get_files over every file, 100 a call */
  baseline: { calls: number; requests: number; git: number; ms: number };
  /** baseline time over the cold search's */
  ratio: number;
}

function repository(files: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < files; i++) out[`d${i % 10}/m${Math.floor(i / 10) % 100}/f${i}.ts`] = sourceText(i);
  out[`d3/m7/defines.ts`] = 'export function findWidgets(xs: unknown[]) {\n  return xs.filter(Boolean);\n}\n';
  return out;
}

export async function runSearch(sizes: number[]): Promise<SearchRow[]> {
  const rows: SearchRow[] = [];
  for (const files of sizes) {
    const standIn = await startStandIn({ files: repository(files) });
    try {
      const gw = await startBenchGateway(standIn, CONFIG, createSecretFilter());
      try {
        const client = await gw.connect('reader');
        const measure = async (run: () => Promise<unknown>) => {
          const before = standIn.fake.stats();
          const start = performance.now();
          const result = await run();
          const ms = round(performance.now() - start, 0);
          const cost = difference(standIn.fake.stats(), before);
          return { result, requests: cost.requests, git: cost.git, ms };
        };
        const cold = await measure(() => callTool(client, 'search', { pattern: 'function findWidgets' }));
        const found = answerOf(cold.result as never) as { matches: unknown[] } | undefined;
        if (!found) throw new Error(`search failed at ${files} files`);
        const warm = await measure(() => callTool(client, 'search', { pattern: 'render\\d+', regex: true }));
        // the baseline on a gateway of its own, cold too
        const other = await startBenchGateway(standIn, CONFIG, createSecretFilter());
        try {
          const reader = await other.connect('reader');
          let calls = 0;
          const baseline = await measure(async () => {
            // every file's path: a recursive listing, or (past get_tree's 10,000 entries) folder by folder
            const paths: string[] = [];
            const list = async (path: string): Promise<void> => {
              type Tree = { entries: Array<{ path: string; type: string }>; truncated: boolean };
              const whole = answerOf(await callTool(reader, 'get_tree', { path, recursive: true })) as Tree;
              calls++;
              if (!whole.truncated) {
                paths.push(...whole.entries.filter((e) => e.type === 'file').map((e) => e.path));
                return;
              }
              const level = answerOf(await callTool(reader, 'get_tree', { path })) as Tree;
              calls++;
              for (const entry of level.entries)
                if (entry.type === 'dir') await list(entry.path);
                else if (entry.type === 'file') paths.push(entry.path);
            };
            await list('');
            let hits = 0;
            for (let i = 0; i < paths.length; i += PER_CALL) {
              const answer = answerOf(
                await callTool(reader, 'get_files', { paths: paths.slice(i, i + PER_CALL) }),
              ) as { files: Array<{ content?: string }> };
              calls++;
              for (const file of answer.files) if (file.content?.includes('function findWidgets')) hits++;
            }
            if (hits !== found.matches.length) throw new Error('the baseline found something else');
          });
          rows.push({
            files,
            matches: found.matches.length,
            cold: { requests: cold.requests, git: cold.git, ms: cold.ms },
            warm: { requests: warm.requests, git: warm.git, ms: warm.ms },
            baseline: { calls, requests: baseline.requests, git: baseline.git, ms: baseline.ms },
            ratio: round(baseline.ms / Math.max(cold.ms, 1), 1),
          });
        } finally {
          await other.close();
        }
      } finally {
        await gw.close();
      }
    } finally {
      await standIn.close();
    }
  }
  return rows;
}

if (process.argv[1]?.endsWith('search.ts')) {
  const sizes = process.argv.slice(2).map(Number);
  console.log(JSON.stringify(await runSearch(sizes.length > 0 ? sizes : [2000]), null, 2));
  process.exit(0);
}
