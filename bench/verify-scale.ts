/**
 * Verification scale: the post step's verifyJob on repositories of 1,000 to 100,000 files, after a push of
 * 10 or 1,000 changed files, spread over few directories (one leaf directory, or as few as hold them) or
 * many (each file in its own leaf directory, the leaves as far apart as the layout allows). Upstream requests (the stand-in's accounting, cold caches as
 * in the post step) and wall time. The Merkle diff should make requests follow the changed directories.
 */
import { randomBytes } from 'node:crypto';
import { verifyJob } from '../src/verify/index.js';
import { compilePerimeter, parseConfig } from '../src/policy/index.js';
import { commitToBare, gitText } from '@perimeter/fake-github';
import { difference } from './economy/counting.js';
import { round } from './support/measure.js';
import { BRANCH, startStandIn } from './support/stand-in.js';

export interface VerifyCase {
  files: number;
  changed: number;
  spread: 'few' | 'many';
}

export interface VerifyRow extends VerifyCase {
  /** leaf directories the change touched */
  directories: number;
  requests: number;
  /** of them GraphQL calls (batched tree reads), and the points they cost GraphQL's own budget */
  graphql: number;
  graphql_points: number;
  /** requests by route */
  routes: Record<string, number>;
  ms: number;
  verdict: string;
  changes_found: number;
}

// limits above the widest push measured: the rows measure a permitted change (the defaults allow 100 files)
const CONFIG =
  'version: 1\nperimeters:\n  writer:\n    read: ["**"]\n    write: ["d*/**"]\n    limits: { files-per-push: 5000 }\n';

/** d{top}/s{sub}/f{i}.txt: 10 subdirectories per top directory, up to 100 top directories. */
function layout(files: number): { tops: number; subs: number; perLeaf: number } {
  const subs = 10;
  const tops = Math.min(100, Math.max(1, Math.round(files / 100)));
  return { tops, subs, perLeaf: Math.ceil(files / (tops * subs)) };
}

function leafPath(leaf: number, file: number, shape: ReturnType<typeof layout>): string {
  return `d${Math.floor(leaf / shape.subs) % shape.tops}/s${leaf % shape.subs}/f${file}.txt`;
}

export async function runVerifyScale(
  sizes: number[],
  cases: (files: number) => VerifyCase[],
): Promise<{ rows: VerifyRow[]; seed_ms: Record<string, number> }> {
  const rows: VerifyRow[] = [];
  const seedMs: Record<string, number> = {};
  const perimeters = parseConfig(CONFIG).perimeters.map((s) => compilePerimeter(s));
  for (const size of sizes) {
    const shape = layout(size);
    const leaves = shape.tops * shape.subs;
    const files: Record<string, string> = {};
    for (let i = 0; i < size; i++) files[leafPath(i % leaves, Math.floor(i / leaves), shape)] = `${i}\n`;
    const seedStart = performance.now();
    const standIn = await startStandIn({ files });
    seedMs[String(size)] = Math.round(performance.now() - seedStart);
    try {
      const base = standIn.commits[0]!;
      for (const [n, c] of cases(size).entries()) {
        const branch = `verify/${n}`;
        await gitText(standIn.repoDir, ['branch', branch, BRANCH]);
        const changed: Record<string, string> = {};
        const touched = new Set<string>();
        for (let i = 0; i < c.changed; i++) {
          // many: leaves far apart, so they sit in different top-level directories too
          const stride = Math.max(1, Math.floor(leaves / c.changed));
          const leaf =
            c.spread === 'many'
              ? (i * stride + Math.floor((i * stride) / leaves)) % leaves
              : Math.floor(i / shape.perLeaf) % leaves;
          const file = c.spread === 'many' ? Math.floor(i / leaves) : i % shape.perLeaf;
          const path = leafPath(leaf, file, shape);
          changed[path] = `changed ${randomBytes(4).toString('hex')}\n`;
          touched.add(path.slice(0, path.lastIndexOf('/')));
        }
        const startedAt = new Date().toISOString();
        const head = await commitToBare(standIn.repoDir, branch, changed, `Change ${c.changed} files`);
        const upstream = standIn.upstream();
        const ref = `refs/heads/${branch}`;
        const before = standIn.fake.stats();
        const start = performance.now();
        const verdict = await verifyJob({
          upstream,
          branch,
          start: { [ref]: base },
          end: { [ref]: head },
          perimeters,
          ledger: { ok: true, commits: [head], perPerimeter: { writer: { calls: 1, refusals: 0 } } },
          directPushes: 'check',
          startedAt,
        });
        const ms = performance.now() - start;
        const cost = difference(standIn.fake.stats(), before);
        rows.push({
          ...c,
          directories: touched.size,
          requests: cost.requests,
          graphql: cost.graphql,
          graphql_points: cost.graphqlPoints,
          routes: cost.byRoute,
          ms: round(ms, 1),
          verdict: verdict.state,
          changes_found: verdictFiles(verdict),
        });
      }
    } finally {
      await standIn.close();
    }
  }
  return { rows, seed_ms: seedMs };
}

function verdictFiles(verdict: unknown): number {
  const files = (verdict as { files?: unknown[] }).files;
  return Array.isArray(files) ? files.length : -1;
}
