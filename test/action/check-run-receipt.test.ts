/**
 * The receipt as a check run (`receipt-as`), end to end as runners run it: the post step of the agent job, and
 * the verify job on a fresh runner (TwoJobs), each from the built dist/ bundles against the stand-in.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { actionDir, FILES, TwoJobs, type Job } from '@perimeter/test-rigs';
import { auditRecord, downloadRecord } from './support/record-download.js';
import { jobSuite } from './support/suite.js';

const { started, create } = jobSuite();

const plain = (markdown: string): string =>
  markdown.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));

/** The receipt's commit statuses on a commit (main's pending one is on the start head). */
async function receiptStatuses(job: Job, sha: string, token = job.token) {
  return (await job.statuses(sha, token)).filter((s) => s.context === 'perimeter' && s.state !== 'pending');
}

const OUT_OF_SCOPE = { 'docs/roadmap.md': '# Roadmap\n\nRewritten by an agent.\n' };
const IN_SCOPE = { 'src/count.ts': 'export const count = (xs: string[]) => xs.length;\n' };

describe('the post step with receipt-as', { timeout: 120_000 }, () => {
  describe('check-run, when the agent pushes outside its perimeter', () => {
    it('creates a failing check run that annotates the file, with the config and the ledger, and no status', async () => {
      const job = await started({ inputs: { 'receipt-as': 'check-run' } });
      await job.push(OUT_OF_SCOPE);
      const post = await job.post();
      expect(post.exitCode, post.log).toBe(1);
      const head = await job.head();
      const [run, ...others] = await job.checkRuns(head);
      expect(others).toEqual([]);
      expect(run).toMatchObject({
        status: 'completed',
        conclusion: 'failure',
        app: { slug: 'github-actions' },
      });
      expect(run!.output.title).toMatch(/^1 violation: docs\/roadmap\.md/);
      expect(run!.details_url).toMatch(/\/actions\/runs\//);
      expect(run!.annotations).toEqual([
        expect.objectContaining({ path: 'docs/roadmap.md', annotation_level: 'failure' }),
      ]);
      expect(run!.output.text).toMatch(
        /Perimeters: <code>perimeters\.yml<\/code> at <code>main<\/code>, blob <code>[0-9a-f]{40}<\/code>/,
      );
      expect(run!.output.text).toMatch(/Gateway ledger: chain head <code>[0-9a-f]{64}<\/code>, \d+ records/);
      expect(plain(run!.output.summary ?? '')).toContain('docs/roadmap.md');
      expect(await receiptStatuses(job, head)).toEqual([]);
    });
  });

  describe('check-run, when more than 50 files are outside', () => {
    it('annotates every one: 50 with the check run, the rest in an update', async () => {
      const job = await started({ inputs: { 'receipt-as': 'check-run' } });
      const files = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`docs/n${i}.md`, `${i}\n`]));
      await job.push(files);
      expect((await job.post()).exitCode).toBe(1);
      const [run] = await job.checkRuns(await job.head());
      expect(run!.output.annotations_count).toBe(60);
      expect(run!.annotations.map((a) => a.path).sort()).toEqual(Object.keys(files).sort());
      expect(job.gh.stats().byRoute['PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}']).toBe(1);
    });
  });

  describe('check-run, when every change is inside', () => {
    it('creates a successful check run', async () => {
      const job = await started({ inputs: { 'receipt-as': 'check-run' } });
      const agent = await job.agent('implementer');
      const pushed = await agent.callTool({
        name: 'push_files',
        arguments: {
          message: 'Count widgets',
          files: [{ path: 'src/count.ts', content: IN_SCOPE['src/count.ts'] }],
        },
      });
      expect(pushed.isError).toBeFalsy();
      const post = await job.post();
      expect(post.exitCode, post.log).toBe(0);
      const runs = await job.checkRuns(await job.head());
      expect(runs.map((r) => r.conclusion)).toEqual(['success']);
      expect(runs[0]!.annotations).toEqual([]);
    });
  });

  describe('check-run, when GitHub keeps the verification from being complete', () => {
    it('concludes failure for the error verdict, never a passing conclusion', async () => {
      const job = await started({ inputs: { 'receipt-as': 'check-run' } });
      await job.push(IN_SCOPE);
      job.gh.injectFault({
        kind: 'status',
        status: 502,
        count: 10_000,
        route: 'GET /repos/{owner}/{repo}/activity',
      });
      expect((await job.post()).exitCode).toBe(1);
      const [run] = await job.checkRuns(await job.head());
      expect(run!.conclusion).toBe('failure');
      expect(run!.output.title).toMatch(/^Not fully checked: /);
      expect(run!.output.summary).toContain('Perimeter: error');
    });
  });

  describe('check-run, when nothing could be verified', () => {
    it('creates a failing check run saying why, on the commit the job started from', async () => {
      const job = await started({ inputs: { 'receipt-as': 'check-run' } });
      const start = await job.head();
      // refs come over git (ls-refs) and fall back to REST: both fail
      job.gh.injectFault({ kind: 'status', status: 502, count: 10_000, route: /^GIT / });
      job.gh.injectFault({
        kind: 'status',
        status: 502,
        count: 10_000,
        route: 'GET /repos/{owner}/{repo}/git/matching-refs',
      });
      const post = await job.post();
      expect(post.exitCode).toBe(1);
      expect(post.summary).toContain('Perimeter: not verified');
      const [run] = await job.checkRuns(start);
      expect(run!.conclusion).toBe('failure');
      expect(run!.output.title).toMatch(/^Not verified: /);
      expect(await receiptStatuses(job, start)).toEqual([]);
    });
  });

  describe('both', () => {
    it('posts the check run and the status, with the same verdict', async () => {
      const job = await started({ inputs: { 'receipt-as': 'both' } });
      await job.push(OUT_OF_SCOPE);
      expect((await job.post()).exitCode).toBe(1);
      const head = await job.head();
      expect((await job.checkRuns(head)).map((r) => r.conclusion)).toEqual(['failure']);
      const statuses = await receiptStatuses(job, head);
      expect(statuses.map((s) => s.state)).toEqual(['failure']);
      expect((await job.checkRuns(head))[0]!.output.title).toBe(statuses[0]!.description);
    });
  });

  describe('when the token may not write check runs (no checks: write)', () => {
    it('fails the step saying so, and the status says error, not the success it did not publish', async () => {
      const job = await started({ inputs: { 'receipt-as': 'both' }, checks: 'read' });
      await job.push(IN_SCOPE);
      const post = await job.post();
      expect(post.exitCode).toBe(1);
      expect(post.annotations.map((a) => a.message).join('\n')).toMatch(
        /the check run "perimeter" could not be created on [0-9a-f]{7}: .*Resource not accessible by integration.*checks: write/,
      );
      expect(post.stdout + post.stderr).not.toMatch(/\n\s+at /);
      const head = await job.head();
      expect(await job.checkRuns(head)).toEqual([]);
      const statuses = await receiptStatuses(job, head);
      expect(statuses.map((s) => s.state)).toEqual(['error']);
      expect(statuses[0]!.description).toMatch(
        /^Not published: the check run "perimeter" could not be created/,
      );
    });

    it('fails the step with check-run alone too', async () => {
      const job = await started({ inputs: { 'receipt-as': 'check-run' }, checks: 'read' });
      const post = await job.post();
      expect(post.exitCode).toBe(1);
      expect(post.annotations.map((a) => a.message).join('\n')).toContain('checks: write');
    });
  });

  describe('when receipt-as is not one of the three', () => {
    it('fails main with a clear error and no stack', async () => {
      const job = await create({ inputs: { 'receipt-as': 'checks' } });
      const main = await job.main();
      expect(main.exitCode).toBe(1);
      expect(main.annotations.map((a) => a.message).join('\n')).toContain(
        'receipt-as: expected "status", "check-run" or "both", got "checks"',
      );
      expect(main.stdout + main.stderr).not.toMatch(/\n\s+at /);
    });
  });
});

