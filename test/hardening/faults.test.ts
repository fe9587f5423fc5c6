/**
 * GitHub misbehaving under the gateway, through the stand-in's fault injection: bursts of 5xx, answers
 * slower than the request timeout, spent primary and secondary rate limits, and the branch moving between
 * the read and the write of a push. Reads are retried, writes never repeated blindly, no commit is made
 * twice, no write is lost, and the agent always gets a clear answer. Request timeouts run on the test's
 * clock: an attempt times out exactly when the stand-in or the proxy holds it, never on a slow machine.
 */
import fc from 'fast-check';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { git, gitText } from '@perimeter/fake-github';
import { answerOf, callTool, OWNER, REPO, startStand, textOf, type Stand } from './support/stand.js';

const CONFIG = `
version: 1
perimeters:
  dev:
    read: ["src/**", "docs/**"]
    write: ["src/**", "docs/**"]
`;

const FILES: Record<string, string> = Object.fromEntries(
  Array.from({ length: 12 }, (_, i) => [`src/f${i}.ts`, `export const f${i} = ${i};\n`]),
);

const BLOBS = /git\/blobs\/\{sha\}$/;
const REF_UPDATE = /^PATCH .*git\/refs/;
const PATCH_REF = 'PATCH /repos/{owner}/{repo}/git/refs/{ref}';
const MUTATION = 'GRAPHQL mutation createCommitOnBranch';
/** Files the Git Data API tests push to: executable, so GraphQL cannot land them. */
const SCRIPTS = ['late', 'dropped', 'limited', 'long-limited'].map((name) => `src/${name}.sh`);

/** No stack frames, no internal error: something an agent can act on. */
function expectClearError(text: string): void {
  expect(text).not.toMatch(/\n\s+at /);
  expect(text).not.toMatch(/internal error/i);
  expect(text.length).toBeGreaterThan(10);
}

async function commitsWithMessage(stand: Stand, message: string): Promise<number> {
  const log = await gitText(stand.repoDir, ['log', '--format=%s', 'main']);
  return log.split('\n').filter((line) => line === message).length;
}

/** Adds executable files on main, as a push from a checkout would. */
async function makeExecutable(repoDir: string, paths: string[]): Promise<void> {
  const head = (await gitText(repoDir, ['rev-parse', 'main'])).trim();
  const lines = [
    `commit refs/heads/main`,
    `committer T <t@example.com> ${Math.floor(Date.now() / 1000)} +0000`,
  ];
  lines.push('data 7', 'scripts', `from ${head}`);
  for (const path of paths) lines.push(`M 100755 inline ${path}`, 'data 10', '#!/bin/sh\n');
  await git(repoDir, ['fast-import', '--quiet', '--force'], { input: Buffer.from(lines.join('\n') + '\n') });
}

