/**
 * The pull-request gate as a runner runs it: dist/verify/index.js from verify/action.yml, on a
 * pull_request_target event (payload at GITHUB_EVENT_PATH), with no agent-job, against the stand-in holding a
 * real git repository where Copilot coding agent pushed commits to a copilot/ branch and opened a pull request.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { git, gitText } from '@perimeter/fake-github';
import {
  actionDir,
  ActionRunner,
  plumbCommit,
  setRef,
  startStandIn,
  TOKEN,
  type StandIn,
  type StepResult,
} from '@perimeter/test-rigs';
import { parse as parseYaml } from 'yaml';
import type { Upstream } from '../../src/github/upstream.js';
import { assignPullRequest, parseConfig } from '../../src/policy/index.js';
import { readmeWorkflow } from '../agents/readme-jobs.js';

/** docs/pull-request-gate.md's perimeters.yml for Copilot coding agent: the tests run the gate against it. */
const CONFIG = readmeWorkflow('pull-request-gate-perimeters', 'docs/pull-request-gate.md');
const FILES = {
  'perimeters.yml': CONFIG,
  'src/a.ts': 'export const a = 1;\n',
  'docs/guide.md': '# Guide\n',
  '.github/workflows/ci.yml': 'on: push\n',
};
const COPILOT = 'ghu_CopilotCodingAgent0123456789abcdefghij';
const ALICE = 'ghp_AlicePersonalToken0123456789abcdefghij';
const BRANCH = 'copilot/fix-issue-12';
const file = (content: string) => ({ mode: '100644' as const, content });

let dir = '';
beforeAll(async () => {
  dir = await actionDir();
}, 600_000);

