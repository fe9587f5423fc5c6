/**
 * History over git (src/github/git-history.ts): list_commits, get_commit and get_tree answered from the
 * gateway's partial copy of the branch's history answer exactly as over the API, on random histories
 * (hidden paths, merges, renames, wide commits, force pushes during the job), and make no REST or GraphQL
 * request once the copy exists (the stand-in's own counts). A git endpoint that fails, hangs or answers half
 * right sends the reads to the API, with the same answers.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitToBare, gitText } from '@perimeter/fake-github';
import { call, OWNER, REPO, startHarness, type Harness } from '@perimeter/test-rigs';
import type { OctokitUpstreamOptions } from '../../src/github/octokit/octokit-upstream.js';

const CONFIG = `
version: 1
perimeters:
  impl:
    read: ["src/**", "docs/**"]
    write: ["src/**"]
`;
const FILES = { 'src/a.ts': 'a\n', 'secret/k.txt': 'k\n', 'docs/r.md': 'r\n' };
const HISTORY = { branch: 'main', dir: tmpdir() };
/** over get_file's 1 MiB limit */
const BIG = `${'large file line\n'.repeat(70_000)}`;

type Tuning = Partial<Omit<OctokitUpstreamOptions, 'token' | 'owner' | 'repo' | 'baseUrl'>>;

function start(upstream?: Tuning): Promise<Harness> {
  return startHarness({ files: FILES, config: CONFIG, ...(upstream ? { upstream } : {}) });
}

/** the same history in both stand-ins: written in one, fetched whole (forced) into the other */
async function same(from: Harness, to: Harness): Promise<void> {
  await gitText(to.repoDir, ['fetch', '--quiet', '--force', from.repoDir, '+refs/heads/*:refs/heads/*']);
}

/** Every answer both gateways give to the same calls, as text; the calls include each commit's get_commit. */
async function answers(h: Harness, calls: Array<[string, Record<string, unknown>]>): Promise<string[]> {
  const client = await h.connect('impl');
  const shas = (await gitText(h.repoDir, ['rev-list', '--all'])).split('\n').filter(Boolean);
  const out: string[] = [];
  for (const [tool, args] of [
    ...calls,
    ...[...shas, '0'.repeat(40)].map((sha) => ['get_commit', { sha }] as const),
  ])
    out.push(`${tool} ${JSON.stringify(args)} ${JSON.stringify(await call(client, tool, args))}`);
  return out;
}

const CALLS: Array<[string, Record<string, unknown>]> = [
  ['get_tree', { recursive: true }],
  ['get_tree', { path: 'src' }],
  ['list_commits', {}],
  ['list_commits', { per_page: 2, page: 2 }],
  ['list_commits', { path: 'src', per_page: 3 }],
  ['list_commits', { path: 'src/d1' }],
  ['list_commits', { path: 'secret' }],
  ['list_commits', { path: 'docs/r.md' }],
];

