/**
 * Inputs an outsider could steer, tried against the built action as a runner runs it: the bound branch of a
 * pull request from a fork, and a config-ref naming a branch the job may write.
 */
import { describe, expect, it } from 'vitest';
import { FILES, type JobOptions, text } from '@perimeter/test-rigs';
import { jobSuite } from './support/suite.js';

const { create: job } = jobSuite();

/** A pull_request_target run as GitHub starts it: GITHUB_REF is the base branch, the head ref comes from the PR. */
function pullRequestTarget(headRef: string, headRepo: string, headRepoId: number): JobOptions['runner'] {
  return {
    eventName: 'pull_request_target',
    ref: 'refs/heads/main',
    headRef,
    event: {
      action: 'opened',
      number: 3,
      pull_request: {
        number: 3,
        head: { ref: headRef, sha: 'f'.repeat(40), repo: { id: headRepoId, full_name: headRepo } },
        base: { ref: 'main', repo: { id: 1, full_name: 'octo/widgets' } },
        author_association: 'NONE',
      },
      repository: { id: 1, full_name: 'octo/widgets' },
      sender: { login: 'mallory' },
    },
  };
}

describe('inputs an outsider could steer', { timeout: 120_000 }, () => {
  describe('when a fork opens a pull request from a branch named "main" (pull_request_target)', () => {
    it('binds nothing, starts no gateway, and the receipt is an error on main', async () => {
      const j = await job({ branch: 'main', runner: pullRequestTarget('main', 'mallory/widgets', 666) });
      const before = await j.head('main');
      const main = await j.main();
      expect(main.exitCode).toBe(1);
      expect(main.annotations.map((a) => a.message)).toEqual([
        'branch: not given, and the pull request\'s head branch "main" lives in "mallory/widgets", not in ' +
          'octo/widgets; a fork chooses its branch names, so it cannot choose the branch this job writes. ' +
          'Set the branch input to a branch of octo/widgets',
      ]);
      expect(main.outputs['mcp-config']).toBeUndefined();
      expect(main.state.gatewayPid).toBeUndefined();
      const post = await j.post();
      expect(post.exitCode).toBe(1);
      expect(await j.head('main')).toBe(before);
      const statuses = await j.statuses(before);
      expect(statuses.map((s) => s.state)).not.toContain('success');
    });

    it('binds the branch the workflow names in the branch input instead', async () => {
      const j = await job({
        inputs: { branch: 'agent/work', perimeters: 'implementer' },
        runner: pullRequestTarget('main', 'mallory/widgets', 666),
      });
      const main = await j.main();
      expect(main.exitCode, main.log).toBe(0);
      expect(main.log).toContain('on branch agent/work');
    });
  });

  describe('when a pull request comes from a branch of this repository', () => {
    it('binds its head branch and verifies it', async () => {
      const j = await job({
        inputs: { perimeters: 'implementer' },
        runner: pullRequestTarget('agent/work', 'octo/widgets', 1),
      });
      const main = await j.main();
      expect(main.exitCode, main.log).toBe(0);
      const agent = await j.agent('implementer');
      const pushed = await agent.callTool({
        name: 'push_files',
        arguments: { message: 'Count', files: [{ path: 'src/count.ts', content: 'export const n = 1;\n' }] },
      });
      expect(text(pushed)).toContain('commit');
      const post = await j.post();
      expect(post.exitCode, post.log).toBe(0);
      const [status] = await j.statuses(await j.head('agent/work'));
      expect(status?.state).toBe('success');
    });
  });

  describe('when config-ref names a branch the job may write', () => {
    const WIDENED = FILES['perimeters.yml']!.replace('write: ["src/**"]', 'write: ["**"]');

    it.each([
      ['the bound branch', 'agent/work', 'names branch "agent/work"', 'it is the bound branch'],
      [
        'the bound branch as a full ref',
        'refs/heads/agent/work',
        'names branch "agent/work"',
        'bound branch',
      ],
    ])('refuses %s before any gateway starts', async (_name, configRef, names, because) => {
      const j = await job({
        branchFiles: { 'perimeters.yml': WIDENED },
        inputs: { 'config-ref': configRef, perimeters: 'implementer' },
      });
      const main = await j.main();
      expect(main.exitCode).toBe(1);
      const [message] = main.annotations.map((a) => a.message);
      expect(message).toContain(`config-ref: ${JSON.stringify(configRef)} ${names}`);
      expect(message).toContain(because);
      expect(main.state.gatewayPid).toBeUndefined();
      const post = await j.post();
      expect(post.exitCode).toBe(1);
      expect((await j.statuses(await j.head())).map((s) => s.state)).not.toContain('success');
    });

    it("refuses the bound branch's head commit given as a SHA", async () => {
      const inputs: Record<string, string> = { perimeters: 'implementer' };
      const j = await job({ branchFiles: { 'perimeters.yml': WIDENED }, inputs });
      const head = await j.head();
      inputs['config-ref'] = head.slice(0, 12); // the runner reads inputs when the step starts
      const main = await j.main();
      expect(main.exitCode).toBe(1);
      expect(main.annotations.map((a) => a.message)[0]).toContain(
        `config-ref: "${head.slice(0, 12)}" is the head of branch "agent/work", and this job may write that branch`,
      );
    });

    it('refuses a branch that an exposed perimeter may be bound to', async () => {
      const files = {
        ...FILES,
        'perimeters.yml': FILES['perimeters.yml']!.replace(
          'write: ["src/**"]',
          'write: ["src/**"]\n    branches: ["agent/**", "staging"]',
        ),
      };
      const j = await job({ files, inputs: { 'config-ref': 'staging', perimeters: 'implementer' } });
      await j.push({ 'src/count.ts': 'export const count = 0;\n' }, { from: 'main', branch: 'staging' });
      const main = await j.main();
      expect(main.exitCode).toBe(1);
      expect(main.annotations.map((a) => a.message)[0]).toContain(
        'config-ref: "staging" names branch "staging", and this job may write that branch ' +
          '(its branches list lets perimeter "implementer" be bound to it)',
      );
    });
  });

  describe('when the default branch is the bound branch and the perimeter does not name it', () => {
    it('binds nothing, starts no gateway, and the receipt is an error on main', async () => {
      const j = await job({ branch: 'main', inputs: { perimeters: 'implementer' } });
      const before = await j.head('main');
      const main = await j.main();
      expect(main.exitCode).toBe(1);
      expect(main.annotations).toContainEqual(
        expect.objectContaining({
          level: 'error',
          file: 'perimeters.yml',
          message: 'branch "main" is the default branch; add branches: ["main"]',
        }),
      );
      expect(main.log).toContain(
        'branch "main" is the repository\'s default branch, and a perimeter may be bound to it only when its ' +
          'branches list names it: perimeter "implementer" has no branches list',
      );
      expect(main.state.gatewayPid).toBeUndefined();
      const post = await j.post();
      expect(post.exitCode).toBe(1);
      expect(await j.head('main')).toBe(before);
      expect((await j.statuses(before)).map((s) => s.state)).not.toContain('success');
    });

    it('refuses it with a config-ref given too, reading the default branch from the repository', async () => {
      const j = await job({ branch: 'main', inputs: { perimeters: 'implementer', 'config-ref': 'policy' } });
      await j.push({ 'README.md': '# policy\n' }, { from: 'main', branch: 'policy' });
      const main = await j.main();
      expect(main.exitCode).toBe(1);
      expect(main.log).toContain('perimeter "implementer" has no branches list');
    });
  });

  describe('when the default branch is also the bound branch and config-ref is not given', () => {
    it('starts and warns that the perimeters come from the branch the agents write', async () => {
      const named = FILES['perimeters.yml']!.replace(
        '    write: ["src/**"]\n',
        '    write: ["src/**"]\n    branches: ["main"]\n',
      );
      const j = await job({
        branch: 'main',
        files: { ...FILES, 'perimeters.yml': named },
        inputs: { perimeters: 'implementer' },
      });
      const main = await j.main();
      expect(main.exitCode, main.log).toBe(0);
      expect(main.annotations).toContainEqual(
        expect.objectContaining({
          level: 'warning',
          message: expect.stringContaining(
            'the default branch "main" is read, and it is also the bound branch',
          ),
        }),
      );
    });
  });

  describe('when perimeters.yml has a trust rule and a comment triggers the run', () => {
    const TRUSTING = FILES['perimeters.yml']!.replace(
      'version: 1\nperimeters:\n',
      'version: 1\ntrust:\n  associations: [OWNER, MEMBER, COLLABORATOR]\nperimeters:\n' +
        '  triage:\n    read: ["README.md"]\n    untrusted-triggers: true\n',
    );
    const commentBy = (login: string, association: string): JobOptions['runner'] => ({
      eventName: 'issue_comment',
      ref: 'refs/heads/agent/work',
      event: {
        action: 'created',
        issue: { number: 5, user: { login }, author_association: association },
        comment: { id: 1, user: { login }, author_association: association, body: '@agent go' },
        repository: { id: 1, full_name: 'octo/widgets' },
        sender: { login },
      },
    });

    it('exposes only the perimeters safe for untrusted triggers when the author is not trusted', async () => {
      const j = await job({
        files: { ...FILES, 'perimeters.yml': TRUSTING },
        runner: commentBy('mallory', 'NONE'),
      });
      const main = await j.main();
      expect(main.exitCode, main.log).toBe(0);
      expect(Object.keys(JSON.parse(main.outputs.endpoints ?? '{}'))).toEqual(['triage']);
      expect(main.annotations).toContainEqual(
        expect.objectContaining({
          level: 'notice',
          message:
            'untrusted trigger: comment author "mallory" is NONE, not OWNER, MEMBER, COLLABORATOR; exposing only ' +
            '"triage" (untrusted-triggers: true), withholding "implementer", "test-author"',
        }),
      );
      const post = await j.post();
      expect(post.exitCode, post.log).toBe(0);
    });

    it('refuses to start when no selected perimeter is safe, and the error receipt says why', async () => {
      const j = await job({
        files: { ...FILES, 'perimeters.yml': TRUSTING },
        inputs: { perimeters: 'implementer' },
        runner: commentBy('mallory', 'FIRST_TIME_CONTRIBUTOR'),
      });
      const main = await j.main();
      expect(main.exitCode).toBe(1);
      expect(main.annotations.map((a) => a.message)).toEqual([
        'untrusted trigger: comment author "mallory" is FIRST_TIME_CONTRIBUTOR, not OWNER, MEMBER, COLLABORATOR; ' +
          'no selected perimeter ("implementer") is marked "untrusted-triggers: true" in perimeters.yml, so none is exposed',
      ]);
      expect(main.state.gatewayPid).toBeUndefined();
      const post = await j.post();
      expect(post.exitCode).toBe(1);
      const [status] = await j.statuses(await j.head());
      expect(status?.state).toBe('error');
      expect(status?.description).toContain('untrusted trigger: comment author "mallory"');
      expect(post.summary).toContain('no selected perimeter ("implementer") is marked');
    });

    it('exposes every selected perimeter when the author is trusted, and says so', async () => {
      const j = await job({
        files: { ...FILES, 'perimeters.yml': TRUSTING },
        runner: commentBy('alice', 'MEMBER'),
      });
      const main = await j.main();
      expect(main.exitCode, main.log).toBe(0);
      expect(Object.keys(JSON.parse(main.outputs.endpoints ?? '{}')).sort()).toEqual([
        'implementer',
        'test-author',
        'triage',
      ]);
      expect(main.annotations).toContainEqual(
        expect.objectContaining({
          level: 'notice',
          message: 'trusted trigger: comment author "alice" is MEMBER',
        }),
      );
    });
  });

  describe('when perimeters.yml has no trust rule and an outsider comments', () => {
    it('exposes every perimeter, as before', async () => {
      const j = await job({
        runner: {
          eventName: 'issue_comment',
          event: {
            comment: { user: { login: 'mallory' }, author_association: 'NONE' },
            sender: { login: 'mallory' },
          },
        },
      });
      const main = await j.main();
      expect(main.exitCode, main.log).toBe(0);
      expect(Object.keys(JSON.parse(main.outputs.endpoints ?? '{}'))).toHaveLength(2);
    });
  });
});
