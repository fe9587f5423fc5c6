import { randomBytes } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commitToBare, git, gitText } from '@perimeter/fake-github';
import { ok, OWNER, REPO, sample, startHarness, type Harness } from '@perimeter/test-rigs';
import { applyChangeSet, judgeChangeSet, targetProblem } from '../../src/apply/apply-changes.js';
import { ChangeSetError, readChangeSet } from '../../src/github/staged/change-set.js';
import { createOctokitUpstream } from '../../src/github/octokit/octokit-upstream.js';
import { StagedUpstream, type StagedChangeSet } from '../../src/github/staged/staged-upstream.js';
import type { Upstream } from '../../src/github/upstream.js';
import { compilePerimeter, parseConfig } from '../../src/policy/index.js';

const CONFIG = `
version: 1
perimeters:
  dev:
    read: ["**"]
    write: ["src/**"]
`;
const FILES = { 'src/a.ts': 'a\n', 'docs/x.md': '# x\n', 'README.md': 'readme\n' };
const perimeters = parseConfig(CONFIG).perimeters.map((spec) => compilePerimeter(spec));

describe('applying a staged change set', () => {
  let h: Harness;
  let staging: StagedUpstream;
  let dev: Client;
  let github: Upstream;
  let start: string;
  const binary = randomBytes(40);
  binary[0] = 0;

  beforeEach(async () => {
    h = await startHarness({
      files: FILES,
      config: CONFIG,
      wrapUpstream: (upstream) => (staging = new StagedUpstream(upstream, 'main')),
    });
    github = createOctokitUpstream({
      token: h.token,
      owner: OWNER,
      repo: REPO,
      baseUrl: h.fake.url,
      retryBaseMs: 10,
    });
    dev = await h.connect('dev');
    start = await h.head();
    await ok(dev, 'push_files', {
      message: 'first',
      files: [
        { path: 'src/b.ts', content: 'export const b = 2;\n' },
        { path: 'src/img/logo.bin', content: binary.toString('base64'), encoding: 'base64' },
      ],
    });
    await ok(dev, 'push_files', { message: 'second', files: [], deletions: ['src/a.ts'] });
  });
  afterEach(async () => h.close());

  /** Where the apply job writes: main as GitHub has it now. */
  const target = async () => ({ branch: 'main', head: await h.head() });

  /** The set as the apply job reads it: JSON from an artifact, checked whole. */
  const received = (set: StagedChangeSet = staging.changeSet()!) =>
    readChangeSet(JSON.parse(JSON.stringify(set)));

  it('lands exactly the staged commits: same trees, messages and order, in one move of the branch', async () => {
    const set = received();
    const judged = await judgeChangeSet(github, set, perimeters, 'main');
    expect(judged.violations).toEqual([]);
    expect(judged.paths).toEqual(['src/a.ts', 'src/b.ts', 'src/img/logo.bin']);
    h.fake.resetStats();
    const result = await applyChangeSet(github, set, judged, await target());
    expect(result.state).toBe('applied');
    expect(h.fake.stats().byRoute['PATCH /repos/{owner}/{repo}/git/refs/{ref}']).toBe(1);
    const log = (await gitText(h.repoDir, ['log', '--format=%T %s', `${start}..main`])).trim().split('\n');
    expect(log).toEqual(set.commits.map((c) => `${c.tree} ${c.message}`).reverse());
    expect(await git(h.repoDir, ['show', 'main:src/img/logo.bin'])).toEqual(binary);
  });

  it('refuses a tampered set that adds a workflow, naming it, and writes nothing', async () => {
    const tamper = StagedUpstream.fromChangeSet(github, received());
    const head = await tamper.getBranchHead('main');
    const tree = await tamper.createTree((await tamper.getCommit(head)).tree, [
      { path: '.github/workflows/x.yml', mode: '100644', content: 'on: push\n' },
      { path: 'docs/x.md', mode: '100644', content: 'rewritten\n' },
    ]);
    await tamper.updateBranch('main', await tamper.createCommit('innocent', tree, [head]));
    const judged = await judgeChangeSet(github, received(tamper.changeSet()!), perimeters, 'main');
    expect(judged.violations.map((v) => v.path)).toEqual(['.github/workflows/x.yml', 'docs/x.md']);
    expect(judged.violations[0]!.message).toContain('protected');
    expect(await h.head()).toBe(start);
  });

  it('refuses a set whose objects do not hash to their SHAs, naming them', () => {
    const set = staging.changeSet()!;
    const [sha, base64] = Object.entries(set.blobs)[0]!;
    const bytes = Buffer.from(base64, 'base64');
    bytes.writeUInt8(bytes.readUInt8(0) ^ 1, 0);
    expect(() => received({ ...set, blobs: { ...set.blobs, [sha]: bytes.toString('base64') } })).toThrow(
      new RegExp(`blob ${sha}: its content hashes to`),
    );
    const reordered = { ...set, commits: [...set.commits].reverse() };
    expect(() => received(reordered)).toThrow(ChangeSetError);
    expect(() => received({ ...set, version: 2 } as unknown as StagedChangeSet)).toThrow(/version/);
  });

  it('goes on top of commits that touched other paths, and stops on ones that touched the same', async () => {
    await commitToBare(h.repoDir, 'main', { 'docs/x.md': 'a teammate\n' }, 'teammate');
    const moved = await h.head();
    const set = received();
    const judged = await judgeChangeSet(github, set, perimeters, 'main');
    const result = await applyChangeSet(github, set, judged, await target());
    expect(result).toMatchObject({ state: 'applied', onTopOf: moved });
    expect(await gitText(h.repoDir, ['show', 'main:src/b.ts'])).toBe('export const b = 2;\n');
    expect(await gitText(h.repoDir, ['show', 'main:docs/x.md'])).toBe('a teammate\n');

    await commitToBare(h.repoDir, 'main', { 'src/b.ts': 'theirs\n' }, 'same path');
    const blocked = await applyChangeSet(github, set, judged, await target());
    expect(blocked).toMatchObject({ state: 'blocked' });
    expect(blocked.state === 'blocked' && blocked.reason).toContain('src/b.ts');
  });

  it("opens a draft pull request from a new branch on the head as GitHub has it, never the set's base", async () => {
    await commitToBare(h.repoDir, 'main', { 'docs/x.md': 'a teammate\n' }, 'teammate');
    const moved = await h.head();
    const set = received();
    const judged = await judgeChangeSet(github, set, perimeters, 'main');
    const mode = {
      kind: 'pull-request' as const,
      branch: 'perimeter/staged/7-1',
      title: 'Staged',
      body: 'b',
      labels: ['agent'],
    };
    const result = await applyChangeSet(github, set, judged, await target(), mode);
    expect(result).toMatchObject({ state: 'opened', branch: 'perimeter/staged/7-1', pull: { number: 1 } });
    const subjects = (
      await gitText(h.repoDir, ['log', '--format=%s', `${moved}..perimeter/staged/7-1`])
    ).trim();
    expect(subjects.split('\n')).toEqual(set.commits.map((c) => c.message).reverse());
    expect(await gitText(h.repoDir, ['show', 'perimeter/staged/7-1:docs/x.md'])).toBe('a teammate\n');
    const pull = (await (
      await fetch(`${h.fake.url}/repos/${OWNER}/${REPO}/pulls/1`, {
        headers: { authorization: `token ${h.token}` },
      })
    ).json()) as { labels: Array<{ name: string }> };
    expect(pull).toMatchObject({
      draft: true,
      title: 'Staged',
      base: { ref: 'main' },
      head: { ref: 'perimeter/staged/7-1' },
    });
    expect(pull.labels.map((l) => l.name)).toEqual(['agent']);
    const again = await applyChangeSet(github, set, judged, await target(), mode);
    expect(again).toMatchObject({ state: 'blocked' });
  });

  describe('when the set names another branch or a base the branch does not contain', () => {
    it('refuses it whole and writes nothing', async () => {
      const set = received();
      const judged = await judgeChangeSet(github, set, perimeters, 'main');
      await git(h.repoDir, ['branch', 'release/1.0', 'main']);
      const other = await applyChangeSet(github, set, judged, {
        branch: 'release/1.0',
        head: await h.head('release/1.0'),
      });
      expect(other).toEqual({
        state: 'blocked',
        reason: 'the change set names branch "main", and this job applies to "release/1.0" only',
      });
      // a base on another line of history: its changes would come along unjudged
      await git(h.repoDir, ['branch', 'side', start]);
      const side = await commitToBare(h.repoDir, 'side', { CODEOWNERS: '* @rogue\n' }, 'side');
      for (const base of [side, 'f'.repeat(40)]) {
        const problem = await targetProblem(github, { ...set, base }, await target());
        expect(problem).toEqual({
          state: 'error',
          reason: expect.stringContaining(`the change set sits on ${base}, which "main"`),
        });
        const blocked = await applyChangeSet(github, { ...set, base }, judged, await target());
        expect(blocked).toMatchObject({ state: 'blocked' });
      }
      expect(await h.head()).toBe(start);
      expect(await h.head('release/1.0')).toBe(start);
    });
  });

  it('stops when a staged path needs a directory where a teammate added a file', async () => {
    await commitToBare(h.repoDir, 'main', { 'src/img': 'a file, not a directory\n' }, 'teammate');
    const set = received();
    const judged = await judgeChangeSet(github, set, perimeters, 'main');
    const blocked = await applyChangeSet(github, set, judged, await target());
    expect(blocked).toMatchObject({ state: 'blocked', reason: expect.stringContaining('src/img/logo.bin') });
    expect(await gitText(h.repoDir, ['show', 'main:src/img'])).toBe('a file, not a directory\n');
  });

  it('refuses a commit no one perimeter could have pushed: more files than its limit', async () => {
    const tamper = StagedUpstream.fromChangeSet(github, received());
    const head = await tamper.getBranchHead('main');
    const many = Array.from({ length: 4 }, (_, i) => ({
      path: `src/many/${i}.ts`,
      mode: '100644' as const,
      content: `${i}\n`,
    }));
    const tree = await tamper.createTree((await tamper.getCommit(head)).tree, many);
    await tamper.updateBranch('main', await tamper.createCommit('four files', tree, [head]));
    const strict = parseConfig(
      CONFIG.replace('write: ["src/**"]', 'write: ["src/**"]\n    limits: { files-per-push: 3 }'),
    );
    const judged = await judgeChangeSet(
      github,
      received(tamper.changeSet()!),
      strict.perimeters.map((p) => compilePerimeter(p)),
      'main',
    );
    expect(judged.violations.map((v) => v.message)).toEqual([
      expect.stringMatching(
        /staged commit 3 .*no one perimeter may make the whole commit .*may push 3 path\(s\) at once, and the commit changes 4/,
      ),
    ]);
  });

  /** A set the agent's runner could hand over: staged around the gateway, straight into the staging view. */
  const tampered = async (files: Array<{ path: string; content: string }>) => {
    const tamper = StagedUpstream.fromChangeSet(github, received());
    const head = await tamper.getBranchHead('main');
    const tree = await tamper.createTree(
      (await tamper.getCommit(head)).tree,
      files.map((f) => ({ ...f, mode: '100644' as const })),
    );
    await tamper.updateBranch('main', await tamper.createCommit('around the gateway', tree, [head]));
    return received(tamper.changeSet()!);
  };

  it('refuses a file whose content holds a credential, as the gateway refuses the push', async () => {
    const set = await tampered([
      { path: 'src/config.ts', content: `export const token = '${sample.github()}';\n` },
    ]);
    const judged = await judgeChangeSet(github, set, perimeters, 'main');
    expect(judged.violations).toEqual([
      expect.objectContaining({
        path: 'src/config.ts',
        message: expect.stringContaining('looks like it contains a credential'),
      }),
    ]);
  });

  it('refuses a path spelled in decomposed Unicode where its composed spelling is denied', async () => {
    const config = parseConfig(
      CONFIG.replace('write: ["src/**"]', 'write: ["src/**"]\n    deny: ["src/café.ts"]'),
    );
    const set = await tampered([{ path: 'src/cafe\u0301.ts', content: 'x\n' }]);
    const judged = await judgeChangeSet(
      github,
      set,
      config.perimeters.map((p) => compilePerimeter(p)),
      'main',
    );
    expect(judged.violations.map((v) => v.message)).toEqual([
      expect.stringContaining('deny glob "src/café.ts" (spelled in another Unicode normal form)'),
    ]);
  });
});
