/**
 * The perimeter workspace: requests and bytes to hand a perimeter its directory (the whole tree, then every
 * readable blob over git's smart HTTP in one or a few fetches; GraphQL and REST only when git fails) against a `git clone --depth 1` of the same repository through
 * the stand-in's smart HTTP (what actions/checkout does), in one run. Bytes are counted on the wire by a
 * proxy in front of the stand-in, both directions. Run alone: `npx tsx bench/workspace.ts [files...]`.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, connect, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { handOutWorkspaces } from '../src/action/agent-job/workspace.js';
import { createOctokitUpstream } from '../src/github/octokit/octokit-upstream.js';
import { parseConfig, selectPerimeters } from '../src/policy/index.js';
import { createSecretFilter } from '../src/safety/index.js';
import { difference } from './economy/counting.js';
import { round } from './support/measure.js';
import { BRANCH, OWNER, REPO, startStandIn } from './support/stand-in.js';

const run = promisify(execFile);

/** A perimeter reading everything but one folder of ten, and the credential files (never handed out). */
const CONFIG =
  'version: 1\nperimeters:\n  dev:\n    read: ["**"]\n    deny: ["d9/**"]\n    write: ["d0/**"]\n    branches: ["main"]\n';
/** binary files in every size (one REST request each) */
const BINARIES = 20;

export interface WorkspaceRow {
  files: number;
  handed_out: number;
  workspace: {
    rest_requests: number;
    graphql_calls: number;
    graphql_points: number;
    /** git smart HTTP requests (not charged to the REST or GraphQL budgets) */
    git_requests: number;
    /** blobs that came over git, by GraphQL, by REST */
    blobs: { git: number; graphql: number; rest: number };
    bytes: number;
    /** the answers gzipped, as GitHub sends API answers to a client that accepts gzip (Octokit does) */
    answer_bytes_gzipped: number;
    ms: number;
  };
  clone: { git_requests: number; bytes: number; ms: number };
}

const WORDS = ['count', 'widget', 'format', 'value', 'render', 'parse', 'state', 'index', 'check', 'total'];

/** Source-like text of about 400 bytes, different in every file (a seeded generator, so runs agree). */
export function sourceText(i: number): string {
  let seed = (i + 1) * 2654435761;
  const next = (): number => (seed = (seed * 1103515245 + 12345) >>> 0);
  const lines = [`// file ${i}`];
  for (let n = 0; n < 10; n++) {
    const a = WORDS[next() % WORDS.length]!;
    const b = WORDS[next() % WORDS.length]!;
    lines.push(`export const ${a}${next() % 1000} = (${b}: number) => ${b} * ${next() % 10000};`);
  }
  return `${lines.join('\n')}\n`;
}

/** Text files in ten top folders (a perimeter denied one of them), a few binaries and a credential file. */
function repoFiles(files: number): Record<string, string | Uint8Array> {
  const out: Record<string, string | Uint8Array> = {};
  for (let i = 0; i < files - BINARIES; i++)
    out[`d${i % 10}/m${Math.floor(i / 10) % 100}/f${i}.ts`] = sourceText(i);
  for (let i = 0; i < BINARIES; i++)
    out[`d${i % 10}/assets/logo${i}.png`] = new Uint8Array([0x89, 0, i, i >> 8]);
  out['perimeters.yml'] = CONFIG;
  out['d1/.env'] = 'TOKEN=not-handed-out\n';
  return out;
}

/** A TCP proxy in front of `port` counting every byte both ways. */
async function byteProxy(port: number): Promise<{
  url: string;
  bytes: () => number;
  /** the answers' bytes since the last call, gzipped as GitHub gzips API answers (the stand-in does not) */
  gzipped: () => number;
  close: () => Promise<void>;
}> {
  let bytes = 0;
  let answers: Buffer[] = [];
  const server: Server = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    client.on('data', (d: Buffer) => (bytes += d.length));
    upstream.on('data', (d: Buffer) => {
      bytes += d.length;
      answers.push(d);
    });
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    bytes: () => bytes,
    gzipped: () => {
      const size = gzipSync(Buffer.concat(answers)).length;
      answers = [];
      return size;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export async function runWorkspace(
  sizes: number[],
  onRow: (row: WorkspaceRow) => void = () => {},
): Promise<WorkspaceRow[]> {
  const rows: WorkspaceRow[] = [];
  for (const files of sizes) {
    const standIn = await startStandIn({ files: repoFiles(files) });
    const proxy = await byteProxy(Number(new URL(standIn.fake.url).port));
    const dir = await mkdtemp(join(tmpdir(), 'perimeter-bench-ws-'));
    try {
      const upstream = createOctokitUpstream({
        token: standIn.token,
        owner: OWNER,
        repo: REPO,
        baseUrl: proxy.url,
        retryBaseMs: 10,
      });
      const perimeters = selectPerimeters(parseConfig(CONFIG, 'perimeters.yml'), ['dev'], BRANCH, BRANCH);
      const head = await upstream.getBranchHead(BRANCH);
      const before = standIn.fake.stats();
      const bytesBefore = proxy.bytes();
      proxy.gzipped();
      let start = performance.now();
      const { workspaces, figures } = await handOutWorkspaces({
        upstream,
        branch: BRANCH,
        head,
        configRef: BRANCH,
        perimeters,
        folder: join(dir, 'ws'),
        // as main hands it out: files written as get_file shows them (issue 45)
        filter: createSecretFilter({ extraSecrets: [standIn.token] }),
      });
      const wsMs = performance.now() - start;
      const cost = difference(standIn.fake.stats(), before);
      const wsBytes = proxy.bytes() - bytesBefore;
      const wsGzipped = proxy.gzipped();

      const gitBefore = standIn.fake.stats().git;
      const cloneBytesBefore = proxy.bytes();
      const remote = `${proxy.url.replace('http://', `http://x-access-token:${standIn.token}@`)}/${OWNER}/${REPO}.git`;
      start = performance.now();
      await run('git', ['clone', '--quiet', '--depth', '1', '--branch', BRANCH, remote, join(dir, 'clone')], {
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, GIT_TERMINAL_PROMPT: '0' },
        maxBuffer: 64 * 1024 * 1024,
      });
      const cloneMs = performance.now() - start;
      const row: WorkspaceRow = {
        files,
        handed_out: Object.keys(workspaces[0]!.files).length,
        workspace: {
          rest_requests: cost.requests - cost.graphql,
          graphql_calls: cost.graphql,
          graphql_points: cost.graphqlPoints,
          git_requests: cost.git,
          blobs: { git: figures.byGit, graphql: figures.byGraphql, rest: figures.byRest },
          bytes: wsBytes,
          answer_bytes_gzipped: wsGzipped,
          ms: round(wsMs, 0),
        },
        clone: {
          git_requests: standIn.fake.stats().git - gitBefore,
          bytes: proxy.bytes() - cloneBytesBefore,
          ms: round(cloneMs, 0),
        },
      };
      rows.push(row);
      onRow(row);
    } finally {
      await proxy.close();
      await standIn.close();
      await rm(dir, { recursive: true, force: true, maxRetries: 5 });
    }
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const sizes = process.argv.slice(2).map(Number);
  await runWorkspace(sizes.length > 0 ? sizes : [2000], (row) => console.log(JSON.stringify(row)));
}
