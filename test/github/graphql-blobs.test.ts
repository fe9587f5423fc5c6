import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitText, seedRepo, startFakeGithub, type FakeGithub } from '@perimeter/fake-github';
import { blobSha, readBlobs, type RepoReads } from '../../src/github/index.js';
import {
  blobCalls,
  blobsOf,
  BLOBS_PER_CALL,
  BYTES_PER_CALL,
  GRAPHQL_BLOB_MAX,
  type BlobsAnswer,
} from '../../src/github/octokit/graphql-blobs.js';
import { createOctokitUpstream } from '../../src/github/octokit/octokit-upstream.js';

const TOKEN = 'ghs_GraphqlBlobsToken0123456789abcdefghij';
const BLOB_ROUTE = 'GET /repos/{owner}/{repo}/git/blobs/{sha}';

const TEXT = 'export const a = 1;\n';
const LATIN1 = Buffer.from('caf\xe9\n', 'latin1');
const BINARY = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]);
// over the stand-in's 512 KiB text limit, under the 1 MiB a client asks GraphQL for: GitHub truncates it
const LONG = `${'x'.repeat(99)}\n`.repeat(6000);

describe('batched blob reads (GraphQL)', () => {
  let root: string;
  let fake: FakeGithub;
  const sha: Record<string, string> = {};
  // REST as the reads' fallback: blobs over git are git-blobs.test.ts's
  const upstream = () =>
    createOctokitUpstream({ token: TOKEN, owner: 'octo', repo: 'r', baseUrl: fake.url, gitUrl: false });

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'perimeter-gql-blobs-'));
    const dir = join(root, 'r.git');
    const files: Record<string, string | Uint8Array> = {
      'text.ts': TEXT,
      'latin1.txt': LATIN1,
      'logo.png': BINARY,
      'long.txt': LONG,
    };
    for (let i = 0; i < 250; i++) files[`many/${i}.txt`] = `file ${i}\n`;
    await seedRepo(dir, files);
    for (const path of Object.keys(files))
      sha[path] = (await gitText(dir, ['rev-parse', `main:${path}`])).trim();
    fake = await startFakeGithub({ repos: { 'octo/r': dir }, token: TOKEN });
  });
  afterAll(async () => {
    await fake.stop();
    await rm(root, { recursive: true, force: true });
  });

  describe('blobCalls', () => {
    it('puts at most BLOBS_PER_CALL blobs and BYTES_PER_CALL bytes in a call', () => {
      const small = Array.from({ length: 250 }, (_, i) => ({ sha: String(i).padStart(40, '0'), size: 10 }));
      expect(blobCalls(small).calls.map((c) => c.length)).toEqual([BLOBS_PER_CALL, BLOBS_PER_CALL, 50]);
      const big = Array.from({ length: 9 }, (_, i) => ({
        sha: String(i).padStart(40, '0'),
        size: 1_000_000,
      }));
      const { calls } = blobCalls(big);
      expect(calls.map((c) => c.length)).toEqual([4, 4, 1]);
      expect(4 * 1_000_000).toBeLessThanOrEqual(BYTES_PER_CALL);
    });

    it('sends blobs over GRAPHQL_BLOB_MAX to REST at once', () => {
      const wanted = [{ sha: 'a'.repeat(40), size: GRAPHQL_BLOB_MAX + 1 }];
      expect(blobCalls(wanted)).toEqual({ calls: [], rest: ['a'.repeat(40)] });
    });
  });

  describe('blobsOf', () => {
    const answer = (text: string, extra: object = {}): BlobsAnswer => ({
      repository: {
        b0: { byteSize: Buffer.byteLength(text), isBinary: false, isTruncated: false, text, ...extra },
      },
    });

    it('keeps text that hashes to the SHA asked', () => {
      expect(blobsOf([blobSha(Buffer.from(TEXT))], answer(TEXT)).size).toBe(1);
    });

    it('refuses text that does not hash to the SHA asked', () => {
      expect(blobsOf([blobSha(Buffer.from(TEXT))], answer(TEXT.replace('1', '2'))).size).toBe(0);
    });

    it('refuses a binary or truncated answer', () => {
      const asked = [blobSha(Buffer.from(TEXT))];
      expect(blobsOf(asked, answer(TEXT, { isBinary: true })).size).toBe(0);
      expect(blobsOf(asked, answer(TEXT, { isTruncated: true })).size).toBe(0);
    });
  });

  describe('through the upstream', () => {
    it('reads 250 text files in three GraphQL calls and no REST request', async () => {
      const up = upstream();
      const wanted = Object.entries(sha)
        .filter(([path]) => path.startsWith('many/'))
        .map(([, s]) => ({ sha: s, size: 10 }));
      const before = fake.stats();
      const got = await up.getBlobs!(wanted);
      const after = fake.stats();
      expect(got.size).toBe(250);
      expect(after.byRoute['POST /graphql']! - (before.byRoute['POST /graphql'] ?? 0)).toBe(3);
      expect(after.byRoute[BLOB_ROUTE] ?? 0).toBe(before.byRoute[BLOB_ROUTE] ?? 0);
      expect(Buffer.from(got.get(sha['many/7.txt']!)!).toString()).toBe('file 7\n');
    });

    it('leaves binary, truncated and non-UTF-8 blobs to REST', async () => {
      const got = await upstream().getBlobs!(
        ['text.ts', 'latin1.txt', 'logo.png', 'long.txt'].map((p) => ({ sha: sha[p]! })),
      );
      expect([...got.keys()]).toEqual([sha['text.ts']]);
    });
  });

  describe('readBlobs', () => {
    it('reads what GraphQL left by REST, each checked against its SHA', async () => {
      const up = upstream();
      const before = fake.stats().byRoute[BLOB_ROUTE] ?? 0;
      const reading = await readBlobs(
        up,
        ['text.ts', 'latin1.txt', 'logo.png', 'long.txt'].map((p) => ({ sha: sha[p]! })),
      );
      expect(reading).toMatchObject({ byGraphql: 1, byRest: 3 });
      expect(fake.stats().byRoute[BLOB_ROUTE]! - before).toBe(3);
      expect(Buffer.from(reading.blobs.get(sha['latin1.txt']!)!)).toEqual(LATIN1);
      expect(Buffer.from(reading.blobs.get(sha['logo.png']!)!)).toEqual(Buffer.from(BINARY));
      expect(Buffer.from(reading.blobs.get(sha['long.txt']!)!).toString()).toBe(LONG);
    });

    it('withholds what would take more REST requests than the cap', async () => {
      const reading = await readBlobs(
        upstream(),
        ['latin1.txt', 'logo.png', 'long.txt'].map((p) => ({ sha: sha[p]! })),
        { restLimit: 1 },
      );
      expect(reading.byRest).toBe(1);
      expect([...reading.withheld.keys()]).toEqual([sha['logo.png'], sha['long.txt']]);
    });

    it('refuses a REST answer that does not hash to its SHA', async () => {
      const liar: Pick<RepoReads, 'getBlob'> = { getBlob: () => Promise.resolve(new Uint8Array([1])) };
      await expect(readBlobs(liar, [{ sha: sha['logo.png']! }])).rejects.toThrow(/does not hash to its SHA/);
    });
  });
});
