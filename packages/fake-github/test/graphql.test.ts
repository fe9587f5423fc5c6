import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { seedRepo, startFakeGithub, writeRequests } from '../src/index.js';
import { BLOB_TEXT_LIMIT } from '../src/graphql/graphql-values.js';
import type { FakeGithub } from '../src/index.js';
import { restClient, scratchDir } from './test-support.js';
import type { Api, Json } from './test-support.js';

describe('POST /graphql', () => {
  let gh: FakeGithub;
  let api: Api;
  let dir: string;
  let cleanup: () => Promise<void>;
  let rootTree: string;

  const start = async (graphqlRateLimit?: number) => {
    await gh?.stop();
    gh = await startFakeGithub({
      repos: { 'acme/app': join(dir, 'repo.git') },
      ...(graphqlRateLimit !== undefined ? { graphqlRateLimit } : {}),
    });
    api = restClient(gh.url);
  };
  const gql = async (query: string, variables: Record<string, unknown> = {}) =>
    (await api('POST', '/graphql', { query, variables })) as { status: number; headers: Headers; body: Json };

  beforeEach(async () => {
    ({ dir, cleanup } = await scratchDir());
    await seedRepo(join(dir, 'repo.git'), { a: '1', 'd/c': '3', 'd/f/g': '5' });
    gh = undefined as unknown as FakeGithub;
    await start();
    const head = (await api('GET', '/repos/acme/app/git/ref/heads/main')).body.object.sha;
    rootTree = (await api('GET', `/repos/acme/app/git/commits/${head}`)).body.tree.sha;
  });
  afterEach(async () => {
    await gh.stop();
    await cleanup();
  });

  describe('when trees are read by oid under aliases', () => {
    it('gives each tree its entries, nested objects and integer modes, as git has them', async () => {
      const rest = (await api('GET', `/repos/acme/app/git/trees/${rootTree}`)).body.tree;
      const d = rest.find((e: Json) => e.path === 'd');
      const { status, body, headers } = await gql(
        `query($owner: String!, $name: String!) { repository(owner: $owner, name: $name) {
          t0: object(oid: "${rootTree}") { ... on Tree { entries { name mode type oid size } } }
          t1: object(oid: "${d.sha}") { ... on Tree { entries { name mode type oid object { ... on Tree { entries { name oid } } } } } }
          gone: object(oid: "${'0'.repeat(40)}") { oid }
        } }`,
        { owner: 'acme', name: 'app' },
      );
      expect(status).toBe(200);
      expect(headers.get('x-ratelimit-resource')).toBe('graphql');
      expect(body.errors).toBeUndefined();
      const repo = body.data.repository;
      expect(repo.gone).toBeNull();
      expect(repo.t0.entries).toEqual(
        rest.map((e: Json) => ({
          name: e.path,
          mode: parseInt(e.mode, 8),
          type: e.type,
          oid: e.sha,
          size: e.size ?? 0,
        })),
      );
      expect(repo.t1.entries.map((e: Json) => [e.name, e.mode])).toEqual([
        ['c', 0o100644],
        ['f', 0o40000],
      ]);
      expect(repo.t1.entries[1].object.entries.map((e: Json) => e.name)).toEqual(['g']);
      expect(gh.stats()).toMatchObject({ graphqlPoints: 1, spent: 3, byRoute: { 'POST /graphql': 1 } });
    });
  });

  describe('when blobs are read by oid under aliases', () => {
    it('gives text, binary as null text, and text past the limit truncated and said so', async () => {
      await seedRepo(join(dir, 'blobs.git'), {
        'a.txt': 'hello\n',
        'b.bin': new Uint8Array([1, 0, 2]),
        'long.txt': 'y'.repeat(BLOB_TEXT_LIMIT + 10),
      });
      await gh.stop();
      gh = await startFakeGithub({ repos: { 'acme/blobs': join(dir, 'blobs.git') } });
      api = restClient(gh.url);
      const oid = async (path: string) =>
        (await api('GET', `/repos/acme/blobs/contents/${path}`)).body.sha as string;
      const fields = 'byteSize isBinary isTruncated text';
      const { body } = await gql(
        `query($owner: String!, $name: String!) { repository(owner: $owner, name: $name) {
          a: object(oid: "${await oid('a.txt')}") { ... on Blob { ${fields} } }
          b: object(oid: "${await oid('b.bin')}") { ... on Blob { ${fields} } }
          l: object(oid: "${await oid('long.txt')}") { ... on Blob { ${fields} } }
        } }`,
        { owner: 'acme', name: 'blobs' },
      );
      expect(body.errors).toBeUndefined();
      const repo = body.data.repository;
      expect(repo.a).toEqual({ byteSize: 6, isBinary: false, isTruncated: false, text: 'hello\n' });
      expect(repo.b).toEqual({ byteSize: 3, isBinary: true, isTruncated: false, text: null });
      expect(repo.l).toMatchObject({ byteSize: BLOB_TEXT_LIMIT + 10, isBinary: false, isTruncated: true });
      expect(repo.l.text).toHaveLength(BLOB_TEXT_LIMIT);
    });
  });

  describe('when a call is a mutation', () => {
    it('counts it as a write by its field, apart from the POST that carried it', async () => {
      await gql('mutation($id: ID!) { addStar(input: { starrableId: $id }) { clientMutationId } }', {
        id: 'R_1',
      });
      await gql('{ viewer { login } }');
      expect(gh.stats().byRoute).toMatchObject({
        'POST /graphql': 2,
        'GRAPHQL mutation addStar': 1,
      });
      expect(writeRequests(gh.stats())).toEqual({ 'GRAPHQL mutation addStar': 1 });
    });
  });

  describe('when a branch history is read by path', () => {
    it('pages the commits changing the path as REST lists them, by "<oid> <offset>" cursors', async () => {
      const { commitToBare } = await import('../src/index.js');
      for (let i = 0; i < 5; i++)
        await commitToBare(join(dir, 'repo.git'), 'main', { [i % 2 ? 'd/x' : 'a']: `${i}` }, `c${i}`);
      const rest = (await api('GET', '/repos/acme/app/commits?sha=main&path=d&per_page=100')).body.map(
        (c: Json) => c.sha,
      );
      const page = async (after: string | null) =>
        (
          await gql(
            `query($after: String) { repository(owner: "acme", name: "app") { ref(qualifiedName: "refs/heads/main") {
              name target { ... on Commit { history(path: "d", first: 2, after: $after) {
                pageInfo { hasNextPage endCursor } nodes { oid file(path: "d") { type } } } } } } } }`,
            { after },
          )
        ).body;
      const one = await page(null);
      expect(one.data.repository.ref.name).toBe('main');
      const first = one.data.repository.ref.target.history;
      expect(first.pageInfo.hasNextPage).toBe(true);
      const second = (await page(first.pageInfo.endCursor)).data.repository.ref.target.history;
      const listed = [...first.nodes, ...second.nodes].map((n: Json) => n.oid);
      expect(listed).toEqual(rest.slice(0, listed.length));
      expect(second.nodes[0].file).toEqual({ type: 'tree' });
      const bad = await page('not-a-cursor');
      expect(bad.errors[0].message).toMatch(/not appear to be a valid cursor/);
    });
  });

  describe('when a call does not fit GitHub schema or limits', () => {
    it('answers errors for a field the schema lacks, a connection without first, and too many nodes', async () => {
      const unknown = await gql('{ repository(owner: "acme", name: "app") { treeOf(oid: "x") } }');
      expect(unknown.status).toBe(200);
      expect(unknown.body.errors[0].message).toMatch(/Cannot query field "treeOf"/);
      const unbounded = await gql(
        '{ repository(owner: "acme", name: "app") { refs(refPrefix: "refs/heads/") { totalCount } } }',
      );
      expect(unbounded.body.errors[0].type).toBe('MISSING_PAGINATION_BOUNDARIES');
      const huge = await gql(`{ repository(owner: "acme", name: "app") {
        refs(first: 100, refPrefix: "refs/heads/") { nodes { target { ... on Commit {
          history(first: 100) { nodes { parents(first: 100) { nodes { oid } } } } } } } } } }`);
      expect(huge.body.errors[0].type).toBe('MAX_NODE_LIMIT_EXCEEDED');
      expect(gh.stats().graphqlPoints).toBe(0);
    });

    it('charges points by the documented formula: one request per connection instance, over 100', async () => {
      // refs: 1 request; history: 100 (one per ref); parents: 100 x 50 = 5,000 -> 5,101 / 100 = 51 points
      const { body } = await gql(`{ repository(owner: "acme", name: "app") {
        refs(first: 100, refPrefix: "refs/heads/") { nodes { target { ... on Commit {
          history(first: 50) { nodes { parents(first: 1) { totalCount } } } } } } } } }`);
      expect(body.errors?.[0]?.type).not.toBe('MAX_NODE_LIMIT_EXCEEDED');
      expect(gh.stats().graphqlPoints).toBe(51);
    });
  });

  describe('when the GraphQL budget is spent', () => {
    it('answers RATE_LIMITED and leaves the REST budget alone', async () => {
      await start(2);
      const query = `{ repository(owner: "acme", name: "app") { object(oid: "${rootTree}") { oid } } }`;
      expect((await gql(query)).body.data.repository.object.oid).toBe(rootTree);
      expect((await gql(query)).body.errors).toBeUndefined();
      const refused = await gql(query);
      expect(refused.body.errors[0].type).toBe('RATE_LIMITED');
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
      const limits = (await api('GET', '/rate_limit')).body.resources;
      expect(limits.graphql).toMatchObject({ limit: 2, used: 2, remaining: 0 });
      expect(limits.core.used).toBe(0);
    });
  });

  describe('when the token is missing', () => {
    it('answers 401', async () => {
      const anonymous = restClient(gh.url, null);
      expect((await anonymous('POST', '/graphql', { query: '{ viewer { login } }' })).status).toBe(401);
    });
  });
});
