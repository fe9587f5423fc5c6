/**
 * The action end to end, as a runner runs it: `node dist/main/index.js` and `node dist/post/index.js` as
 * separate processes against the GitHub stand-in, an MCP client as the agent, `git push` as the way around.
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isGatewayRunning } from '../../src/action/agent-job/gateway-process.js';
import { FILES, Job, sample, type StepResult, text } from '@perimeter/test-rigs';
import { jobSuite } from './support/suite.js';

const { create: job, started } = jobSuite();

/** The action never prints the token: it only registers it for masking (the runner's safety net). */
function expectNoLeak(j: Job, step: StepResult): void {
  const printed = step.stdout
    .split('\n')
    .filter((line) => !line.startsWith('::add-mask::'))
    .join('\n');
  expect(printed).not.toContain(j.token);
  expect(step.stderr).not.toContain(j.token);
}

// Each scenario runs real processes against real git repositories: generous guards, no timed assertions.
describe('the action', { timeout: 120_000 }, () => {
  describe('when the agent works through the gateway', () => {
    it('hands out endpoints and posts a success receipt', async () => {
      const j = await started();
      const main = j.runner.main!;
      expect(JSON.parse(main.outputs.endpoints ?? '')).toEqual({
        implementer: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/mcp\/implementer$/),
        'test-author': expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/mcp\/test-author$/),
      });
      expect(readFileSync(main.outputs['codex-config'] ?? '', 'utf8')).toContain(
        'bearer_token_env_var = "PERIMETER_TOKEN_IMPLEMENTER"',
      );
      expect(main.masks).toContain(j.token);
      expect(main.masks).toContain(main.outputs['secret-implementer']);
      expectNoLeak(j, main);
      if (existsSync(`/proc/${j.gatewayPid()}/environ`)) {
        // the token reached the gateway on stdin only: not in its argv, not in its environment
        const environ = readFileSync(`/proc/${j.gatewayPid()}/environ`, 'utf8');
        expect(environ).not.toContain(j.token);
        expect(environ).not.toContain('INPUT_');
        expect(readFileSync(`/proc/${j.gatewayPid()}/cmdline`, 'utf8')).not.toContain(j.token);
      }

      // what a later step is given: the outputs, used the way the README's curl example does
      const raw = await fetch(JSON.parse(main.outputs.endpoints ?? '{}').implementer ?? '', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${main.outputs['secret-implementer']}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'get_file', arguments: { path: 'src/count.ts' } },
        }),
      });
      expect(raw.status).toBe(200);
      expect(await raw.text()).toContain('xs.length');

      const agent = await j.agent('implementer');
      expect(text(await agent.callTool({ name: 'get_file', arguments: { path: 'src/count.ts' } }))).toContain(
        'xs.length',
      );
      const pushed = await agent.callTool({
        name: 'push_files',
        arguments: {
          message: 'Count only widgets',
          files: [{ path: 'src/count.ts', content: 'export const count = (xs: string[]) => xs.length;\n' }],
        },
      });
      expect(pushed.isError, text(pushed)).toBeFalsy();

      const post = await j.post();
      expect(post.exitCode, post.log + post.stderr).toBe(0);
      expect(post.annotations.filter((a) => a.level === 'error')).toEqual([]);
      expect(post.summary).toContain('src/count.ts');
      expectNoLeak(j, post);
      const [status] = await j.statuses(await j.head());
      expect(status).toMatchObject({
        state: 'success',
        context: 'perimeter',
        target_url: 'https://github.com/octo/widgets/actions/runs/4242',
      });
      expect(status!.description.length).toBeLessThanOrEqual(140);
      expect(isGatewayRunning(j.gatewayPid())).toBe(false);
    });
  });

  describe('when nothing changes during the job', () => {
    it('posts a success receipt saying so, and that the agent made no call', async () => {
      const j = await started();
      const post = await j.post();
      expect(post.exitCode, post.log).toBe(0);
      const [status] = await j.statuses(await j.head());
      expect(status).toMatchObject({
        state: 'success',
        description: 'No changes during the job: the agent made no call to the gateway',
      });
    });

    it('fails the job that had to deliver work with require-changes', async () => {
      const j = await started({ inputs: { 'require-changes': 'true' } });
      const client = await j.agent('implementer');
      await client.callTool({ name: 'get_tree', arguments: {} });
      const post = await j.post();
      expect(post.exitCode).toBe(1);
      const [status] = await j.statuses(await j.head());
      expect(status).toMatchObject({ state: 'failure' });
      expect(status!.description).toContain('changed nothing');
    });

    it('replaces its own pending status under the status-context input', async () => {
      const j = await started({ inputs: { 'status-context': 'perimeter/tests' } });
      const head = await j.head();
      expect((await j.statuses(head)).map((s) => [s.context, s.state])).toEqual([
        ['perimeter/tests', 'pending'],
      ]);
      await j.post();
      expect((await j.statuses(head))[0]).toMatchObject({ context: 'perimeter/tests', state: 'success' });
    });
  });

  describe('when a file outside every perimeter is pushed directly', () => {
    it('fails the step and names the file in the summary, annotations and status', async () => {
      const j = await started();
      await j.push({ 'docs/roadmap.md': '# Roadmap\n\nRewritten by an agent.\n' });
      const post = await j.post();
      expect(post.exitCode).toBe(1);
      expect(post.summary).toContain('docs/roadmap.md');
      expect(post.annotations).toContainEqual(
        expect.objectContaining({ level: 'error', file: 'docs/roadmap.md' }),
      );
      const [status] = await j.statuses(await j.head());
      expect(status?.state).toBe('failure');
      expectNoLeak(j, post);
    });
  });

  describe('when the gateway pushes and a commit outside every perimeter is pushed around it', () => {
    it('says in the violation line that the commit was pushed around the gateway, as its ledger tells', async () => {
      const j = await started();
      const agent = await j.agent('implementer');
      const through = await agent.callTool({
        name: 'push_files',
        arguments: {
          message: 'Count',
          files: [{ path: 'src/count.ts', content: 'export const count = 1;\n' }],
        },
      });
      expect(through.isError, text(through)).toBeFalsy();
      const around = await j.push({ 'docs/roadmap.md': '# Roadmap\n\nRewritten around the gateway.\n' });
      const post = await j.post();
      expect(post.exitCode).toBe(1);
      // both moves are recorded as the same actor, the job's token: only the ledger tells them apart
      const actors = [...post.summary.matchAll(/^\| (.+?) \| <code>refs\/heads\/[^|]*\| push \|/gm)].map(
        (m) => m[1],
      );
      expect(actors).toHaveLength(2);
      expect(new Set(actors).size).toBe(1);
      const line = post.summary.split('\n').find((l) => l.startsWith('- docs/roadmap.md')) ?? '';
      expect(line).toContain(`/commit/${around})`);
      expect(line.endsWith(` pushed around the gateway by ${actors[0]}`), line).toBe(true);
      expect(post.summary).toContain(`direct&#58; ${around}`);
    });
  });

  describe('when a branch is created during the job', () => {
    it('fails and names the new ref', async () => {
      const j = await started();
      await j.push({ 'src/count.ts': 'export const count = () => 0;\n' }, { branch: 'rogue' });
      const post = await j.post();
      expect(post.exitCode).toBe(1);
      expect(post.summary).toContain('refs/heads/rogue');
      const [status] = await j.statuses(await j.head());
      expect(status?.state).toBe('failure');
    });
  });

  describe('when the bound branch is force-pushed', () => {
    it('fails on the rewritten history', async () => {
      const j = await started({ branchFiles: { 'src/count.ts': 'export const count = () => 1;\n' } });
      await j.push({ 'src/count.ts': 'export const count = () => 2;\n' }, { resetTo: 'HEAD~1', force: true });
      const post = await j.post();
      expect(post.exitCode).toBe(1);
      expect(post.summary.toLowerCase()).toContain('history');
      const [status] = await j.statuses(await j.head());
      expect(status?.state).toBe('failure');
    });
  });

  describe('when perimeters.yml is widened in the workspace and on the bound branch', () => {
    it('uses the one on the default branch', async () => {
      const widened = 'version: 1\nperimeters:\n  implementer:\n    read: ["**"]\n    write: ["**"]\n';
      const j = await started({
        workspaceFiles: { 'perimeters.yml': widened },
        branchFiles: { 'perimeters.yml': widened },
      });
      expect(JSON.parse(j.runner.main!.outputs.endpoints ?? '')).toHaveProperty('test-author');
      await j.push({ 'docs/roadmap.md': 'agent was here\n' });
      const post = await j.post();
      expect(post.exitCode).toBe(1);
      expect(post.annotations).toContainEqual(expect.objectContaining({ file: 'docs/roadmap.md' }));
    });
  });

  describe('when the gateway is killed during the job', () => {
    it('still verifies, says so, and does not report success', async () => {
      const j = await started();
      const agent = await j.agent('implementer');
      await agent.callTool({
        name: 'push_files',
        arguments: {
          message: 'ok',
          files: [{ path: 'src/count.ts', content: 'export const count = () => 3;\n' }],
        },
      });
      process.kill(j.gatewayPid(), 'SIGKILL');
      const post = await j.post();
      expect(post.exitCode).toBe(1);
      expect(post.summary).toContain('the gateway was not running when the job ended');
      expect(post.summary).toContain('src/count.ts');
      const [status] = await j.statuses(await j.head());
      expect(status?.state).toBe('error');
    });
  });

  describe('when perimeters.yml on the default branch is invalid', () => {
    it('fails main with an annotation on the line, starts no gateway, and post reports an error', async () => {
      const j = await job({
        files: {
          ...FILES,
          'perimeters.yml': 'version: 1\nperimeters:\n  implementer:\n    wrte: ["src/**"]\n',
        },
      });
      const main = await j.main();
      expect(main.exitCode).toBe(1);
      expect(main.annotations).toContainEqual(
        expect.objectContaining({ level: 'error', file: 'perimeters.yml', line: 4 }),
      );
      expect(main.state.gatewayPid).toBeUndefined();
      expect(readdirSync(j.runner.runnerTemp)).toEqual([]);
      const post = await j.post();
      expect(post.exitCode).toBe(1);
      const [status] = await j.statuses(await j.head());
      expect(status?.state).toBe('error');
    });
  });

  describe('when an unknown perimeter is asked for', () => {
    it('fails main with one clear message', async () => {
      const j = await job({ inputs: { perimeters: 'implementor' } });
      const main = await j.main();
      expect(main.exitCode).toBe(1);
      expect(main.annotations.map((a) => a.message)).toEqual([
        'perimeters: no perimeter named "implementor" in perimeters.yml; it defines "implementer", "test-author"',
      ]);
      expect(existsSync(join(j.runner.runnerTemp, 'perimeter'))).toBe(false);
    });
  });

  describe('when the bound branch does not exist', () => {
    it('fails main with one clear message', async () => {
      const j = await job({ inputs: { branch: 'agent/missing' } });
      const main = await j.main();
      expect(main.exitCode).toBe(1);
      expect(main.annotations.map((a) => a.message)).toEqual([
        'branch "agent/missing" does not exist in octo/widgets; create it before this step or set the branch input',
      ]);
    });
  });

  describe('when a perimeter may not be bound to the branch', () => {
    it('fails main with an annotation on its branches line', async () => {
      const config = [
        'version: 1',
        'perimeters:',
        '  implementer:',
        '    write: ["src/**"]',
        '    branches: ["release/*"]',
        '',
      ].join('\n');
      const j = await job({ files: { ...FILES, 'perimeters.yml': config } });
      const main = await j.main();
      expect(main.exitCode).toBe(1);
      expect(main.annotations).toContainEqual(
        expect.objectContaining({ level: 'error', file: 'perimeters.yml', line: 5, col: 5 }),
      );
      expect(main.annotations.at(-1)?.message).toBe(
        'branch "agent/work" is not allowed for this perimeter: perimeter "implementer" allows branches ["release/*"] (input branch)',
      );
      expect(main.state.gatewayPid).toBeUndefined();
    });
  });

  describe('when the token may not post commit statuses', () => {
    it('fails main naming the permission, before any gateway starts', async () => {
      const j = await job();
      j.gh.injectFault({
        kind: 'status',
        status: 403,
        count: 100,
        route: /statuses/,
        message: 'Resource not accessible by integration',
      });
      const main = await j.main();
      expect(main.exitCode).toBe(1);
      expect(main.annotations).toHaveLength(1);
      expect(main.annotations[0]?.message).toContain('cannot post commit statuses');
      expect(main.annotations[0]?.message).toContain('statuses: write');
      expect(main.state.gatewayPid).toBeUndefined();
      expect(readdirSync(j.runner.runnerTemp)).toEqual([]);
    });
  });

  describe('when GitHub is down for the post step', () => {
    it('fails post and reports the job as not verified', async () => {
      const j = await started();
      j.gh.injectFault({ kind: 'status', status: 502, count: 10_000 });
      const post = await j.post();
      expect(post.exitCode).toBe(1);
      expect(post.annotations.map((a) => a.message).join('\n')).toContain(
        'Perimeter could not verify this job',
      );
      expect(post.summary).toContain('Perimeter: not verified');
      expect(isGatewayRunning(j.gatewayPid())).toBe(false);
      expectNoLeak(j, post);
    });
  });

  describe('when a direct push is judged by the one rule (judgeCommit)', () => {
    it('fails one commit that needs two exposed perimeters, naming what each lacks', async () => {
      const j = await started({ inputs: { perimeters: 'implementer,test-author' } });
      await j.push({
        'src/count.ts': 'export const count = () => 4;\n',
        'test/count.test.ts': "import { count } from '../src/count';\n// rewritten to pass\n",
      });
      const post = await j.post();
      expect(post.exitCode).toBe(1);
      const [status] = await j.statuses(await j.head());
      expect(status?.state).toBe('failure');
      expect(post.summary).toContain('no one perimeter may make the whole commit');
    });

    it("fails a direct push over the perimeter's files-per-push, as the gateway would refuse it", async () => {
      const j = await started();
      const many = Object.fromEntries(
        Array.from({ length: 101 }, (_, i) => [`src/many/${i}.ts`, `export const n = ${i};\n`]),
      );
      await j.push(many);
      const post = await j.post();
      expect(post.exitCode).toBe(1);
      // the summary escapes what could format: parentheses too
      expect(post.summary).toContain('may push 100 path&#40;s&#41; at once, and the commit changes 101');
    });

    it('fails a direct push of a credential the gateway refuses', async () => {
      const j = await started();
      await j.push({ 'src/config.ts': `export const token = '${sample.github()}';\n` });
      const post = await j.post();
      expect(post.exitCode).toBe(1);
      expect(post.summary).toContain('looks like it contains a credential');
    });
  });

  describe('when direct-pushes is deny', () => {
    it('fails on a direct push even inside the write globs', async () => {
      const j = await started({ inputs: { 'direct-pushes': 'deny' } });
      await j.push({ 'src/count.ts': 'export const count = () => 4;\n' });
      const post = await j.post();
      expect(post.exitCode).toBe(1);
      const [status] = await j.statuses(await j.head());
      expect(status?.state).toBe('failure');
    });
  });

  describe('when fail-on-violation is false', () => {
    it('posts the failure receipt but leaves the step green with a warning', async () => {
      const j = await started({ inputs: { 'fail-on-violation': 'false' } });
      await j.push({ 'docs/roadmap.md': 'changed\n' });
      const post = await j.post();
      expect(post.exitCode).toBe(0);
      expect(post.annotations).toContainEqual(expect.objectContaining({ level: 'warning' }));
      const [status] = await j.statuses(await j.head());
      expect(status?.state).toBe('failure');
    });
  });

  describe('when the agent rewrites the start snapshot to hide a new branch', () => {
    it('notices the change and does not report success', async () => {
      const j = await started();
      const sha = await j.push({ 'src/count.ts': 'export const count = () => 5;\n' }, { branch: 'rogue' });
      const path = j.runner.main!.state.startRefsPath ?? '';
      const snapshot = JSON.parse(readFileSync(path, 'utf8')) as Record<string, string>;
      writeFileSync(path, JSON.stringify({ ...snapshot, 'refs/heads/rogue': sha }));
      const post = await j.post();
      expect(post.exitCode).toBe(1);
      expect(post.summary).toContain('the start snapshot of the refs was changed during the job');
      const [status] = await j.statuses(await j.head());
      expect(status?.state).not.toBe('success');
    });
  });

  describe('when the agent deletes the gateway ledger', () => {
    it('reports the job as not fully checked', async () => {
      const j = await started();
      const agent = await j.agent('implementer');
      await agent.callTool({
        name: 'push_files',
        arguments: {
          message: 'ok',
          files: [{ path: 'src/count.ts', content: 'export const count = () => 6;\n' }],
        },
      });
      rmSync(j.runner.main!.state.ledgerPath ?? '');
      const post = await j.post();
      expect(post.exitCode).toBe(1);
      const [status] = await j.statuses(await j.head());
      expect(status?.state).toBe('error');
    });
  });
});