describe('history over git', () => {
  describe('when git answers', () => {
    let git: Harness;
    let api: Harness;
    beforeAll(async () => {
      [git, api] = await Promise.all([start({ history: HISTORY }), start()]);
      for (let i = 1; i <= 12; i++) {
        const files =
          i % 3 === 0
            ? { [`secret/n${i}.txt`]: `${i}\n` }
            : { [`src/m${i % 4}.ts`]: `${i}\n`, 'docs/r.md': `r${i}\n` };
        await commitToBare(git.repoDir, 'main', files, `commit ${i}`);
      }
      await commitToBare(git.repoDir, 'main', { 'src/big.txt': BIG }, 'a file too large to show');
      await same(git, api);
    });
    afterAll(async () => Promise.all([git.close(), api.close()]));

    it('answers as the API does, with no REST or GraphQL request once the copy exists', async () => {
      // the first call makes the copy; get_tree, the first call after it, lists the head from the copy and
      // sizes its files by reading them over git (a REST recursive listing for the sizes would fail this)
      await call(await git.connect('impl'), 'list_commits', { per_page: 1 });
      git.fake.resetStats();
      const over = await answers(git, CALLS);
      const { total, graphqlPoints, git: gitRequests } = git.fake.stats();
      expect({ total, graphqlPoints }).toEqual({ total: 0, graphqlPoints: 0 });
      expect(gitRequests).toBeGreaterThan(0);
      expect(over).toEqual(await answers(api, CALLS));
    });

    it('sizes a file too large to show without reading it, and answers as the API does', async () => {
      const calls: Array<[string, Record<string, unknown>]> = [
        ['get_file', { path: 'src/big.txt' }],
        ['get_files', { paths: ['src/big.txt', 'src/a.ts'] }],
      ];
      const over: string[] = [];
      const client = await git.connect('impl');
      for (const [tool, args] of calls) over.push(JSON.stringify(await call(client, tool, args)));
      const apiClient = await api.connect('impl');
      const expected: string[] = [];
      for (const [tool, args] of calls) expected.push(JSON.stringify(await call(apiClient, tool, args)));
      expect(over).toEqual(expected);
      expect(over[0]).toContain('file too large to show');
      // the blob came to the store's disk for its size, never into the gateway's memory (its blob cache
      // keeps every blob read under 64 MB)
      const sha = (await gitText(git.repoDir, ['rev-parse', 'main:src/big.txt'])).trim();
      const blobs = (git.upstream as unknown as { blobs: { peek(sha: string): unknown } }).blobs;
      expect(blobs.peek(sha)).toBeUndefined();
    });

    it('keeps commits and trees on disk, no blob: no hidden content', async () => {
      const dir = (git.upstream as unknown as { gitHistory: { dir: string } }).gitHistory.dir;
      const types = await gitText(dir, ['cat-file', '--batch-all-objects', '--batch-check=%(objecttype)']);
      expect(new Set(types.split('\n').filter(Boolean))).toEqual(new Set(['commit', 'tree']));
    });
  });

  describe('on random histories', () => {
    let git: Harness;
    let api: Harness;
    beforeAll(async () => {
      [git, api] = await Promise.all([start({ history: HISTORY }), start()]);
    });
    afterAll(async () => Promise.all([git.close(), api.close()]));

    const path = fc.constantFrom(
      'src/a.ts',
      'src/d1/x.ts',
      'src/d1/e/y.ts',
      'src/d2/z.ts',
      'docs/r.md',
      'secret/k.txt',
      'secret/d1/s.txt',
      'top.txt',
    );
    const change = fc.record({
      path,
      content: fc.option(fc.constantFrom('1\n', '2\n', 'three\n'), { nil: null }),
    });
    const op = fc.oneof(
      fc.record({
        kind: fc.constant('commit' as const),
        files: fc.array(change, { minLength: 1, maxLength: 4 }),
      }),
      fc.record({ kind: fc.constant('rename' as const), from: path, to: path }),
      fc.record({
        kind: fc.constant('wide' as const),
        n: fc.integer({ min: 100, max: 140 }),
        hidden: fc.boolean(),
      }),
      fc.record({
        kind: fc.constant('merge' as const),
        files: fc.array(change, { minLength: 1, maxLength: 3 }),
      }),
      fc.record({ kind: fc.constant('force' as const), back: fc.integer({ min: 1, max: 3 }) }),
    );

    async function play(o: Op, step: number): Promise<void> {
      const dir = git.repoDir;
      const files = (list: Array<{ path: string; content: string | null }>) =>
        Object.fromEntries(list.map((f) => [f.path, f.content]));
      if (o.kind === 'commit') await commitToBare(dir, 'main', files(o.files), `commit ${step}`);
      else if (o.kind === 'rename') {
        const blob = await gitText(dir, ['show', `main:${o.from}`]).catch(() => null);
        if (blob !== null && o.from !== o.to)
          await commitToBare(dir, 'main', { [o.from]: null, [o.to]: `${blob}renamed\n` }, `rename ${step}`);
      } else if (o.kind === 'wide') {
        const wide: Record<string, string> = {};
        for (let i = 0; i < o.n; i++)
          wide[`${o.hidden ? 'secret' : 'src'}/w${step}/d${i % 9}/f${i}.txt`] = `${i}\n`;
        wide['src/a.ts'] = `wide ${step}\n`;
        await commitToBare(dir, 'main', wide, `wide ${step}`);
      } else if (o.kind === 'merge') {
        const base = (await gitText(dir, ['rev-parse', 'main~1']).catch(() => '')).trim();
        if (base === '') return;
        await gitText(dir, ['branch', '-f', 'side', base]);
        const side = await commitToBare(dir, 'side', files(o.files), `side ${step}`);
        const tree = (await gitText(dir, ['rev-parse', 'main^{tree}'])).trim();
        const main = (await gitText(dir, ['rev-parse', 'main'])).trim();
        const merge = (
          await gitText(dir, ['commit-tree', tree, '-p', main, '-p', side, '-m', `merge ${step}`])
        ).trim();
        await gitText(dir, ['update-ref', 'refs/heads/main', merge]);
      } else {
        // a force push during the job: the branch back a few commits, and a new commit on top
        const back = (await gitText(dir, ['rev-parse', `main~${o.back}`]).catch(() => '')).trim();
        if (back === '') return;
        await gitText(dir, ['update-ref', 'refs/heads/main', back]);
        await commitToBare(dir, 'main', { 'src/forced.ts': `${step}\n` }, `forced ${step}`);
      }
    }

    it('answers as the API does', async () => {
      let step = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 4 }), async (ops) => {
          for (const o of ops) await play(o as Op, step++);
          await gitText(git.repoDir, ['branch', '-D', 'side']).catch(() => '');
          await same(git, api);
          await gitText(api.repoDir, ['branch', '-D', 'side']).catch(() => '');
          git.fake.resetStats();
          const over = await answers(git, CALLS);
          expect(over).toEqual(await answers(api, CALLS));
          // after the first ref check of the run, nothing but git
          expect(git.fake.stats().graphqlPoints).toBe(0);
        }),
        { numRuns: 8 },
      );
    });
  });

  describe('when the git endpoint fails, hangs or answers half right', () => {
    const LIST = 'GET /repos/{owner}/{repo}/commits';
    // get_tree sizes files by fetching their blobs; when that fails, one recursive listing sizes them
    const SIZES = 'GET /repos/{owner}/{repo}/git/trees/{sha}';
    const cases: Array<[string, Proxy['mode'], string]> = [
      ['fails', 'fail', LIST],
      ['hangs', 'hang', LIST],
      ['sends commits without their trees', 'no-trees', LIST],
      ['cuts the pack short', 'truncate', LIST],
      ['fails blob fetches only', 'blobs-fail', SIZES],
      ['cuts blob fetches short', 'blobs-truncate', SIZES],
    ];
    for (const [what, mode, route] of cases)
      it(`reads by the API when git ${what}, with the same answers`, async () => {
        const proxy = await startProxy();
        const git = await start();
        const faulty = await startHarness({
          files: FILES,
          config: CONFIG,
          upstream: {
            history: { ...HISTORY, timeoutMs: 3_000 },
            gitUrl: `${proxy.url}/${OWNER}/${REPO}.git`,
          },
        });
        proxy.target = faulty.fake.url;
        try {
          for (let i = 1; i <= 6; i++)
            await commitToBare(
              git.repoDir,
              'main',
              { [`src/m${i % 2}.ts`]: `${i}\n`, [`secret/s${i}`]: 's\n' },
              `c${i}`,
            );
          await same(git, faulty);
          // the ref check answers; the history fetch after it (the first upload-pack) does not, or not whole
          proxy.mode = mode;
          expect(await answers(faulty, CALLS)).toEqual(await answers(git, CALLS));
          expect(faulty.fake.stats().byRoute[route] ?? 0).toBeGreaterThan(0);
        } finally {
          await Promise.all([git.close(), faulty.close(), proxy.close()]);
        }
      });
  });
});

