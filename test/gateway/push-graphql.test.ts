import { randomBytes } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { git, gitText, readRefChanges, writeRequests, type Fault } from '@perimeter/fake-github';
import { call, ok, OWNER, REPO, startHarness, textOf, type Harness } from '@perimeter/test-rigs';

const CONFIG = `
version: 1
perimeters:
  implementer:
    read: ["src/**", "test/**"]
    write: ["src/**"]
`;

const FILES = {
  'src/index.ts': 'export const answer = 42;\n',
  'src/old.ts': 'old\n',
  'test/index.test.ts': 'test\n',
};

const MUTATION = 'GRAPHQL mutation createCommitOnBranch';

/** Makes `path` an executable file on main, as a push from a checkout would. */
async function makeExecutable(repoDir: string, path: string, text: string): Promise<void> {
  const head = (await gitText(repoDir, ['rev-parse', 'main'])).trim();
  const input = `commit refs/heads/main\ncommitter T <t@example.com> ${Math.floor(Date.now() / 1000)} +0000\ndata 4\nexec\nfrom ${head}\nM 100755 inline ${path}\ndata ${Buffer.byteLength(text)}\n${text}\n`;
  await git(repoDir, ['fast-import', '--quiet', '--force'], { input: Buffer.from(input) });
}

