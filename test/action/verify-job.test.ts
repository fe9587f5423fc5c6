/**
 * The two-job setup end to end, as runners run it: the agent job (main, the agent, post) on one runner, then
 * dist/verify/index.js from verify/action.yml on a fresh runner with its own token and its own inputs.
 * The agent is root on its runner: it may rewrite the action's files there and post statuses with the token.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { actionDir, FILES, REPOSITORY, TwoJobs, type JobOptions } from '@perimeter/test-rigs';
import { parseReceiptJson, RECORD_FILES } from '../../src/verify/index.js';
import { auditRecord, downloadRecord } from './support/record-download.js';

let dir = '';
const open: TwoJobs[] = [];
beforeAll(async () => {
  dir = await actionDir();
}, 600_000);
afterEach(async () => {
  for (const jobs of open.splice(0)) await jobs.close();
});

async function twoJobs(options: Partial<JobOptions> = {}): Promise<TwoJobs> {
  const jobs = await TwoJobs.create({ files: FILES, actionDir: dir, ...options });
  open.push(jobs);
  const main = await jobs.startAgentJob();
  expect(main.exitCode, main.log + main.stderr).toBe(0);
  return jobs;
}

/** A post step rewritten by the agent: it posts `success` on the receipt's context with the job's token. */
const FORGING_POST = `
const api = process.env.GITHUB_API_URL, repo = process.env.GITHUB_REPOSITORY;
const token = process.env['INPUT_GITHUB-TOKEN'];
const headers = { authorization: 'Bearer ' + token, 'content-type': 'application/json' };
const ref = await (await fetch(api + '/repos/' + repo + '/git/ref/heads/agent/work', { headers })).json();
const posted = await fetch(api + '/repos/' + repo + '/statuses/' + ref.object.sha, {
  method: 'POST', headers,
  body: JSON.stringify({ state: 'success', context: 'perimeter', description: 'All changes inside the perimeters' }),
});
console.log('forged: ' + posted.status);
`;

/** The summary's text with its character references read back (it escapes what a path could inject). */
const plain = (markdown: string): string =>
  markdown.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));

/** The newest status on the receipt's context, as a reviewer sees it on the pull request. */
async function receipt(jobs: TwoJobs) {
  const head = await jobs.agent.head();
  const response = await fetch(`${jobs.agent.gh.url}/repos/${REPOSITORY}/commits/${head}/statuses`, {
    headers: { authorization: `Bearer ${jobs.verifyToken}` },
  });
  const statuses = (await response.json()) as Array<{ state: string; context: string; description: string }>;
  return statuses.find((s) => s.context === 'perimeter');
}