type Op =
  | { kind: 'commit'; files: Array<{ path: string; content: string | null }> }
  | { kind: 'rename'; from: string; to: string }
  | { kind: 'wide'; n: number; hidden: boolean }
  | { kind: 'merge'; files: Array<{ path: string; content: string | null }> }
  | { kind: 'force'; back: number };

interface Proxy {
  url: string;
  target: string;
  /** what the proxy does to a partial clone's fetch: pass it, ask the server for commits only, or cut its answer */
  mode: 'pass' | 'fail' | 'hang' | 'no-trees' | 'truncate' | 'blobs-fail' | 'blobs-truncate';
  close(): Promise<void>;
}

/** A git endpoint in front of the stand-in that answers a history fetch half right when told to. */
async function startProxy(): Promise<Proxy> {
  const proxy: Proxy = { url: '', target: '', mode: 'pass', close: async () => {} };
  const hung: Array<{ destroy(): void }> = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body = Buffer.concat(chunks);
      const partial = body.includes('filter blob:none');
      // a fetch of blobs by SHA (git-blobs.ts): a fetch command without a filter
      const blobs = !partial && body.includes('command=fetch');
      if (partial && proxy.mode === 'fail') return void res.writeHead(500).end('failed\n');
      if (blobs && proxy.mode === 'blobs-fail') return void res.writeHead(500).end('failed\n');
      // never answered: the fetch's own timeout ends it
      if (partial && proxy.mode === 'hang') return void hung.push(res);
      if (partial && proxy.mode === 'no-trees')
        body = Buffer.from(
          body.toString('latin1').replace('0014filter blob:none', '0011filter tree:0'),
          'latin1',
        );
      const target = new URL(req.url ?? '/', proxy.target);
      const headers = { ...req.headers, host: target.host, 'content-length': String(body.length) };
      const out = request(target, { method: req.method, headers }, (answer) => {
        const parts: Buffer[] = [];
        answer.on('data', (c: Buffer) => parts.push(c));
        answer.on('end', () => {
          let sent = Buffer.concat(parts);
          if ((partial && proxy.mode === 'truncate') || (blobs && proxy.mode === 'blobs-truncate'))
            sent = sent.subarray(0, Math.floor(sent.length / 2));
          const { 'content-length': _, ...rest } = answer.headers;
          res.writeHead(answer.statusCode ?? 502, rest);
          res.end(sent);
        });
      });
      out.on('error', () => res.destroy());
      out.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () => {
    for (const res of hung) res.destroy();
    return new Promise((resolve) => server.close(() => resolve()));
  };
  return proxy;
}