describe('push_files by GraphQL createCommitOnBranch', () => {
  let h: Harness;
  let agent: Client;

  const show = (path: string): Promise<string> => gitText(h.repoDir, ['show', `main:${path}`]);
  const writes = () => writeRequests(h.fake.stats());

  beforeAll(async () => {
    h = await startHarness({ files: FILES, config: CONFIG });
    agent = await h.connect('implementer');
    await ok(agent, 'get_tree', { recursive: true });
  });
  afterAll(async () => h.close());
  beforeEach(() => {
    h.fake.clearFaults();
    h.fake.resetStats();
  });

  describe('when GraphQL can express the push', () => {
    it('lands text, binary files and a deletion in one mutation: at most 3 requests, signed, by the token', async () => {
      const before = await h.head();
      const binary = randomBytes(2048);
      binary[0] = 0;
      const files = [
        { path: 'src/a.ts', content: 'export const a = 1;\n' },
        { path: 'src/img/logo.png', content: binary.toString('base64'), encoding: 'base64' },
        ...Array.from({ length: 40 }, (_, i) => ({
          path: `src/bin/b${i}.bin`,
          content: Buffer.from([0, i, 255]).toString('base64'),
          encoding: 'base64',
        })),
      ];
      const result = await ok<{ commit: string }>(agent, 'push_files', {
        message: 'binary and text',
        files,
        deletions: ['src/old.ts'],
      });
      expect(writes()).toEqual({ [MUTATION]: 1 });
      expect(h.fake.stats().total).toBeLessThanOrEqual(3);
      expect(await h.head()).toBe(result.commit);
      expect((await gitText(h.repoDir, ['rev-parse', `${result.commit}^`])).trim()).toBe(before);
      expect(await git(h.repoDir, ['show', 'main:src/img/logo.png'])).toEqual(binary);
      expect(await git(h.repoDir, ['show', 'main:src/bin/b39.bin'])).toEqual(Buffer.from([0, 39, 255]));
      await expect(show('src/old.ts')).rejects.toThrow();
      expect(await gitText(h.repoDir, ['cat-file', 'commit', result.commit])).toMatch(/^gpgsig /m);
      const changes = await readRefChanges(h.repoDir);
      expect(changes.at(-1)).toMatchObject({ after: result.commit, actor: 'github-actions[bot]' });

      // the index after the push is built locally; the pushed bytes are known: a read costs the head only
      h.fake.resetStats();
      await ok(agent, 'get_file', { path: 'src/a.ts' });
      expect(h.fake.stats().byRoute).toEqual({ 'GIT POST /{owner}/{repo}.git/git-upload-pack': 1 });

      // and so is what the push changed: get_commit of it lists no file by REST, and says what git says
      // (a diff of its trees: from the history copy when there is one, here, without, one batched read)
      h.fake.resetStats();
      const shown = await ok<{ files: Array<{ path: string; status: string }> }>(agent, 'get_commit', {
        sha: result.commit,
      });
      const { 'POST /graphql': batched = 0, ...rest } = h.fake.stats().byRoute;
      expect(rest).toEqual({ 'GIT POST /{owner}/{repo}.git/git-upload-pack': 1 });
      expect(batched).toBeLessThanOrEqual(1);
      const truth = (
        await gitText(h.repoDir, ['diff-tree', '-r', '--no-renames', '--name-status', result.commit])
      )
        .trim()
        .split('\n')
        .slice(1)
        .map((line) => line.split('\t'))
        .map(([letter, path]) => `${{ A: 'added', M: 'modified', D: 'deleted' }[letter!]} ${path}`)
        .sort();
      expect(shown.files.map((f) => `${f.status} ${f.path}`).sort()).toEqual(truth);
    });

    it('answers "no change" without a commit when the files already hold these bytes', async () => {
      const before = await h.head();
      const result = await ok<{ commit: string | null }>(agent, 'push_files', {
        message: 'same',
        files: [{ path: 'src/index.ts', content: FILES['src/index.ts'] }],
      });
      expect(result.commit).toBeNull();
      expect(writes()).toEqual({});
      expect(await h.head()).toBe(before);
    });
  });

  describe('when GraphQL cannot express it', () => {
    it('keeps an executable file executable by landing through the Git Data API', async () => {
      await makeExecutable(h.repoDir, 'src/run.sh', '#!/bin/sh\n');
      await ok(agent, 'push_files', {
        message: 'script',
        files: [{ path: 'src/run.sh', content: '#!/bin/sh\necho hi\n' }],
      });
      expect(writes()[MUTATION]).toBeUndefined();
      expect(writes()['POST /repos/{owner}/{repo}/git/trees']).toBe(1);
      expect(await gitText(h.repoDir, ['ls-tree', 'main', 'src/run.sh'])).toMatch(/^100755 /);
      expect(await show('src/run.sh')).toBe('#!/bin/sh\necho hi\n');
    });
  });

  describe('when the message has no headline', () => {
    it('lands by the Git Data API and keeps the message as given', async () => {
      const result = await ok<{ commit: string }>(agent, 'push_files', {
        message: '\nno headline, a body only',
        files: [{ path: 'src/headless.ts', content: 'h\n' }],
      });
      expect(writes()[MUTATION]).toBeUndefined();
      expect(writes()['PATCH /repos/{owner}/{repo}/git/refs/{ref}']).toBe(1);
      expect(await gitText(h.repoDir, ['log', '-1', '--format=%B', result.commit])).toContain('a body only');
    });
  });

  describe('when the branch moves meanwhile', () => {
    it('lands on top of a teammate commit that touched other paths', async () => {
      h.fake.injectFault({
        kind: 'move-ref',
        repo: `${OWNER}/${REPO}`,
        ref: 'main',
        files: { 'test/theirs.test.ts': 'theirs\n' },
        actor: 'teammate',
      });
      const result = await ok<{ commit: string }>(agent, 'push_files', {
        message: 'mine',
        files: [{ path: 'src/mine.ts', content: 'mine\n' }],
      });
      expect(writes()).toEqual({ [MUTATION]: 2 });
      expect(await h.head()).toBe(result.commit);
      expect(await show('test/theirs.test.ts')).toBe('theirs\n');
      const [theirs, mine] = (await readRefChanges(h.repoDir)).slice(-2);
      expect(theirs).toMatchObject({ actor: 'teammate' });
      expect(mine).toMatchObject({
        before: theirs!.after,
        after: result.commit,
        actor: 'github-actions[bot]',
      });
    });

    it('fails with a conflict naming the path and the new head when the same file changed', async () => {
      h.fake.injectFault({
        kind: 'move-ref',
        repo: `${OWNER}/${REPO}`,
        ref: 'main',
        files: { 'src/index.ts': 'theirs\n' },
      });
      const result = await call(agent, 'push_files', {
        message: 'mine',
        files: [{ path: 'src/index.ts', content: 'mine\n' }],
      });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/conflict, nothing was written/);
      expect(textOf(result)).toContain(await h.head());
      expect(await show('src/index.ts')).toBe('theirs\n');
      expect(writes()).toEqual({ [MUTATION]: 1 });
    });
  });

  describe('when GitHub fails', () => {
    it('reports success when the commit landed but its answer was lost', async () => {
      h.fake.injectFault({ kind: 'lose-answer', route: MUTATION });
      const result = await ok<{ commit: string }>(agent, 'push_files', {
        message: 'lost answer',
        files: [{ path: 'src/lost.ts', content: 'lost\n' }],
      });
      expect(await h.head()).toBe(result.commit);
      expect(await show('src/lost.ts')).toBe('lost\n');
    });

    it('says nothing was written when GitHub failed before committing', async () => {
      const before = await h.head();
      h.fake.injectFault({ kind: 'status', status: 502, route: MUTATION });
      const result = await call(agent, 'push_files', {
        message: 'failed',
        files: [{ path: 'src/failed.ts', content: 'failed\n' }],
      });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/nothing was written/);
      expect(await h.head()).toBe(before);
    });
  });

  describe('under any sequence of faults', () => {
    type Step = 'none' | 'before' | 'lost' | 'theirs-elsewhere' | 'theirs-same';
    const faultFor = (step: Step): Fault | null => {
      switch (step) {
        case 'before':
          return { kind: 'status', status: 502, route: MUTATION };
        case 'lost':
          return { kind: 'lose-answer', route: MUTATION };
        case 'theirs-elsewhere':
          return {
            kind: 'move-ref',
            repo: `${OWNER}/${REPO}`,
            ref: 'main',
            files: { 'test/t.ts': randomBytes(4).toString('hex') },
          };
        case 'theirs-same':
          return {
            kind: 'move-ref',
            repo: `${OWNER}/${REPO}`,
            ref: 'main',
            files: { 'src/p/0.ts': 'theirs\n' },
          };
        default:
          return null;
      }
    };

    it('writes all of a push or none of it, and says which', async () => {
      let round = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.constantFrom<Step>('none', 'before', 'lost', 'theirs-elsewhere', 'theirs-same'), {
            maxLength: 3,
          }),
          fc.integer({ min: 1, max: 4 }),
          async (steps, count) => {
            h.fake.clearFaults();
            round += 1;
            for (const fault of steps.map(faultFor)) if (fault) h.fake.injectFault(fault);
            const token = `round ${round}\n`;
            const files = Array.from({ length: count }, (_, i) => ({
              path: `src/p/${i}.ts`,
              content: token,
            }));
            const result = await call(agent, 'push_files', { message: `round ${round}`, files });
            const landed = await Promise.all(
              files.map((f) =>
                show(f.path).then(
                  (t) => t === token,
                  () => false,
                ),
              ),
            );
            // all or nothing
            expect(new Set(landed).size).toBe(1);
            if (!result.isError) expect(landed[0]).toBe(true);
            if (result.isError && /nothing was written/.test(textOf(result))) expect(landed[0]).toBe(false);
          },
        ),
        { numRuns: 12 },
      );
    });
  });
});