/** A post step rewritten by the agent: it creates a `success` check run named like the receipt. */
const forgingPost = (startedAt: string, completedAt = '') => `
const api = process.env.GITHUB_API_URL, repo = process.env.GITHUB_REPOSITORY;
const headers = { authorization: 'Bearer ' + process.env['INPUT_GITHUB-TOKEN'], 'content-type': 'application/json' };
const ref = await (await fetch(api + '/repos/' + repo + '/git/ref/heads/agent/work', { headers })).json();
const created = await fetch(api + '/repos/' + repo + '/check-runs', {
  method: 'POST', headers,
  body: JSON.stringify({
    name: 'perimeter', head_sha: ref.object.sha, conclusion: 'success', ${startedAt ? `started_at: '${startedAt}',` : ''} ${completedAt ? `completed_at: '${completedAt}',` : ''}
    output: { title: 'All changes inside the perimeters', summary: 'ok' },
  }),
});
console.log('forged: ' + created.status);
`;

describe('the verify job with receipt-as', { timeout: 180_000 }, () => {
  const open: TwoJobs[] = [];
  afterEach(async () => {
    for (const jobs of open.splice(0)) await jobs.close();
  });
  async function twoJobs(verifyChecks: 'read' | 'write' = 'write'): Promise<TwoJobs> {
    const jobs = await TwoJobs.create({ files: FILES, actionDir: await actionDir(), verifyChecks });
    open.push(jobs);
    const main = await jobs.startAgentJob();
    expect(main.exitCode, main.log + main.stderr).toBe(0);
    return jobs;
  }

  describe('check-run, when the agent forges a success check run and pushes out of scope', () => {
    it('creates the failing check run last, naming the file and the forged check run', async () => {
      const jobs = await twoJobs();
      jobs.tamper('dist/post/index.js', forgingPost(''));
      await jobs.agent.push(OUT_OF_SCOPE);
      const post = await jobs.endAgentJob();
      expect(post?.log).toContain('forged: 201');
      const head = await jobs.agent.head();
      expect(
        (await jobs.agent.checkRuns(head, 'perimeter', jobs.verifyToken)).map((r) => r.conclusion),
      ).toEqual(['success']);

      const verify = await jobs.verify({ 'receipt-as': 'check-run' });
      expect(verify.exitCode, verify.log + verify.stderr).toBe(1);
      const [latest, forged] = await jobs.agent.checkRuns(head, 'perimeter', jobs.verifyToken);
      expect(forged?.conclusion).toBe('success');
      expect(latest).toMatchObject({ conclusion: 'failure' });
      expect(latest!.output.title).toMatch(/^2 violations/);
      expect(latest!.annotations).toEqual([expect.objectContaining({ path: 'docs/roadmap.md' })]);
      expect(plain(latest!.output.summary ?? '')).toMatch(
        new RegExp(
          `forged receipt: a check run "perimeter" \\(success\\) on ${head.slice(0, 7)} \\(id ${forged!.id}, app github-actions`,
        ),
      );
      expect(latest!.output.text).toContain('Gateway ledger: not read');
      expect(latest!.output.text).toMatch(/blob <code>[0-9a-f]{40}<\/code>/);

      // the audit of the verify job's record finds the forged check run again, and knows the verify job's own
      const { files } = await downloadRecord(jobs.agent.gh, jobs.verifyToken, 'perimeter-verify-1');
      const audited = await auditRecord(jobs.agent.gh, jobs.verifyToken, files);
      expect(audited.code, audited.stdout + audited.stderr).toBe(0);
    });

    it('names a forged check run that claims a time after the job, too', async () => {
      const jobs = await twoJobs();
      jobs.tamper('dist/post/index.js', forgingPost('2099-01-01T00:00:00Z'));
      await jobs.agent.push(IN_SCOPE);
      await jobs.endAgentJob();
      const verify = await jobs.verify({ 'receipt-as': 'check-run' });
      expect(verify.exitCode).toBe(1);
      const [latest] = await jobs.agent.checkRuns(await jobs.agent.head(), 'perimeter', jobs.verifyToken);
      expect(latest!.conclusion).toBe('failure');
      expect(latest!.output.title).toMatch(
        /^1 violation: forged receipt: a check run "perimeter" \(success\)/,
      );
    });
  });

  describe('check-run, when the agent back-dates a forged check run on a commit it made', () => {
    it.each([
      ['started in 2001, completed in 2099', '2001-01-01T00:00:00Z', '2099-01-01T00:00:00Z'],
      ['started and completed in 2001', '2001-01-01T00:00:00Z', '2001-01-01T00:01:00Z'],
    ])('names it whatever times it claims (%s)', async (_, startedAt, completedAt) => {
      const jobs = await twoJobs();
      jobs.tamper('dist/post/index.js', forgingPost(startedAt, completedAt));
      await jobs.agent.push(IN_SCOPE);
      const post = await jobs.endAgentJob();
      expect(post?.log).toContain('forged: 201');
      const verify = await jobs.verify({ 'receipt-as': 'check-run' });
      expect(verify.exitCode).toBe(1);
      const runs = await jobs.agent.checkRuns(await jobs.agent.head(), 'perimeter', jobs.verifyToken);
      const ours = runs.find((run) => run.conclusion === 'failure');
      expect(ours?.output.title).toMatch(/^1 violation: forged receipt: a check run "perimeter" \(success\)/);
    });
  });

  describe('check-run, when the agent job works inside its perimeter', () => {
    it('creates a successful check run', async () => {
      const jobs = await twoJobs();
      await jobs.agent.push(IN_SCOPE);
      await jobs.endAgentJob();
      const verify = await jobs.verify({ 'receipt-as': 'check-run' });
      expect(verify.exitCode, verify.log + verify.summary).toBe(0);
      const head = await jobs.agent.head();
      expect(
        (await jobs.agent.checkRuns(head, 'perimeter', jobs.verifyToken)).map((r) => r.conclusion),
      ).toEqual(['success']);
      expect(await receiptStatuses(jobs.agent, head, jobs.verifyToken)).toEqual([]);
      const { files } = await downloadRecord(jobs.agent.gh, jobs.verifyToken, 'perimeter-verify-1');
      const audited = await auditRecord(jobs.agent.gh, jobs.verifyToken, files);
      expect(audited.code, audited.stdout + audited.stderr).toBe(0);
    });
  });

  describe('both, when the verify job may not write check runs', () => {
    it('fails clearly and posts an error status, never success', async () => {
      const jobs = await twoJobs('read');
      await jobs.agent.push(IN_SCOPE);
      await jobs.endAgentJob();
      const verify = await jobs.verify({ 'receipt-as': 'both' });
      expect(verify.exitCode).toBe(1);
      expect(verify.annotations.map((a) => a.message).join('\n')).toContain('checks: write');
      const head = await jobs.agent.head();
      expect(await jobs.agent.checkRuns(head, 'perimeter', jobs.verifyToken)).toEqual([]);
      const statuses = await receiptStatuses(jobs.agent, head, jobs.verifyToken);
      expect(statuses.map((s) => s.state)).toEqual(['error']);
    });
  });
});

