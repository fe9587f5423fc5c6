import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { snapshotRefs, verifyJob, type LedgerFacts, type RefSnapshot } from '../../src/verify/index.js';
import { commitToBare, git, gitText } from '@perimeter/fake-github';
import { compiledPerimeter, setRef, startStandIn, windowOpens, type StandIn } from '@perimeter/test-rigs';

/** Pushes no honest client makes but a git tree can hold: what verifyJob must never pass. */

const BRANCH = 'agent/x';
const REF = `refs/heads/${BRANCH}`;

let s: StandIn;
let start: RefSnapshot;
let startedAt: string;

beforeEach(async () => {
  s = await startStandIn({ 'README.md': 'r\n', 'src/a.ts': 'a\n' });
  await setRef(s.dir, REF, s.seed, 'github-actions[bot]');
  startedAt = await windowOpens();
  start = await snapshotRefs(s.upstream());
});
afterEach(() => s.stop());

const blob = async (text: string) =>
  (await gitText(s.dir, ['hash-object', '-w', '--stdin'], { input: text })).trim();

/** A tree written byte for byte, entries in the given order: names git's own tools would refuse. */
async function rawTree(entries: Array<{ mode: string; name: string; sha: string }>): Promise<string> {
  const parts = entries.map(({ mode, name, sha }) =>
    Buffer.concat([Buffer.from(`${mode} ${name}\0`, 'utf8'), Buffer.from(sha, 'hex')]),
  );
  const out = await git(s.dir, ['hash-object', '-t', 'tree', '--literally', '-w', '--stdin'], {
    input: Buffer.concat(parts),
  });
  return out.toString('utf8').trim();
}

async function commit(tree: string, parents: string[], date = '1700000000 +0000'): Promise<string> {
  const env = {
    GIT_AUTHOR_NAME: 'M',
    GIT_AUTHOR_EMAIL: 'm@example.com',
    GIT_AUTHOR_DATE: date,
    GIT_COMMITTER_NAME: 'M',
    GIT_COMMITTER_EMAIL: 'm@example.com',
    GIT_COMMITTER_DATE: date,
  };
  const args = ['commit-tree', tree, '-m', 'crafted', ...parents.flatMap((p) => ['-p', p])];
  return (await gitText(s.dir, args, { env })).trim();
}

const treeOf = async (sha: string) => (await gitText(s.dir, ['rev-parse', `${sha}^{tree}`])).trim();

/** The seed's root with `src` replaced by a tree holding src/a.ts plus `extra`. */
async function rootWithSrc(extra: Array<{ mode: string; name: string; sha: string }>): Promise<string> {
  const a = await blob('a\n');
  const src = await rawTree([{ mode: '100644', name: 'a.ts', sha: a }, ...extra]);
  return rawTree([
    { mode: '100644', name: 'README.md', sha: await blob('r\n') },
    { mode: '40000', name: 'src', sha: src },
  ]);
}

async function verify(
  write: string[],
  ledger: LedgerFacts | null = { ok: true, commits: [], perPerimeter: {} },
) {
  const upstream = s.upstream();
  return verifyJob({
    upstream,
    branch: BRANCH,
    start,
    end: await snapshotRefs(upstream),
    perimeters: [compiledPerimeter({ name: 'writer', read: ['**'], write })],
    ledger,
    directPushes: 'check',
    startedAt,
  });
}