describe('push_files when GraphQL budget is spent', () => {
  let h: Harness;
  let agent: Client;

  beforeAll(async () => {
    h = await startHarness({ files: FILES, config: CONFIG, graphqlRateLimit: 0 });
    agent = await h.connect('implementer');
  });
  afterAll(async () => h.close());

  it('lands by the Git Data API on REST budget instead, and keeps doing so', async () => {
    for (const round of [1, 2]) {
      h.fake.resetStats();
      const binary = Buffer.from([0, round, 2]);
      await ok(agent, 'push_files', {
        message: `round ${round}`,
        files: [
          { path: 'src/t.ts', content: `t${round}\n` },
          { path: 'src/b.bin', content: binary.toString('base64'), encoding: 'base64' },
        ],
      });
      expect(await gitText(h.repoDir, ['show', 'main:src/t.ts'])).toBe(`t${round}\n`);
      expect(await git(h.repoDir, ['show', 'main:src/b.bin'])).toEqual(binary);
      const routes = writeRequests(h.fake.stats());
      expect(routes['PATCH /repos/{owner}/{repo}/git/refs/{ref}']).toBe(1);
      // tried once, refused (RATE_LIMITED), then not again while the budget is out
      expect(routes[MUTATION] ?? 0).toBe(round === 1 ? 1 : 0);
    }
  });
});
