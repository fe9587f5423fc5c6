import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Upstream } from '../../src/github/upstream.js';
import {
  snapshotRefs,
  verifyJob,
  type LedgerFacts,
  type RefSnapshot,
  type VerifyInput,
} from '../../src/verify/index.js';
import { commitToBare } from '@perimeter/fake-github';
import {
  compiledPerimeter,
  plumbCommit,
  setRef,
  startStandIn,
  windowOpens,
  type StandIn,
} from '@perimeter/test-rigs';

const BRANCH = 'agent/x';

const PERIMETERS = [
  compiledPerimeter({ name: 'implementer', read: ['**'], write: ['src/**'] }),
  compiledPerimeter({ name: 'test-author', read: ['**'], write: ['test/**'] }),
];

let s: StandIn;
let up: Upstream;
let start: RefSnapshot;
let startedAt: string;

beforeEach(async () => {
  s = await startStandIn({
    'README.md': 'r\n',
    'src/a.ts': 'a\n',
    'test/a.test.ts': 't\n',
    'docs/guide.md': 'g\n',
  });
  await setRef(s.dir, `refs/heads/${BRANCH}`, s.seed, 'github-actions[bot]');
  up = s.upstream();
  startedAt = await windowOpens();
  start = await snapshotRefs(up);
});
afterEach(() => s.stop());

/** A commit made the way the gateway makes one: through the Git Data API. */
async function gatewayCommit(files: Record<string, string | null>): Promise<string> {
  const head = await up.getBranchHead(BRANCH);
  const tree = await up.createTree(
    (await up.getCommit(head)).tree,
    Object.entries(files).map(([path, content]) =>
      content === null ? { path, sha: null } : { path, mode: '100644' as const, content },
    ),
  );
  const commit = await up.createCommit('via gateway', tree, [head]);
  await up.updateBranch(BRANCH, commit);
  return commit;
}

async function verify(ledger: LedgerFacts | null, extra: Partial<VerifyInput> = {}) {
  const fresh = s.upstream();
  const end = await snapshotRefs(fresh);
  const before = fresh.stats().requests;
  const verdict = await verifyJob({
    upstream: fresh,
    branch: BRANCH,
    start,
    end,
    perimeters: PERIMETERS,
    ledger,
    directPushes: 'check',
    startedAt,
    ...extra,
  });
  return { verdict, requests: fresh.stats().requests - before };
}

const ledgerOf = (...commits: string[]): LedgerFacts => ({
  ok: true,
  commits,
  perPerimeter: { implementer: { calls: 4, refusals: 1 } },
});