describe('the gateway when GitHub misbehaves', () => {
  let stand: Stand;
  let dev: Client;
  let file = 0;
  /** A file no earlier test has read (SHA-addressed blobs are cached forever). */
  const fresh = (): string => `src/f${file++}.ts`;

  beforeAll(async () => {
    stand = await startStand({
      files: FILES,
      config: CONFIG,
      proxy: true,
      timeouts: 'on-hold',
      // the REST reads' faults: blobs over git and its fallback are test/github/git-blobs.test.ts's
      upstream: { retryBaseMs: 10, readRetries: 2, maxRateLimitWaitSeconds: 5, gitUrl: false },
    });
    dev = await stand.connect('dev');
    await makeExecutable(stand.repoDir, SCRIPTS);
  });
  afterAll(async () => stand.close());
  beforeEach(() => {
    stand.fake.clearFaults();
    stand.fake.resetStats();
  });

  describe('when reads meet a burst of 5xx', () => {
    it('retries them and answers', async () => {
      const path = fresh();
      stand.fake.injectFault({ kind: 'status', status: 502, count: 2, route: BLOBS });
      const result = await callTool(dev, 'get_file', { path });
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(textOf(result)).toBe(FILES[path]);
      expect(stand.fake.stats().byRoute['GET /repos/{owner}/{repo}/git/blobs/{sha}']).toBe(3);
    });

    it('gives a clear error when the burst outlasts the retries, and serves the next call', async () => {
      const path = fresh();
      stand.fake.injectFault({ kind: 'status', status: 503, count: 3, route: BLOBS });
      const failed = await callTool(dev, 'get_file', { path });
      expect(failed.isError).toBe(true);
      expectClearError(textOf(failed));
      expect(textOf(failed)).toMatch(/unavailable.*503/s);
      const again = await callTool(dev, 'get_file', { path });
      expect(textOf(again)).toBe(FILES[path]);
    });
  });

  describe('when an answer is slower than the request timeout', () => {
    it('abandons that attempt and retries the read', async () => {
      const path = fresh();
      stand.fake.injectFault({ kind: 'hang', count: 1, route: BLOBS });
      const result = await callTool(dev, 'get_file', { path });
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(textOf(result)).toBe(FILES[path]);
      expect(stand.fake.stats().byRoute['GET /repos/{owner}/{repo}/git/blobs/{sha}']).toBe(2);
    });
  });

  describe('when the rate limit is spent', () => {
    it('waits for a near reset and answers', async () => {
      const path = fresh();
      stand.fake.injectFault({ kind: 'rate-limit', count: 1, retryAfter: 1, route: BLOBS });
      const result = await callTool(dev, 'get_file', { path });
      expect(textOf(result)).toBe(FILES[path]);
    });

    it('fails fast and clearly when the reset is far away, then serves again', async () => {
      const path = fresh();
      stand.fake.injectFault({ kind: 'rate-limit', count: 1, retryAfter: 3_600, route: BLOBS });
      const failed = await callTool(dev, 'get_file', { path });
      expect(failed.isError).toBe(true);
      expectClearError(textOf(failed));
      expect(textOf(failed)).toMatch(/rate.?limit/i);
      expect(textOf(await callTool(dev, 'get_file', { path }))).toBe(FILES[path]);
    });
  });

  /**
   * Both landings: GraphQL's createCommitOnBranch for a plain file, the Git Data API for a file that must stay
   * executable (GraphQL cannot keep the bit).
   */
  describe.each([
    {
      landing: 'GraphQL',
      file: (name: string) => `src/${name}.ts`,
      hold: /^POST \/graphql/,
      route: MUTATION as string | RegExp,
      write: MUTATION,
    },
    {
      landing: 'the Git Data API',
      file: (name: string) => `src/${name}.sh`,
      hold: /^PATCH .*\/git\/refs\//,
      route: REF_UPDATE as string | RegExp,
      write: PATCH_REF,
    },
  ])('when a push lands by $landing', ({ landing, file, hold, route, write }) => {
    const push = (message: string, name: string) => ({
      message: `${message} (${landing})`,
      files: [{ path: file(name), content: `${name}\n` }],
    });
    const writes = (): number => stand.fake.stats().byRoute[write] ?? 0;

    it('never repeats a write that took effect but answered late, reports it landed, and makes no second commit', async () => {
      const before = await stand.head();
      stand.proxy!.holdAnswers(hold);
      const args = push('late answer', 'late');
      const first = await callTool(dev, 'push_files', args);
      // the update landed although its answer never came in time: the gateway re-reads the branch and says so
      expect(stand.proxy!.held).toHaveLength(1);
      stand.proxy!.held.splice(0);
      const head = await stand.head();
      expect(head).not.toBe(before);
      expect(first.isError, textOf(first)).toBeFalsy();
      expect(answerOf(first)).toMatchObject({ commit: head });
      expect(writes()).toBe(1);

      const second = await callTool(dev, 'push_files', args);
      expect(second.isError, textOf(second)).toBeFalsy();
      expect(answerOf(second)).toMatchObject({ commit: null });
      expect(await commitsWithMessage(stand, args.message)).toBe(1);
      expect(writes()).toBe(1);
    });

    it('never repeats a write abandoned before it took effect; a second push lands once', async () => {
      const before = await stand.head();
      stand.fake.injectFault({ kind: 'hang', count: 1, route });
      const args = push('dropped write', 'dropped');
      const first = await callTool(dev, 'push_files', args);
      expect(first.isError).toBe(true);
      expectClearError(textOf(first));
      expect(writes()).toBe(1);
      expect(await stand.head()).toBe(before);

      const second = await callTool(dev, 'push_files', args);
      expect(second.isError, textOf(second)).toBeFalsy();
      expect(await commitsWithMessage(stand, args.message)).toBe(1);
      expect(writes()).toBe(2);
    });

    it('repeats a write refused by a secondary limit once, after Retry-After: one commit', async () => {
      stand.fake.injectFault({ kind: 'secondary-limit', status: 429, count: 1, retryAfter: 1, route });
      const args = push('limited write', 'limited');
      const result = await callTool(dev, 'push_files', args);
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(await commitsWithMessage(stand, args.message)).toBe(1);
      expect(writes()).toBe(2);
    });

    it('refuses to wait out a secondary limit longer than allowed, and says so', async () => {
      const before = await stand.head();
      stand.fake.injectFault({ kind: 'secondary-limit', count: 1, retryAfter: 600, route });
      const result = await callTool(dev, 'push_files', push('long limited write', 'long-limited'));
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/rate.?limit/i);
      expect(await stand.head()).toBe(before);
    });
  });

  describe('when the branch moves between the read and the write of a push', () => {
    it('either lands on top of the other change or refuses the conflict; never loses a write or commits twice', async () => {
      const paths = ['src/a.ts', 'src/b.ts', 'src/f0.ts', 'docs/x.md'];
      let round = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.subarray(paths, { minLength: 1 }),
          fc.subarray(paths, { minLength: 1 }),
          async (ours, theirs) => {
            round++;
            const before = await stand.head();
            const theirContent = Object.fromEntries(theirs.map((p) => [p, `theirs ${round}\n`]));
            stand.fake.injectFault({
              kind: 'move-ref',
              repo: `${OWNER}/${REPO}`,
              ref: 'main',
              files: theirContent,
              message: `theirs ${round}`,
            });
            const message = `ours ${round}`;
            const result = await callTool(dev, 'push_files', {
              message,
              files: ours.map((path) => ({ path, content: `ours ${round}\n` })),
            });
            const after = await stand.head();
            const show = (path: string): Promise<string> => gitText(stand.repoDir, ['show', `main:${path}`]);
            // their commit always survives
            expect(await commitsWithMessage(stand, `theirs ${round}`)).toBe(1);
            for (const path of theirs.filter((p) => !ours.includes(p)))
              expect(await show(path)).toBe(`theirs ${round}\n`);
            if (ours.some((p) => theirs.includes(p))) {
              expect(result.isError).toBe(true);
              expect(textOf(result)).toMatch(/conflict/);
              expect(textOf(result)).toContain(after);
              expect(await commitsWithMessage(stand, message)).toBe(0);
              for (const path of theirs) expect(await show(path)).toBe(`theirs ${round}\n`);
            } else {
              expect(result.isError, textOf(result)).toBeFalsy();
              expect(await commitsWithMessage(stand, message)).toBe(1);
              const parents = (await gitText(stand.repoDir, ['log', '-1', '--format=%P', 'main'])).trim();
              expect(parents).not.toBe(before);
              expect(await gitText(stand.repoDir, ['log', '-1', '--format=%s', `${after}^`])).toBe(
                `theirs ${round}\n`,
              );
              for (const path of ours) expect(await show(path)).toBe(`ours ${round}\n`);
            }
          },
        ),
        { numRuns: 8 },
      );
    });
  });
});