describe('the pull-request gate (perimeter/verify on pull_request_target)', { timeout: 180_000 }, () => {
  let s: StandIn;
  let github: Upstream;
  let runner: ActionRunner | undefined;

  beforeEach(async () => {
    s = await startStandIn(FILES);
    s.fake.addToken(COPILOT, 'Copilot');
    s.fake.addToken(ALICE, 'alice');
    github = s.upstream();
  });
  afterEach(async () => {
    runner?.dispose();
    runner = undefined;
    await s.stop();
  });

  /** Copilot opens the pull request with its own token, as its cloud agent does. */
  async function open(head = BRANCH, base = 'main'): Promise<number> {
    const agent = s.upstream({ token: COPILOT });
    return (
      await agent.createPullRequest({ title: 'Fix #12', body: '', head, base, draft: true, labels: [] })
    ).number;
  }

  /** The gate's job: a fresh runner, the workflow's own token, the event payload and nothing else. */
  async function gate(
    number: number,
    eventName = 'pull_request_target',
    inputs: Record<string, string> = {},
    head?: string,
  ): Promise<StepResult> {
    runner = new ActionRunner({
      apiUrl: s.fake.url,
      serverUrl: 'https://github.example',
      repository: 'octo/demo',
      token: TOKEN,
      ref: 'refs/heads/main',
      eventName,
      event: {
        action: 'synchronize',
        number,
        pull_request: { number, ...(head ? { head: { sha: head } } : {}) },
      },
      actionDir: `${dir}/verify`,
      inputs,
      env: { GITHUB_RUN_ID: '4242', GITHUB_JOB: 'perimeter' },
    });
    return runner.runMain();
  }

  /** The statuses on `perimeter` (or another context) of a commit, oldest first. */
  async function statuses(sha: string, context = 'perimeter') {
    return (await github.listStatuses(sha)).filter((st) => st.context === context).reverse();
  }

  /**
   * A commit GitHub makes for the token's account through the API (no custom author or committer: signed by
   * web-flow, authored by that account), moved onto `branch` as a push would move it.
   */
  async function apiCommit(
    token: string,
    branch: string,
    files: Record<string, string>,
    parent?: string,
  ): Promise<string> {
    const as = s.upstream({ token });
    const base = parent ?? (await as.getBranchHead(branch));
    const tree = await as.createTree(
      (await as.getCommit(base)).tree,
      Object.entries(files).map(([path, content]) => ({ path, mode: '100644' as const, content })),
    );
    const sha = await as.createCommit(`edit ${Object.keys(files).join(', ')}`, tree, [base]);
    await setRef(s.dir, `refs/heads/${branch}`, sha, token === ALICE ? 'alice' : 'Copilot');
    return sha;
  }

  /** Alice, a person, opens a pull request from feature/x with her own token. */
  async function openAsAlice(): Promise<number> {
    const as = s.upstream({ token: ALICE });
    const draft = { title: 'x', body: '', head: 'feature/x', base: 'main', draft: false, labels: [] };
    return (await as.createPullRequest(draft)).number;
  }

  describe('when GitHub cannot serve the pull request it is about to judge', () => {
    it("posts pending on the event's head first, so an earlier success does not stand", async () => {
      const head = await plumbCommit(s.dir, BRANCH, { 'src/b.ts': file('b\n') }, { parent: s.seed });
      const number = await open();
      // an earlier run judged this head (for a broader perimeter, say)
      await github.createStatus(head, { state: 'success', context: 'perimeter', description: 'Earlier run' });
      s.fake.injectFault({ kind: 'status', status: 502, count: 1000, route: /\/pulls\/\d+$/ });
      const step = await gate(number, 'pull_request_target', {}, head);
      expect(step.exitCode).toBe(1);
      s.fake.clearFaults();
      expect((await statuses(head)).map((st) => st.state)).toEqual(['success', 'pending', 'error']);
      expect(step.stdout + step.stderr).not.toMatch(/\n\s+at /);
    });
  });

  describe('when every commit of a copilot/ pull request stays in scope', () => {
    it('posts success on the head commit, after a pending status', async () => {
      await plumbCommit(s.dir, BRANCH, { 'src/b.ts': file('export const b = 2;\n') }, { parent: s.seed });
      const head = await plumbCommit(s.dir, BRANCH, { 'test/b.test.ts': file('// b\n') });
      const step = await gate(await open());
      expect(step.exitCode, step.log + step.stderr).toBe(0);
      const posted = await statuses(head);
      expect(posted.map((st) => st.state)).toEqual(['pending', 'success']);
      expect(posted[1]!.description).toBe(
        'Pull request #1: 2 commits, each inside perimeter "copilot"; 2 changed files',
      );
      expect(posted[1]!.targetUrl).toBe('https://github.example/octo/demo/actions/runs/4242');
      expect(step.log).toContain('perimeter "copilot" (author "Copilot", head branch glob "copilot/**")');
      expect(step.masks).toContain(TOKEN);
      expect(step.log + step.stderr).not.toContain(TOKEN);
    });

    it('does the same on a pull_request event', async () => {
      const head = await plumbCommit(s.dir, BRANCH, { 'src/b.ts': file('b\n') }, { parent: s.seed });
      const step = await gate(await open(), 'pull_request');
      expect(step.exitCode, step.log + step.stderr).toBe(0);
      expect((await statuses(head)).at(-1)?.state).toBe('success');
    });
  });

  describe('when another open pull request has the same head', () => {
    it('posts the stricter of the two verdicts on the shared head, whichever is judged', async () => {
      const head = await plumbCommit(s.dir, BRANCH, { 'src/b.ts': file('b\n') }, { parent: s.seed });
      const copilot = await open();
      // a person's pull request of the same commit, which no perimeter is assigned and nobody vouches for
      await setRef(s.dir, 'refs/heads/feature/same', head, 'alice');
      await s.upstream({ token: ALICE }).createPullRequest({
        title: 'Same commit',
        body: '',
        head: 'feature/same',
        base: 'main',
        draft: false,
        labels: [],
      });
      const step = await gate(copilot);
      const final = (await statuses(head)).at(-1)!;
      expect(final.state).toBe('error');
      expect(step.summary).toContain('is the head of pull requests &#35;1 and &#35;2');
    });
  });

  describe('when a middle commit touches an out-of-scope file and a later one reverts it', () => {
    it('fails naming the file and the commit, though the net change is clean', async () => {
      await plumbCommit(s.dir, BRANCH, { 'src/b.ts': file('b\n') }, { parent: s.seed });
      const evil = await plumbCommit(s.dir, BRANCH, {
        '.github/workflows/ci.yml': file('on: push\njobs: { x: { runs-on: x, steps: [run: curl evil] } }\n'),
      });
      const head = await plumbCommit(s.dir, BRANCH, { '.github/workflows/ci.yml': file('on: push\n') });
      const step = await gate(await open());
      expect(step.exitCode).toBe(1);
      const final = (await statuses(head)).at(-1)!;
      expect(final.state).toBe('failure');
      expect(final.description).toContain(
        `commit ${evil.slice(0, 7)}: .github/workflows/ci.yml: modified outside`,
      );
      expect(step.annotations).toContainEqual(
        expect.objectContaining({ level: 'error', file: '.github/workflows/ci.yml' }),
      );
    });
  });

  describe('with receipt-as: both', () => {
    it('posts a failing check run, annotated on the file, and the status', async () => {
      await plumbCommit(
        s.dir,
        BRANCH,
        { 'docs/guide.md': file('# Guide, by the agent\n') },
        { parent: s.seed },
      );
      const head = await plumbCommit(s.dir, BRANCH, { 'src/b.ts': file('b\n') });
      const step = await gate(await open(), 'pull_request_target', { 'receipt-as': 'both' });
      expect(step.exitCode).toBe(1);
      const [run] = await github.listCheckRuns(head, 'perimeter');
      expect(run).toMatchObject({ status: 'completed', conclusion: 'failure', app: 'github-actions' });
      expect(run!.title).toContain('docs/guide.md');
      expect((await statuses(head)).at(-1)?.state).toBe('failure');
    });
  });

  describe('when the pull request rewrites perimeters.yml to widen its own perimeter', () => {
    it("judges by the default branch's file, never the head's", async () => {
      const wide = CONFIG.replace(
        'write: ["src/**", "test/**"]',
        'write: ["**"]\n    allow-protected: ["**"]',
      );
      await plumbCommit(s.dir, BRANCH, { 'perimeters.yml': file(wide) }, { parent: s.seed });
      const head = await plumbCommit(s.dir, BRANCH, { 'docs/guide.md': file('# Guide, by the agent\n') });
      const step = await gate(await open());
      expect(step.exitCode).toBe(1);
      expect((await statuses(head)).at(-1)?.state).toBe('failure');
      expect(step.summary).toContain('docs/guide.md');
      expect(step.summary).toContain('perimeters.yml');
    });
  });

  describe("when the pull request's perimeter may also be bound to the default branch", () => {
    it('is an error: the file that judges it is one its own agents may write', async () => {
      const bindable = CONFIG.replace(
        'write: ["src/**", "test/**"]',
        'write: ["src/**", "test/**"]\n    branches: ["copilot/**", "main"]',
      );
      expect(bindable).not.toBe(CONFIG);
      await plumbCommit(s.dir, 'main', { 'perimeters.yml': file(bindable) });
      const head = await plumbCommit(s.dir, BRANCH, { 'src/b.ts': file('b\n') }, { parent: s.seed });
      const step = await gate(await open());
      expect(step.exitCode).toBe(1);
      const final = (await statuses(head)).at(-1)!;
      expect(final.state).toBe('error');
      expect(final.description).toContain(
        'perimeters.yml on the default branch cannot judge pull request #1',
      );
      expect(step.summary).toContain('its branches list lets perimeter "copilot" be bound to it');
      expect(step.stdout + step.stderr).not.toMatch(/\n\s+at /);
    });
  });

  describe('when Copilot merges main into its branch ("Update branch")', () => {
    it("does not blame the agent for main's changes", async () => {
      const first = await plumbCommit(s.dir, BRANCH, { 'src/b.ts': file('b\n') }, { parent: s.seed });
      const docs = { 'docs/guide.md': file('# Guide, edited on main\n') };
      const onMain = await plumbCommit(s.dir, 'main', docs);
      const head = await plumbCommit(s.dir, BRANCH, docs, { parent: first, mergeWith: [onMain] });
      const step = await gate(await open());
      expect(step.exitCode, step.log + step.stderr).toBe(0);
      expect((await statuses(head)).at(-1)?.state).toBe('success');
    });
  });

  describe("when a person's pull request has an agent's commits merged in", () => {
    it("judges the agent's commits by the agent's perimeter and lists the person's, unjudged", async () => {
      await apiCommit(ALICE, 'feature/x', { 'docs/guide.md': '# Guide, by alice\n' }, s.seed);
      await apiCommit(COPILOT, 'feature/x', { 'src/b.ts': 'b\n' });
      const head = await apiCommit(ALICE, 'feature/x', { 'docs/more.md': 'more\n' });
      const step = await gate(await openAsAlice());
      expect(step.exitCode, step.log + step.stderr).toBe(0);
      const final = (await statuses(head)).at(-1)!;
      expect(final.state).toBe('success');
      expect(final.description).toBe(
        'Pull request #1: 3 commits, 1 inside perimeter "copilot", 2 a person\'s own (not judged); 3 changed files',
      );
      expect(step.log).toContain('perimeter "copilot", made by "Copilot" (made by GitHub for it (web-flow))');
      expect(step.log).toContain("alice's own, not judged");
    });

    it('fails naming the agent commit that went outside its perimeter', async () => {
      await apiCommit(ALICE, 'feature/x', { 'docs/guide.md': '# Guide, by alice\n' }, s.seed);
      const agent = await apiCommit(COPILOT, 'feature/x', { 'docs/notes.md': 'not mine to write\n' });
      const head = await apiCommit(ALICE, 'feature/x', { 'src/c.ts': 'c\n' });
      const step = await gate(await openAsAlice());
      expect(step.exitCode).toBe(1);
      const final = (await statuses(head)).at(-1)!;
      expect(final.state).toBe('failure');
      expect(final.description).toContain(
        `1 violation: commit ${agent.slice(0, 7)}: docs/notes.md: added outside`,
      );
      expect(step.summary).not.toContain('docs/guide.md: modified outside');
    });
  });

  describe('when a commit names web-flow as committer and a person as author, but GitHub did not make it', () => {
    /** A signed commit GitHub made for alice, its header rewritten with git onto other content. */
    async function forgeAsAlice(parent: string, files: Record<string, string>): Promise<string> {
      const genuine = await apiCommit(ALICE, 'scratch', { 'notes.md': 'alice\n' }, s.seed);
      const raw = await gitText(s.dir, ['cat-file', 'commit', genuine]);
      const plumbed = await plumbCommit(
        s.dir,
        'scratch',
        Object.fromEntries(Object.entries(files).map(([path, content]) => [path, file(content)])),
        { parent },
      );
      const tree = (await gitText(s.dir, ['rev-parse', `${plumbed}^{tree}`])).trim();
      const forged = raw
        .replace(/^tree [0-9a-f]+$/m, `tree ${tree}`)
        .replace(/^parent [0-9a-f]+$/m, `parent ${parent}`);
      expect(forged).toMatch(/^committer GitHub <noreply@github\.com>/m);
      expect(forged).toContain('gpgsig ');
      return (
        await gitText(s.dir, ['hash-object', '-t', 'commit', '-w', '--stdin'], { input: forged })
      ).trim();
    }

    it("is not passed as the person's: in Copilot's pull request its perimeter judges it", async () => {
      const first = await plumbCommit(s.dir, BRANCH, { 'src/b.ts': file('b\n') }, { parent: s.seed });
      const forged = await forgeAsAlice(first, { 'docs/guide.md': '# rewritten, "by alice"\n' });
      await setRef(s.dir, `refs/heads/${BRANCH}`, forged, 'Copilot');
      const [listed] = (await github.listPullRequestCommits(await open())).filter((c) => c.sha === forged);
      expect(listed?.github).toMatchObject({
        author: { login: 'alice' },
        committer: { login: 'web-flow' },
        verified: false,
        reason: 'invalid',
      });
      const step = await gate(1);
      expect(step.exitCode).toBe(1);
      const final = (await statuses(forged)).at(-1)!;
      expect(final.state).toBe('failure');
      expect(final.description).toContain(`commit ${forged.slice(0, 7)}: docs/guide.md: modified outside`);
    });

    it("is an error in a person's pull request, where no perimeter is assigned", async () => {
      const first = await apiCommit(ALICE, 'feature/x', { 'docs/guide.md': '# by alice\n' }, s.seed);
      const forged = await forgeAsAlice(first, { '.github/workflows/ci.yml': 'on: push\n# changed\n' });
      await setRef(s.dir, 'refs/heads/feature/x', forged, 'alice');
      const step = await gate(await openAsAlice());
      expect(step.exitCode).toBe(1);
      const final = (await statuses(forged)).at(-1)!;
      expect(final.state).toBe('error');
      expect(final.description).toContain(
        `commit ${forged.slice(0, 7)} cannot be attributed: GitHub does not verify its signature (invalid)`,
      );
    });
  });

  describe('when no perimeter is assigned to the author and head branch', () => {
    it("says so for each commit GitHub vouches for nobody's, and does not pass", async () => {
      const head = await plumbCommit(s.dir, 'feature/x', { 'src/b.ts': file('b\n') }, { parent: s.seed });
      const human = s.upstream();
      const { number } = await human.createPullRequest({
        title: 'x',
        body: '',
        head: 'feature/x',
        base: 'main',
        draft: false,
        labels: [],
      });
      const step = await gate(number);
      expect(step.exitCode).toBe(1);
      const final = (await statuses(head)).at(-1)!;
      expect(final.state).toBe('error');
      expect(final.description).toContain(
        `Not fully checked: commit ${head.slice(0, 7)} cannot be attributed: GitHub does not verify its signature (unsigned)`,
      );
      expect(step.log).toContain(
        'no perimeter is assigned to pull requests by "github-actions[bot]" from "feature/x"',
      );
      expect(step.summary).toContain('cannot be attributed');
      expect(step.stdout + step.stderr).not.toMatch(/\n\s+at /);
    });
  });

  describe('when the pull request has more than 250 commits', () => {
    it('is an error, never a success: GitHub lists only 250 of them', async () => {
      // 251 in-scope commits, made with plumbing in one go
      const tree = (await gitText(s.dir, ['rev-parse', `${s.seed}^{tree}`])).trim();
      const blob = (await gitText(s.dir, ['hash-object', '-w', '--stdin'], { input: 'b\n' })).trim();
      let parent = s.seed;
      const env = {
        GIT_INDEX_FILE: `${s.dir}/index-many`,
        GIT_AUTHOR_NAME: 'Copilot',
        GIT_AUTHOR_EMAIL: 'c@x',
        GIT_COMMITTER_NAME: 'Copilot',
        GIT_COMMITTER_EMAIL: 'c@x',
      };
      await git(s.dir, ['read-tree', tree], { env });
      for (let i = 0; i < 251; i++) {
        await git(s.dir, ['update-index', '--add', '--cacheinfo', `100644,${blob},src/n${i}.ts`], { env });
        const next = (await gitText(s.dir, ['write-tree'], { env })).trim();
        parent = (
          await gitText(s.dir, ['commit-tree', next, '-p', parent, '-m', `step ${i}`], { env })
        ).trim();
      }
      await setRef(s.dir, `refs/heads/${BRANCH}`, parent, 'Copilot');
      const number = await open();
      expect((await github.getPullRequest(number)).commits).toBe(251);
      expect(await github.listPullRequestCommits(number)).toHaveLength(250);

      const step = await gate(number);
      expect(step.exitCode).toBe(1);
      const final = (await statuses(parent)).at(-1)!;
      expect(final.state).toBe('error');
      expect(final.description).toContain('the pull request has 251 commits, and GitHub lists at most 250');
    });
  });

  describe("when Copilot's child pull request is into another agent's branch", () => {
    it("is judged against that base, under a context of its own that main's required check never counts", async () => {
      const base = await plumbCommit(
        s.dir,
        'copilot/base',
        { 'docs/guide.md': file("# out of scope, but the parent pull request's\n") },
        { parent: s.seed },
      );
      const head = await plumbCommit(s.dir, BRANCH, { 'src/b.ts': file('b\n') }, { parent: base });
      const step = await gate(await open(BRANCH, 'copilot/base'));
      expect(step.exitCode, step.log + step.stderr).toBe(0);
      const final = (await statuses(head, 'perimeter (into copilot/base)')).at(-1)!;
      expect(final.state).toBe('success');
      expect(final.description).toBe(
        'Pull request #1: 1 commit, each inside perimeter "copilot"; 1 changed file',
      );
      // a success against copilot/base must not stand for a pull request into main
      expect((await statuses(head)).map((st) => st.state)).toEqual(['pending']);
    });

    it('fails a commit outside the perimeter', async () => {
      const base = await plumbCommit(s.dir, 'copilot/base', { 'src/x.ts': file('x\n') }, { parent: s.seed });
      const bad = await plumbCommit(s.dir, BRANCH, { 'docs/guide.md': file('# no\n') }, { parent: base });
      const step = await gate(await open(BRANCH, 'copilot/base'));
      expect(step.exitCode).toBe(1);
      const final = (await statuses(bad, 'perimeter (into copilot/base)')).at(-1)!;
      expect(final.state).toBe('failure');
      expect(final.description).toContain(`commit ${bad.slice(0, 7)}: docs/guide.md: modified outside`);
    });
  });

  describe('when neither agent-job nor a pull request event is given', () => {
    it('says what perimeter/verify needs, without a stack trace', async () => {
      runner = new ActionRunner({
        apiUrl: s.fake.url,
        repository: 'octo/demo',
        token: TOKEN,
        eventName: 'push',
        actionDir: `${dir}/verify`,
      });
      const step = await runner.runMain();
      expect(step.exitCode).toBe(1);
      expect(step.annotations.map((a) => a.message)).toContainEqual(
        expect.stringContaining('agent-job: required'),
      );
      expect(step.stdout + step.stderr).not.toMatch(/\n\s+at /);
    });
  });
});