describe('verifyJob against crafted pushes', () => {
  describe('when a tree holds names that fail path validation', () => {
    it.each([
      ['.GIT', 'a .git directory in another case'],
      ['.gıt', 'a .git directory in a Unicode variant'],
      ['x\\y.ts', 'a backslash'],
      ['x\u0001.ts', 'a control character'],
      ['x\n.ts', 'a newline'],
      ['..', 'a ".." segment'],
    ])('fails on a name with %j (%s), even where every path is writable', async (name) => {
      const evil = await blob('#!/bin/sh\n');
      const inner = await rawTree([{ mode: '100644', name: 'hook', sha: evil }]);
      const root = await rootWithSrc([
        name === '..' ? { mode: '100644', name, sha: evil } : { mode: '40000', name, sha: inner },
      ]);
      await setRef(s.dir, REF, await commit(root, [s.seed]));
      const verdict = await verify(['**']);
      expect(verdict.state).toBe('failure');
      expect(verdict.violations).toEqual([expect.objectContaining({ kind: 'path' })]);
      expect(verdict.violations[0]!.message).toMatch(/invalid/);
    });

    it('fails on an entry whose name holds a slash, though the joined path would be writable', async () => {
      const evil = await blob('x\n');
      const root = await rawTree([
        { mode: '100644', name: 'README.md', sha: await blob('r\n') },
        { mode: '40000', name: 'src', sha: (await gitText(s.dir, ['rev-parse', `${s.seed}:src`])).trim() },
        { mode: '100644', name: 'src/b.ts', sha: evil },
      ]);
      await setRef(s.dir, REF, await commit(root, [s.seed]));
      const verdict = await verify(['src/**']);
      expect(verdict.state).toBe('failure');
      expect(verdict.violations.map((v) => v.kind)).toEqual(['path']);
    });

    it('fails on a tree with two entries of one name, whichever of them a checkout would use', async () => {
      const a = await blob('a\n');
      const evil = await blob('evil\n');
      const src = await rawTree([
        { mode: '120000', name: 'a.ts', sha: evil },
        { mode: '100644', name: 'a.ts', sha: a },
      ]);
      const root = await rawTree([
        { mode: '100644', name: 'README.md', sha: await blob('r\n') },
        { mode: '40000', name: 'src', sha: src },
      ]);
      await setRef(s.dir, REF, await commit(root, [s.seed]));
      const verdict = await verify(['src/**']);
      expect(verdict.state).toBe('failure');
      expect(verdict.violations.map((v) => v.path)).toContain('src/a.ts');
    });
  });

  describe('when a protected directory arrives in another case', () => {
    it('fails on .GitHub/workflows even where every path is writable', async () => {
      await commitToBare(s.dir, BRANCH, { '.GitHub/workflows/x.yml': 'on: push\n' });
      const verdict = await verify(['**']);
      expect(verdict.state).toBe('failure');
      expect(verdict.violations[0]!.message).toMatch(/protected: \.github\/\*\*/);
    });
  });
  describe('when more commits came around the gateway than are diffed one by one', () => {
    it('is not success: what was not diffed is unchecked', async () => {
      for (let i = 0; i < 3; i++) await commitToBare(s.dir, BRANCH, { [`src/f${i}.ts`]: `${i}\n` });
      const upstream = s.upstream();
      const verdict = await verifyJob({
        upstream,
        branch: BRANCH,
        start,
        end: await snapshotRefs(upstream),
        perimeters: [compiledPerimeter({ name: 'writer', read: ['**'], write: ['src/**'] })],
        ledger: { ok: true, commits: [], perPerimeter: {} },
        directPushes: 'check',
        startedAt,
        maxCommitDiffs: 2,
      });
      expect(verdict.state).toBe('error');
      expect(verdict.unchecked.join()).toMatch(/3 commits/);
    });
  });
  describe('when a merge brings in side commits dated before the start', () => {
    it('still diffs the side commits: a file added and removed there fails', async () => {
      const base = await treeOf(s.seed);
      const leak = await commit(
        await rootWithSrc([{ mode: '100644', name: 'env', sha: await blob('S=1\n') }]),
        [s.seed],
        '100000000 +0000',
      );
      const undo = await commit(base, [leak], '100000001 +0000');
      const main = await commit(
        await rootWithSrc([{ mode: '100644', name: 'ok.ts', sha: await blob('ok\n') }]),
        [s.seed],
        '1800000000 +0000',
      );
      const merge = await commit(await treeOf(main), [main, undo], '1800000001 +0000');
      await setRef(s.dir, REF, merge);
      const verdict = await verify(['src/ok.ts']);
      expect(verdict.state).toBe('failure');
      expect(verdict.files.filter((f) => f.transient).map((f) => f.path)).toEqual(['src/env']);
    });
  });
  describe('when the branch was force-pushed away and back to a descendant of the start', () => {
    it('fails on the history rewrite the Activity API shows', async () => {
      const away = await commit(
        await rootWithSrc([{ mode: '100644', name: 'env', sha: await blob('S=1\n') }]),
        [],
      );
      await setRef(s.dir, REF, away);
      const back = await commit(
        await rootWithSrc([{ mode: '100644', name: 'ok.ts', sha: await blob('ok\n') }]),
        [s.seed],
      );
      await setRef(s.dir, REF, back);
      const verdict = await verify(['src/**']);
      expect(verdict.state).toBe('failure');
      expect(verdict.violations.map((v) => v.kind)).toEqual(['history']);
    });
    it('fails on it where the start head was passed through again', async () => {
      const away = await commit(await treeOf(s.seed), []);
      await setRef(s.dir, REF, away);
      await setRef(s.dir, REF, s.seed);
      await commitToBare(s.dir, BRANCH, { 'src/ok.ts': 'ok\n' });
      const verdict = await verify(['src/**']);
      expect(verdict.state).toBe('failure');
      expect(verdict.violations.map((v) => v.kind)).toEqual(['history']);
    });
  });
  describe('when the bound branch or another ref moved and came back to where it started', () => {
    it('fails on the branch from the activity list, and says that a transient tag leaves no record', async () => {
      const away = await commit(await treeOf(s.seed), []);
      await setRef(s.dir, REF, away);
      await setRef(s.dir, REF, s.seed);
      await setRef(s.dir, 'refs/heads/main', away);
      await setRef(s.dir, 'refs/heads/main', s.seed);
      await setRef(s.dir, 'refs/tags/tmp', s.seed);
      await setRef(s.dir, 'refs/tags/tmp', null);
      const verdict = await verify(['src/**']);
      expect(verdict.state).toBe('failure');
      expect(verdict.violations.map((v) => `${v.kind} ${v.ref}`)).toEqual([
        `history ${REF}`,
        'ref refs/heads/main',
      ]);
      expect(verdict.notes.join()).toMatch(/GitHub records moves of branches only/);
    });
  });
});