describe(
  'the verify job with a GitHub App token, under a ruleset requiring its check',
  { timeout: 180_000 },
  () => {
    const APP = { slug: 'perimeter-receipts', id: 271_828 };
    const open: TwoJobs[] = [];
    afterEach(async () => {
      for (const jobs of open.splice(0)) await jobs.close();
    });

    /** The agent job, with the default branch's ruleset (set by the owner before any job) and a pull request. */
    async function guarded(): Promise<TwoJobs> {
      const jobs = await TwoJobs.create({
        files: FILES,
        actionDir: await actionDir(),
        verifyApp: APP,
        actors: ['maintainer'],
      });
      open.push(jobs);
      const ruleset = await rest(jobs, jobs.agent.token, 'POST', '/rulesets', {
        name: 'perimeter receipt',
        enforcement: 'active',
        conditions: { ref_name: { include: ['refs/heads/main'], exclude: [] } },
        rules: [
          {
            type: 'required_status_checks',
            parameters: {
              required_status_checks: [{ context: 'perimeter', integration_id: APP.id }],
              strict_required_status_checks_policy: false,
            },
          },
        ],
      });
      expect(ruleset.status).toBe(201);
      const main = await jobs.startAgentJob();
      expect(main.exitCode, main.log + main.stderr).toBe(0);
      return jobs;
    }

    async function rest(jobs: TwoJobs, token: string, method: string, path: string, body?: unknown) {
      const response = await fetch(`${jobs.agent.gh.url}/repos/octo/widgets${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    }

    /** The maintainer merges the agent's pull request: what the ruleset lets through. */
    async function merge(jobs: TwoJobs) {
      const token = jobs.agent.tokens.maintainer!;
      const opened = await rest(jobs, token, 'POST', '/pulls', {
        title: 'Agent work',
        head: 'agent/work',
        base: 'main',
      });
      const number = opened.status === 201 ? opened.body.number : 1;
      return rest(jobs, token, 'PUT', `/pulls/${String(number)}/merge`, {});
    }

    it("the check run is the App's, and a success the agent's token forged does not satisfy the rule", async () => {
      const jobs = await guarded();
      jobs.tamper('dist/post/index.js', forgingPost(''));
      await jobs.agent.push(IN_SCOPE);
      const post = await jobs.endAgentJob();
      expect(post?.log).toContain('forged: 201');
      const before = await merge(jobs);
      expect(before.status).toBe(405);
      expect(before.body.message).toContain(
        'Required status check "perimeter" was not set by the expected GitHub app',
      );

      const verify = await jobs.verify({ 'receipt-as': 'check-run' });
      expect(verify.exitCode).toBe(1);
      const runs = await jobs.agent.checkRuns(await jobs.agent.head(), 'perimeter', jobs.verifyToken);
      expect(runs.map((run) => [run.app.slug, run.conclusion])).toEqual([
        [APP.slug, 'failure'],
        ['github-actions', 'success'],
      ]);
      expect((await merge(jobs)).status).toBe(405);
    });

    it("lets the pull request merge once the App's check run is a success", async () => {
      const jobs = await guarded();
      await jobs.agent.push(IN_SCOPE);
      await jobs.endAgentJob();
      expect((await merge(jobs)).status).toBe(405);
      const verify = await jobs.verify({ 'receipt-as': 'check-run' });
      expect(verify.exitCode, verify.log + verify.summary).toBe(0);
      const [run] = await jobs.agent.checkRuns(await jobs.agent.head(), 'perimeter', jobs.verifyToken);
      expect(run).toMatchObject({ conclusion: 'success', app: { slug: APP.slug } });
      expect((await merge(jobs)).status).toBe(200);
    });
  },
);