describe("docs/pull-request-gate.md's gate for Copilot coding agent", () => {
  it('runs the verify sub-action on pull_request_target, without agent-job, with exactly the permissions it needs', () => {
    const workflow = parseYaml(readmeWorkflow('pull-request-gate', 'docs/pull-request-gate.md')) as {
      on: Record<string, unknown>;
      permissions: Record<string, string>;
      jobs: Record<string, { permissions: Record<string, string>; steps: unknown[] }>;
    };
    expect(Object.keys(workflow.on)).toEqual(['pull_request_target']);
    expect(workflow.permissions).toEqual({});
    const [job] = Object.values(workflow.jobs);
    expect(job!.permissions).toEqual({ contents: 'read', statuses: 'write', 'pull-requests': 'read' });
    expect(job!.steps).toEqual([{ uses: 'OWNER/perimeter/verify@v1' }]);
  });

  it("assigns Copilot's copilot/ pull requests to its perimeter, and nobody else's", () => {
    const specs = parseConfig(CONFIG).perimeters;
    expect(assignPullRequest(specs, { author: 'Copilot', headBranch: 'copilot/fix-12' })).toMatchObject({
      kind: 'assigned',
      spec: { name: 'copilot' },
    });
    expect(assignPullRequest(specs, { author: 'mallory', headBranch: 'copilot/fix-12' }).kind).toBe('none');
  });
});