describe('the verify job', { timeout: 180_000 }, () => {
  describe('when the agent rewrites dist/post to post success and pushes out of scope', () => {
    it('posts failure last, naming the file and the forged success', async () => {
      const jobs = await twoJobs();
      jobs.tamper('dist/post/index.js', FORGING_POST);
      await jobs.agent.push({ 'docs/roadmap.md': '# Roadmap\n\nRewritten by an agent.\n' });
      const post = await jobs.endAgentJob();
      expect(post?.log).toContain('forged: 201');
      expect((await receipt(jobs))?.state).toBe('success');

      const verify = await jobs.verify();
      expect(verify.exitCode, verify.log + verify.stderr).toBe(1);
      const final = await receipt(jobs);
      expect(final?.state).toBe('failure');
      expect(final?.description).toContain('2 violations');
      expect(verify.summary).toContain('docs/roadmap.md');
      expect(plain(verify.summary)).toMatch(
        /forged receipt: a "success" status on "perimeter" of [0-9a-f]{7} \(id \d+, by github-actions\[bot\]/,
      );
      expect(verify.annotations).toContainEqual(
        expect.objectContaining({ level: 'error', file: 'docs/roadmap.md' }),
      );
      expect(verify.annotations.map((a) => a.message).join('\n')).toContain('forged receipt');
      expect(verify.masks).toContain(jobs.verifyToken);
      expect(verify.log + verify.stderr).not.toContain(jobs.verifyToken);

      // its own record: the JSON receipt, with the forged status among the violations
      const { files } = await downloadRecord(jobs.agent.gh, jobs.verifyToken, 'perimeter-verify-1');
      const record = parseReceiptJson(files.get(RECORD_FILES.receipt)!.toString('utf8'));
      expect(record.state).toBe('failure');
      expect(record.violations.map((v) => v.kind).sort()).toEqual(['forged-receipt', 'path']);
      expect(record.violations.find((v) => v.kind === 'path')?.path).toBe('docs/roadmap.md');
      expect((await auditRecord(jobs.agent.gh, jobs.verifyToken, files)).code).toBe(0);

      // a record rewritten to hide the forged status: the audit looks at the statuses itself
      const hidden = { ...record, violations: record.violations.filter((v) => v.kind !== 'forged-receipt') };
      files.set(RECORD_FILES.receipt, Buffer.from(JSON.stringify(hidden)));
      const audited = await auditRecord(jobs.agent.gh, jobs.verifyToken, files);
      expect(audited.code).toBe(3);
      expect(audited.stdout).toMatch(/not in the receipt: forged receipt: a "success" status on "perimeter"/);
    });
  });

  describe('when the agent job has only contents: write, as README gives it', () => {
    it('runs without statuses or checks, its token can post no receipt, and the verify job posts success', async () => {
      const jobs = await twoJobs({ statuses: 'none', checks: 'none' });
      const head = await jobs.agent.push({ 'src/count.ts': 'export const count = () => 1;\n' });
      expect(await postStatus(jobs, head, 'success', jobs.agent.token)).toBe(403);
      const post = await jobs.endAgentJob();
      expect(post?.exitCode, post?.log).toBe(0);
      const verify = await jobs.verify();
      expect(verify.exitCode, verify.log + verify.summary).toBe(0);
      expect(await receipt(jobs)).toMatchObject({ state: 'success' });
    });
  });

  describe('when the agent job works inside its perimeter', () => {
    it('posts success, and the agent job posted no status of its own', async () => {
      const jobs = await twoJobs();
      const agent = await jobs.agent.agent('implementer');
      const pushed = await agent.callTool({
        name: 'push_files',
        arguments: {
          message: 'Count widgets',
          files: [{ path: 'src/count.ts', content: 'export const count = (xs: string[]) => xs.length;\n' }],
        },
      });
      expect(pushed.isError).toBeFalsy();
      jobs.agent.gh.resetStats();
      const post = await jobs.endAgentJob();
      // post hands over: the verify job verifies, so post asks GitHub nothing (the record goes to the
      // artifact service, which is not the API's budget)
      const handOver = jobs.agent.gh.stats();
      expect(handOver.total, JSON.stringify(handOver.byRoute)).toBe(0);
      expect(handOver.graphqlPoints).toBe(0);
      expect(post?.exitCode, post?.log).toBe(0);
      expect(await receipt(jobs)).toBeUndefined();
      expect(post?.summary).toContain('handed over to the verify job');
      expect(post?.summary).toMatch(/\| implementer \| 1 \| 0 \|/);
      expect(post?.summary).toContain('Commits the gateway made: 1.');
      const name = /Record: workflow artifact (\S+) /.exec(post?.summary ?? '')?.[1] ?? '';
      const handed = await downloadRecord(jobs.agent.gh, jobs.verifyToken, name);
      expect([...handed.files.keys()].sort()).toEqual([RECORD_FILES.handover, RECORD_FILES.ledger]);
      expect(JSON.parse(handed.files.get(RECORD_FILES.handover)!.toString('utf8'))).toMatchObject({
        schema: 'perimeter-handover',
        branch: 'agent/work',
        perimeters: ['implementer', 'test-author'],
        problems: [],
        ledger: { included: true, ok: true, commits: [await jobs.agent.head()] },
      });
      const auditedHandOver = await auditRecord(jobs.agent.gh, jobs.verifyToken, handed.files);
      expect(auditedHandOver.code).toBe(1);
      expect(auditedHandOver.stderr).toContain("the agent job's hand-over to the verify job");

      const verify = await jobs.verify();
      expect(verify.exitCode, verify.log + verify.summary).toBe(0);
      expect(await receipt(jobs)).toMatchObject({ state: 'success' });
      expect(verify.summary).toContain('src/count.ts');
      // it reads no ledger: the commit the gateway made is counted, never as "0 via the gateway"
      expect(plain(verify.summary)).not.toContain('via the gateway');
      expect(plain(verify.summary)).toContain('1 new commit, each judged by its tree');

      // the verify job uploads a record of its own: its receipt only, for no ledger is evidence there
      expect(verify.summary).toMatch(
        /Record: workflow artifact perimeter-verify-1 \(id \d+\) with receipt\.json;/,
      );
      const { files } = await downloadRecord(jobs.agent.gh, jobs.verifyToken, 'perimeter-verify-1');
      expect([...files.keys()]).toEqual([RECORD_FILES.receipt]);
      const record = parseReceiptJson(files.get(RECORD_FILES.receipt)!.toString('utf8'));
      expect(record).toMatchObject({
        state: 'success',
        repository: REPOSITORY,
        branch: 'agent/work',
        run: { id: '4242', job: 'verify' },
        config: { file: 'perimeters.yml', ref: 'main' },
        heads: { end: await jobs.agent.head() },
        files: [{ path: 'src/count.ts', allowed: true, perimeter: 'implementer' }],
        ledger: { included: false, records: 0, head: null },
      });
      const audited = await auditRecord(jobs.agent.gh, jobs.verifyToken, files);
      expect(audited.code, audited.stdout + audited.stderr).toBe(0);
    });
  });

  describe('when the gateway dies during the job', () => {
    it("post's hand-over fails the agent job's step, and the receipt stays the verify job's", async () => {
      const jobs = await twoJobs();
      process.kill(jobs.agent.gatewayPid(), 'SIGKILL');
      const post = await jobs.endAgentJob();
      expect(post?.exitCode).toBe(1);
      expect(post?.log).toContain('the gateway was not running when the job ended');
      expect(post?.summary).toContain('**Problem:** the gateway was not running');
      expect(await receipt(jobs)).toBeUndefined();
      const verify = await jobs.verify();
      expect(verify.exitCode, verify.log).toBe(0);
      expect(await receipt(jobs)).toMatchObject({ state: 'success' });
    });
  });

  describe('when the agent posts its own receipt during the job', () => {
    it('names the forged success even when every file is inside the perimeters', async () => {
      const jobs = await twoJobs();
      jobs.tamper('dist/post/index.js', FORGING_POST);
      await jobs.agent.push({ 'src/count.ts': 'export const count = () => 1;\n' });
      await jobs.endAgentJob();
      const verify = await jobs.verify();
      expect(verify.exitCode).toBe(1);
      const final = await receipt(jobs);
      expect(final?.state).toBe('failure');
      expect(final?.description).toMatch(/^1 violation: forged receipt: a "success" status on "perimeter"/);
    });

    it('names a forged success on a commit that is no longer the head', async () => {
      const jobs = await twoJobs();
      const first = await jobs.agent.push({ 'src/count.ts': 'export const count = () => 1;\n' });
      await postStatus(jobs, first, 'success', jobs.agent.token);
      await jobs.agent.push({ 'src/count.ts': 'export const count = () => 2;\n' });
      await jobs.endAgentJob();
      const verify = await jobs.verify();
      expect(verify.exitCode).toBe(1);
      expect(plain(verify.summary)).toContain(`status on "perimeter" of ${first.slice(0, 7)}`);
      expect((await receipt(jobs))?.state).toBe('failure');
    });

    it('cannot post once its job has ended: the token expired with it', async () => {
      const jobs = await twoJobs();
      await jobs.endAgentJob();
      const head = await jobs.agent.head();
      expect(await postStatus(jobs, head, 'success', jobs.agent.token)).toBe(401);
      const verify = await jobs.verify();
      expect(verify.exitCode, verify.log).toBe(0);
      expect(await receipt(jobs)).toMatchObject({
        state: 'success',
        description: 'No changes during the job',
      });
    });
  });

  describe('when the agent job is cancelled or fails', () => {
    it('still judges what was pushed, and says how the job ended', async () => {
      const jobs = await twoJobs();
      await jobs.agent.push({ 'src/count.ts': 'export const count = () => 3;\n' });
      await jobs.endAgentJob({ post: false, conclusion: 'cancelled' });
      const verify = await jobs.verify();
      expect(verify.exitCode, verify.log).toBe(0);
      expect((await receipt(jobs))?.state).toBe('success');
      expect(plain(verify.summary)).toContain('the agent job ended: "implement" cancelled');
    });

    it('fails a failed job that pushed out of scope', async () => {
      const jobs = await twoJobs();
      await jobs.agent.push({ 'docs/roadmap.md': 'agent was here\n' });
      await jobs.endAgentJob({ conclusion: 'failure' });
      const verify = await jobs.verify();
      expect(verify.exitCode).toBe(1);
      expect(await receipt(jobs)).toMatchObject({ state: 'failure' });
      expect(verify.annotations).toContainEqual(expect.objectContaining({ file: 'docs/roadmap.md' }));
    });
  });

  describe('when the agent job is subverted: it hands over nothing the verify job takes', () => {
    it('judges with its own inputs: a perimeter the agent job also exposed is not one it judges by', async () => {
      // main exposed every perimeter; the workflow's verify job names the one the agents were meant to have
      const jobs = await twoJobs();
      const agent = await jobs.agent.agent('test-author');
      const pushed = await agent.callTool({
        name: 'push_files',
        arguments: {
          message: 'Tests',
          files: [{ path: 'test/count.test.ts', content: 'test("x", () => {});\n' }],
        },
      });
      expect(pushed.isError).toBeFalsy();
      await jobs.endAgentJob();
      const verify = await jobs.verify({ perimeters: 'implementer' });
      expect(verify.exitCode).toBe(1);
      expect(await receipt(jobs)).toMatchObject({ state: 'failure' });
      expect(verify.annotations).toContainEqual(expect.objectContaining({ file: 'test/count.test.ts' }));
    });

    it('judges what the job pushed before main started: the window opens when GitHub started the job', async () => {
      const jobs = await TwoJobs.create({ files: FILES, actionDir: dir });
      open.push(jobs);
      jobs.startAgentJobRecord();
      await jobs.agent.push({ 'docs/roadmap.md': 'before main\n' });
      const main = await jobs.agent.main();
      expect(main.exitCode, main.log).toBe(0);
      await jobs.endAgentJob();
      const verify = await jobs.verify();
      expect(verify.exitCode).toBe(1);
      expect(verify.annotations).toContainEqual(expect.objectContaining({ file: 'docs/roadmap.md' }));
    });

    it('reads the perimeters as they were when the job started, whatever the config ref holds now', async () => {
      const jobs = await twoJobs({ actors: ['maintainer'] });
      await jobs.agent.push({ 'docs/roadmap.md': 'agent was here\n' });
      await jobs.endAgentJob();
      // widened on the default branch after the job: the job is judged by the file it started under
      await jobs.agent.push(
        { 'perimeters.yml': 'version: 1\nperimeters:\n  implementer:\n    write: ["**"]\n' },
        { as: 'maintainer', from: 'main' },
      );
      const verify = await jobs.verify();
      expect(verify.exitCode).toBe(1);
      expect(await receipt(jobs)).toMatchObject({ state: 'failure' });
      expect(verify.annotations).toContainEqual(expect.objectContaining({ file: 'docs/roadmap.md' }));
    });

    it('refuses perimeters read from its bound branch, which the agent job may write', async () => {
      const jobs = await twoJobs();
      await jobs.agent.push({ 'src/count.ts': 'export const count = () => 1;\n' });
      await jobs.endAgentJob();
      const verify = await jobs.verify({ 'config-ref': 'agent/work' });
      expect(verify.exitCode).toBe(1);
      const final = await receipt(jobs);
      expect(final?.state).toBe('error');
      expect(final?.description).toContain('perimeters.yml at agent/work cannot judge the agent job');
      expect(verify.stdout + verify.stderr).not.toMatch(/\n\s+at /);
    });

    it('judges nothing without the perimeters the workflow gives the agent job', async () => {
      const jobs = await twoJobs();
      await jobs.endAgentJob();
      const verify = await jobs.verify({ perimeters: '' });
      expect(verify.exitCode).toBe(1);
      expect(verify.annotations.map((a) => a.message).join('\n')).toContain('perimeters: required');
      expect(verify.stdout + verify.stderr).not.toMatch(/\n\s+at /);
    });

    it('ends in error, never success, when no job of the run has the name it was given', async () => {
      const jobs = await twoJobs();
      await jobs.agent.push({ 'docs/roadmap.md': 'agent was here\n' });
      await jobs.endAgentJob();
      const verify = await jobs.verify({ 'agent-job': 'someone-else' });
      expect(verify.exitCode).toBe(1);
      expect((await receipt(jobs))?.state).toBe('error');
      expect(verify.annotations.map((a) => a.message).join('\n')).toContain(
        'GitHub lists no job "someone-else" in run 4242 attempt 1 (its jobs: "implement", "verify")',
      );
    });
  });

  describe('when the agent leaves a forged success where the bound branch is not', () => {
    /** The newest status on "perimeter" of a commit. */
    const newest = async (jobs: TwoJobs, sha: string) =>
      (await jobs.agent.statuses(sha, jobs.verifyToken)).find((s) => s.context === 'perimeter');

    it('posts failure on the head of a branch the agent created, naming it', async () => {
      const jobs = await twoJobs();
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const rogue = await jobs.agent.push({ 'docs/roadmap.md': 'x\n' }, { branch: 'rogue' });
      await postStatus(jobs, rogue, 'success', jobs.agent.token);
      await jobs.endAgentJob();
      const verify = await jobs.verify();
      expect(verify.exitCode).toBe(1);
      expect(await newest(jobs, rogue)).toMatchObject({ state: 'failure' });
      expect(plain(verify.summary)).toContain(`status on "perimeter" of ${rogue.slice(0, 7)}`);
      expect(plain(verify.summary)).toContain('refs/heads/rogue was created during the job');
    });

    it("posts failure on the bound branch's head before it was forced back", async () => {
      const jobs = await twoJobs();
      const start = await jobs.agent.head();
      const pushed = await jobs.agent.push({ 'docs/roadmap.md': 'x\n' });
      await postStatus(jobs, pushed, 'success', jobs.agent.token);
      await jobs.agent.pushRefspecs(`+${start}:refs/heads/agent/work`);
      expect(await jobs.agent.head()).toBe(start);
      await jobs.endAgentJob();
      const verify = await jobs.verify();
      expect(verify.exitCode).toBe(1);
      expect(await newest(jobs, pushed)).toMatchObject({ state: 'failure' });
    });

    it("posts failure on a deleted branch's last head", async () => {
      const jobs = await twoJobs();
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const rogue = await jobs.agent.push({ 'docs/roadmap.md': 'x\n' }, { branch: 'rogue' });
      await postStatus(jobs, rogue, 'success', jobs.agent.token);
      await jobs.agent.pushRefspecs(':refs/heads/rogue');
      await jobs.endAgentJob();
      const verify = await jobs.verify();
      expect(verify.exitCode).toBe(1);
      expect(await newest(jobs, rogue)).toMatchObject({ state: 'failure' });
      expect(plain(verify.summary)).toContain(`status on "perimeter" of ${rogue.slice(0, 7)}`);
    });

    it('reports a context that can take no more statuses, and the check run carries the receipt', async () => {
      const jobs = await twoJobs();
      const head = await jobs.agent.push({ 'docs/roadmap.md': 'x\n' });
      // 999 through the stand-in's seeding, the 1,000th and 1,001st through its REST API
      jobs.agent.gh.seedStatuses(REPOSITORY, head, 'perimeter', 999, { state: 'success' });
      expect(await postStatus(jobs, head, 'success', jobs.agent.token)).toBe(201);
      expect(await postStatus(jobs, head, 'success', jobs.agent.token)).toBe(422);
      await jobs.endAgentJob();
      const verify = await jobs.verify();
      expect(verify.exitCode).toBe(1);
      expect(plain(verify.summary)).toContain("GitHub's most statuses a commit and context may have (1000)");
      expect(verify.annotations.map((a) => a.message).join('\n')).toContain('carries the receipt instead');
      const [run] = await jobs.agent.checkRuns(head, 'perimeter', jobs.verifyToken);
      expect(run).toMatchObject({ conclusion: 'failure' });
    });
  });

  describe("when GitHub fails the verify job's own requests", () => {
    it.each([
      // a commit GraphQL shows without a status on the context needs no REST list: both routes fail here
      ['the statuses cannot be read', /\/commits\/[0-9a-f]{40}\/statuses$|^POST \/graphql$/, 502],
      ['the jobs API is refused (no actions: read)', /\/actions\/runs\//, 403],
      ['the activity list cannot be read', /\/activity$/, 502],
    ])('posts error, never success, when %s', async (_, route, status) => {
      const jobs = await twoJobs();
      await jobs.endAgentJob();
      jobs.agent.gh.injectFault({ kind: 'status', status, count: 1000, route });
      const verify = await jobs.verify();
      expect(verify.exitCode).toBe(1);
      jobs.agent.gh.clearFaults();
      expect((await receipt(jobs))?.state).toBe('error');
    });

    it('fails the step and posts nothing when GitHub is down', async () => {
      const jobs = await twoJobs();
      await jobs.endAgentJob();
      jobs.agent.gh.injectFault({ kind: 'status', status: 502, count: 100_000 });
      const verify = await jobs.verify();
      expect(verify.exitCode).toBe(1);
      expect(verify.annotations.map((a) => a.message).join('\n')).toContain('could not verify');
      jobs.agent.gh.clearFaults();
      expect(await receipt(jobs)).toBeUndefined();
    });
  });
});

async function postStatus(jobs: TwoJobs, sha: string, state: string, token: string): Promise<number> {
  const response = await fetch(`${jobs.agent.gh.url}/repos/${REPOSITORY}/statuses/${sha}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ state, context: 'perimeter', description: 'All good' }),
  });
  return response.status;
}