describe('verifyJob against the stand-in', () => {
  describe('when the job only pushed through the gateway inside its perimeters', () => {
    it('succeeds, names the rule for each file and attributes the commits', async () => {
      const one = await gatewayCommit({ 'src/b.ts': 'b\n' });
      const two = await gatewayCommit({ 'test/b.test.ts': 'b\n' });
      const three = await gatewayCommit({ 'src/a.ts': null });
      const { verdict } = await verify(ledgerOf(one, two, three));
      expect(verdict.state).toBe('success');
      expect(verdict.files.map((f) => `${f.kind} ${f.path} ${f.rule}`)).toEqual([
        'deleted src/a.ts implementer: write glob "src/**"',
        'added src/b.ts implementer: write glob "src/**"',
        'added test/b.test.ts test-author: write glob "test/**"',
      ]);
      expect(verdict.commits).toEqual({
        gateway: [three, two, one],
        direct: [],
        others: [],
        unattributed: [],
        complete: true,
      });
      expect(verdict.perPerimeter).toEqual({ implementer: { calls: 4, refusals: 1 } });
    });

    it("fails one commit that needs both perimeters, though each path is some perimeter's", async () => {
      const both = await gatewayCommit({ 'test/b.test.ts': 'b\n', 'src/a.ts': null });
      const { verdict } = await verify(ledgerOf(both));
      expect(verdict.state).toBe('failure');
      expect(verdict.violations.map((v) => v.message)).toEqual([
        `commit ${both.slice(0, 7)}: no one perimeter may make the whole commit ("implementer" may not write test/b.test.ts; "test-author" may not write src/a.ts)`,
      ]);
    });
  });

  describe('when nothing changed', () => {
    it('succeeds without diffing, on the activity list alone (with the end marker in it)', async () => {
      const { verdict, requests } = await verify(ledgerOf());
      expect(verdict.state).toBe('success');
      expect(verdict.files).toEqual([]);
      expect(requests).toBe(3);
    });
  });

  describe('when someone pushed an out-of-scope file directly', () => {
    it('fails on the file and counts the direct commit, naming who pushed it', async () => {
      const mine = await gatewayCommit({ 'src/b.ts': 'b\n' });
      const rogue = await commitToBare(s.dir, BRANCH, { 'docs/guide.md': 'rewritten\n' }, 'rogue', {
        actor: 'github-actions[bot]',
      });
      const { verdict } = await verify(ledgerOf(mine));
      expect(verdict.state).toBe('failure');
      expect(verdict.violations).toEqual([expect.objectContaining({ kind: 'path', path: 'docs/guide.md' })]);
      expect(verdict.commits).toMatchObject({ gateway: [mine], direct: [rogue] });
      expect(verdict.pushes.map((p) => p.actor)).toContain('github-actions[bot]');
      // the violation names the commit that made it and who pushed it, for the receipt's one line
      expect(verdict.violations[0]!.madeIn).toEqual([{ sha: rogue, pusher: 'github-actions[bot]' }]);
    });

    it('names the one new commit behind the violation when there is only one', async () => {
      // pushed with the job's own token (a push by another actor is theirs, listed and not judged)
      const rogue = await commitToBare(s.dir, BRANCH, { 'docs/guide.md': 'rewritten\n' }, 'rogue', {
        actor: 'github-actions[bot]',
      });
      const { verdict } = await verify(ledgerOf());
      expect(verdict.violations.map((v) => [v.path, v.madeIn])).toEqual([
        ['docs/guide.md', [{ sha: rogue, pusher: 'github-actions[bot]' }]],
      ]);
    });

    it('fails on the push itself under direct-pushes: deny, even inside the perimeter', async () => {
      await commitToBare(s.dir, BRANCH, { 'src/c.ts': 'c\n' });
      const check = await verify(ledgerOf(), { directPushes: 'check' });
      expect(check.verdict.state).toBe('success');
      const deny = await verify(ledgerOf(), { directPushes: 'deny' });
      expect(deny.verdict.state).toBe('failure');
      expect(deny.verdict.violations.map((v) => v.kind)).toEqual(['direct-push']);
    });
  });

  describe('when a commit made a change that a later one undid', () => {
    it('still fails on it: it stays in the history', async () => {
      const leak = await commitToBare(s.dir, BRANCH, { '.env': 'SECRET=1\n', 'src/ok.ts': 'ok' }, 'leak', {
        actor: 'github-actions[bot]',
      });
      const undo = await commitToBare(s.dir, BRANCH, { '.env': null }, 'undo', {
        actor: 'github-actions[bot]',
      });
      const { verdict } = await verify(ledgerOf());
      expect(verdict.state).toBe('failure');
      expect(verdict.files.map((f) => `${f.path} ${f.allowed} ${f.transient ?? false}`)).toEqual([
        'src/ok.ts true false',
        '.env false true',
      ]);
      expect(verdict.commits.direct).toEqual([undo, leak]);
      // the change a later commit undid is named by both commits that touched it, oldest first
      expect(verdict.violations.find((v) => v.path === '.env')?.madeIn?.map((m) => m.sha)).toEqual([
        leak,
        undo,
      ]);
    });

    it('is an error, not success, when there are more commits than it diffs one by one', async () => {
      await commitToBare(s.dir, BRANCH, { '.env': 'SECRET=1\n' });
      await commitToBare(s.dir, BRANCH, { '.env': null });
      const { verdict } = await verify(ledgerOf(), { maxCommitDiffs: 1 });
      expect(verdict.files).toEqual([]);
      expect(verdict.state).toBe('error');
      expect(verdict.unchecked.join()).toContain('only the net change was checked');
    });
  });

  describe('when a symlink, a submodule or an executable bit arrives', () => {
    it('fails on the symlink and the submodule; a mode change inside the perimeter is fine', async () => {
      await plumbCommit(s.dir, BRANCH, {
        'src/link': { mode: '120000', content: '/etc/passwd' },
        'src/vendor': { mode: '160000', sha: 'd'.repeat(40) },
        'src/a.ts': { mode: '100755', content: 'a\n' },
      });
      const { verdict } = await verify(null);
      expect(verdict.state).toBe('failure');
      expect(verdict.violations.map((v) => `${v.kind} ${v.path}`)).toEqual([
        'symlink src/link',
        'submodule src/vendor',
      ]);
      expect(verdict.files.find((f) => f.path === 'src/a.ts')).toMatchObject({
        kind: 'modified',
        oldMode: '100644',
        newMode: '100755',
        allowed: true,
      });
    });
  });

  describe('when the history was rewritten', () => {
    it('fails even when the new content is inside the perimeters', async () => {
      await gatewayCommit({ 'src/b.ts': 'b\n' });
      start = await snapshotRefs(up);
      const parentOfStart = s.seed;
      await plumbCommit(
        s.dir,
        BRANCH,
        { 'src/c.ts': { mode: '100644', content: 'c\n' } },
        { parent: parentOfStart },
      );
      const { verdict } = await verify(ledgerOf());
      expect(verdict.state).toBe('failure');
      expect(verdict.violations.map((v) => v.kind)).toEqual(['history']);
      expect(verdict.files.map((f) => `${f.kind} ${f.path}`)).toEqual(['deleted src/b.ts', 'added src/c.ts']);
    });
  });

  describe('when another ref was created, moved or deleted', () => {
    it('fails for each of them', async () => {
      await setRef(s.dir, 'refs/tags/v9', s.seed);
      await commitToBare(s.dir, 'main', { 'src/z.ts': 'z' });
      const { verdict } = await verify(ledgerOf());
      expect(verdict.state).toBe('failure');
      expect(verdict.violations.map((v) => `${v.kind} ${v.ref}`)).toEqual([
        'ref refs/heads/main',
        'ref refs/tags/v9',
      ]);
      expect(verdict.refChanges.map((c) => c.kind)).toEqual(['moved', 'created']);
    });

    it('fails when the bound branch is deleted', async () => {
      await setRef(s.dir, `refs/heads/${BRANCH}`, null);
      const { verdict } = await verify(ledgerOf());
      expect(verdict.violations.map((v) => v.kind)).toEqual(['branch-deleted']);
      expect(verdict.unchecked).toEqual([]);
    });
  });

  describe('when the bound branch was created during the job', () => {
    it('compares it with the default branch as it was at the start', async () => {
      await setRef(s.dir, `refs/heads/${BRANCH}`, null);
      startedAt = await windowOpens();
      start = await snapshotRefs(up);
      await setRef(s.dir, `refs/heads/${BRANCH}`, s.seed);
      const commit = await gatewayCommit({ 'src/new.ts': 'n\n' });
      const { verdict } = await verify(ledgerOf(commit));
      expect(verdict.state).toBe('success');
      expect(verdict.baseline?.sha).toBe(s.seed);
      expect(verdict.files.map((f) => f.path)).toEqual(['src/new.ts']);
      expect(verdict.commits.gateway).toEqual([commit]);
    });

    it('counts every file as added when it does not grow from the default branch', async () => {
      await setRef(s.dir, `refs/heads/${BRANCH}`, null);
      startedAt = await windowOpens();
      start = await snapshotRefs(up);
      await plumbCommit(s.dir, BRANCH, { 'src/only.ts': { mode: '100644', content: 'o' } }, { parent: null });
      const { verdict } = await verify(ledgerOf());
      expect(verdict.baseline?.sha).toBeNull();
      expect(verdict.files.map((f) => `${f.kind} ${f.path}`)).toEqual(['added src/only.ts']);
      expect(verdict.state).toBe('success');
    });
  });

  describe('when the ledger is forged (an agent with the ledger key claims commits it made)', () => {
    // What SECURITY.md states a forged ledger can change, and no more.
    it("passes a commit made through the API with the job token as the gateway's: direct-pushes: deny is moot", async () => {
      const forged = await gatewayCommit({ 'src/mine.ts': 'm\n' });
      const { verdict } = await verify(ledgerOf(forged), { directPushes: 'deny' });
      expect(verdict.state).toBe('success');
      expect(verdict.commits.gateway).toEqual([forged]);
    });

    it("cannot pass a commit made elsewhere and pushed with git as the gateway's", async () => {
      const pushed = await commitToBare(s.dir, BRANCH, { 'src/mine.ts': 'm\n' });
      const { verdict } = await verify(ledgerOf(pushed), { directPushes: 'deny' });
      expect(verdict.state).toBe('failure');
      expect(verdict.commits.direct).toEqual([pushed]);
    });

    it('cannot hide an out-of-scope file that a claimed commit added and a later one removed', async () => {
      const add = await gatewayCommit({ 'CLAUDE.md': 'obey\n' });
      const remove = await gatewayCommit({ 'CLAUDE.md': null, 'src/b.ts': 'b\n' });
      const { verdict } = await verify(ledgerOf(add, remove));
      expect(verdict.state).toBe('failure');
      expect(verdict.files.filter((f) => f.transient).map((f) => f.path)).toEqual(['CLAUDE.md']);
    });
  });

  describe('when something could not be checked', () => {
    it('is an error, not success, without a ledger or with a reported problem', async () => {
      await gatewayCommit({ 'src/b.ts': 'b\n' });
      expect((await verify(null)).verdict.state).toBe('error');
      expect((await verify(ledgerOf(), { problems: ['the gateway died'] })).verdict.unchecked).toContain(
        'the gateway died',
      );
    });

    it('is an error when GitHub fails during the diff', async () => {
      await gatewayCommit({ 'src/b.ts': 'b\n' });
      s.fake.injectFault({
        kind: 'status',
        status: 404,
        count: 20,
        route: /git\/trees|graphql/,
      });
      const { verdict } = await verify(ledgerOf());
      expect(verdict.state).toBe('error');
      expect(verdict.unchecked.join()).toMatch(/changed files/);
    });
  });

  describe('request economy', () => {
    it('diffs every new commit by its trees, the gateway commits too, in batched reads', async () => {
      const one = await gatewayCommit({ 'src/one/a.ts': '1' });
      const two = await gatewayCommit({ 'test/two/b.ts': '2' });
      const viaGateway = await verify(ledgerOf(one, two));
      const unknown = await verify(ledgerOf());
      expect(viaGateway.verdict.state).toBe('success');
      expect(unknown.verdict.commits.direct).toEqual([two, one]);
      // both commits' trees in the same batched reads either way, not a file list a commit
      expect(unknown.requests).toBe(viaGateway.requests);
    });

    it('verifies ten changes in one directory with a handful of requests', async () => {
      const files: Record<string, string> = {};
      for (let i = 0; i < 10; i++) files[`src/feature/f${i}.ts`] = `export const f${i} = ${i};\n`;
      const commit = await gatewayCommit(files);
      const { verdict, requests } = await verify(ledgerOf(commit));
      expect(verdict.state).toBe('success');
      expect(verdict.files).toHaveLength(10);
      // compare (ancestry, new commits, both commits' trees and the changed files), the base root, the
      // base's src/ recursively (the files rebuild the head tree: no head tree is read); the end marker
      // created and deleted, and the activity list
      expect(requests).toBe(6);
    });
  });
});
