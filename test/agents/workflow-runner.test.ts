/**
 * The runner emulation's rules, without a job (`npm test`): expressions as the runner evaluates them, what it
 * refuses, the events a workflow runs on, the shell it starts, and job outputs dropped when they hold a
 * masked value.
 */
import { describe, expect, it } from 'vitest';
import type { Value } from './expressions.js';
import {
  evaluate,
  jobOutputs,
  parseWorkflow,
  perimeterAction,
  perimeterEntry,
  shellOf,
  triggers,
  type Contexts,
  type WorkflowEvent,
} from './workflow-runner.js';

const X: Contexts = {
  inputs: { task: 'do it' },
  declaredInputs: new Set(['task']),
  secrets: { KEY: 'sk-1' },
  github: { token: 'ghs_x', run_attempt: '1' },
  runner: { temp: '/rt' },
  env: { A: 'a' },
  steps: {
    perimeter: { outputs: { endpoints: '{"implementer":"http://u"}', secret: 's3cr3t' }, outcome: 'success' },
  },
  needs: {},
  status: 'success',
};

describe('evaluate', () => {
  it('reads the contexts the workflows use', () => {
    expect(evaluate('inputs.task', X)).toBe('do it');
    expect(evaluate('secrets.KEY', X)).toBe('sk-1');
    expect(evaluate('github.token', X)).toBe('ghs_x');
    expect(evaluate('runner.temp', X)).toBe('/rt');
    expect(evaluate('fromJSON(steps.perimeter.outputs.endpoints).implementer', X)).toBe('http://u');
  });
  describe('when a property is missing where the runner gives an empty string', () => {
    it('gives an empty string: an unset secret, a step or output that is not there', () => {
      expect(evaluate('secrets.NOPE', X)).toBe('');
      expect(evaluate('steps.perimeter.outputs.nope', X)).toBe('');
      expect(evaluate('steps.nope.outputs.mcp-config', X)).toBe('');
    });
  });
  describe('when the expression is one the runner refuses or the emulation does not know', () => {
    it('throws', () => {
      expect(() => evaluate('inputs.nope', X)).toThrow('the workflow declares no input nope');
      expect(() => evaluate('needs.build.outputs.x', X)).toThrow('the job does not need build');
      expect(() => evaluate('github.event_name', X)).toThrow('not emulated');
      expect(() => evaluate('toJSON(github)', X)).toThrow('not an expression this runner emulation knows');
    });
  });
});

describe('evaluate, on an issue_comment event', () => {
  const on = (comment: Record<string, Value>, issue: Record<string, Value> = { number: 7 }): Contexts => ({
    ...X,
    github: { ...X.github, event_name: 'issue_comment', event: { action: 'created', issue, comment } },
  });
  // README's job `if:` for the issue-comment workflow
  const gate =
    "!github.event.issue.pull_request && startsWith(github.event.comment.body, '/implement ') && " +
    'contains(fromJSON(\'["OWNER", "MEMBER", "COLLABORATOR"]\'), github.event.comment.author_association)';
  it("reads the payload's properties, absent ones as an empty string", () => {
    const x = on({ body: '/implement it', author_association: 'OWNER' });
    expect(evaluate('github.event.issue.number', x)).toBe('7');
    expect(evaluate('github.event.issue.pull_request', x)).toBe('');
    expect(evaluate('github.event.comment.user.login', x)).toBe('');
  });
  it.each([
    ['an owner commands on an issue', { body: '/implement it', author_association: 'OWNER' }, {}, 'true'],
    [
      'a collaborator, in any case',
      { body: '/IMPLEMENT it', author_association: 'collaborator' },
      {},
      'true',
    ],
    ['a stranger commands', { body: '/implement it', author_association: 'NONE' }, {}, 'false'],
    ['no command', { body: 'please /implement it', author_association: 'OWNER' }, {}, 'false'],
    [
      'a command on a pull request',
      { body: '/implement it', author_association: 'OWNER' },
      { pull_request: { url: 'u' } },
      'false',
    ],
  ])('when %s, the job runs: %s', (_, comment, issue, runs) => {
    expect(evaluate(gate, on(comment, { number: 7, ...issue })) === 'true' ? 'true' : 'false').toBe(runs);
  });
});

describe('parseWorkflow', () => {
  it.each([
    ['jobs: { a: { runs-on: x, steps: [{ run: y }] } }', 'needs `on:` and `jobs:`'],
    ['on: push\njobs: { a: { steps: [{ run: y }] } }', 'runs-on is required'],
    ['on: push\njobs: { a: { runs-on: x, steps: [{ id: y }] } }', 'a step needs one of uses and run'],
    ['on: push\njobs: { a: { runs-on: x, steps: [{ run: y, ENV: z }] } }', 'unexpected step key ENV'],
    [
      'on: { workflow_dispatch: { task: { description: x } } }\njobs: { a: { runs-on: x, steps: [{ run: y }] } }',
      'on.workflow_dispatch: unexpected key task',
    ],
  ])('refuses %j', (text, message) => {
    expect(() => parseWorkflow(text)).toThrow(message);
  });
});

describe('triggers', () => {
  const event = (name: string, action?: string): WorkflowEvent => ({
    name,
    payload: action ? { action } : {},
    ref: 'refs/heads/main',
  });
  it('runs a workflow on the events its `on:` names, in each of its forms', () => {
    expect(triggers('workflow_dispatch', event('workflow_dispatch'))).toBe(true);
    expect(triggers(['push', 'workflow_dispatch'], event('workflow_dispatch'))).toBe(true);
    expect(triggers({ workflow_dispatch: null }, event('workflow_dispatch'))).toBe(true);
    expect(triggers({ push: null }, event('workflow_dispatch'))).toBe(false);
    expect(triggers({ types: ['opened'] }, event('pull_request_target', 'opened'))).toBe(false);
  });
  it('narrows by `types`, and without them by the default activity types of pull request events', () => {
    const on = { pull_request_target: { types: ['opened'] } };
    expect(triggers(on, event('pull_request_target', 'opened'))).toBe(true);
    expect(triggers(on, event('pull_request_target', 'synchronize'))).toBe(false);
    expect(triggers({ pull_request_target: null }, event('pull_request_target', 'reopened'))).toBe(true);
    expect(triggers({ pull_request_target: null }, event('pull_request_target', 'labeled'))).toBe(false);
    expect(triggers({ issue_comment: { types: ['created'] } }, event('issue_comment', 'created'))).toBe(true);
    expect(triggers({ issue_comment: { types: ['created'] } }, event('issue_comment', 'edited'))).toBe(false);
  });
});

describe('triggers, on a push', () => {
  const push = (on: unknown, ref: string) => triggers(on, { name: 'push', payload: { ref }, ref });
  it('runs a tag filter on tags only, `*` short of a slash, `**` across', () => {
    expect(push({ push: { tags: ['v*.*.*'] } }, 'refs/tags/v1.2.3')).toBe(true);
    expect(push({ push: { tags: ['v*.*.*'] } }, 'refs/tags/v1')).toBe(false);
    expect(push({ push: { tags: ['v*'] } }, 'refs/heads/v1')).toBe(false);
    expect(push({ push: { branches: ['release/*'] } }, 'refs/heads/release/a/b')).toBe(false);
    expect(push({ push: { branches: ['release/**'] } }, 'refs/heads/release/a/b')).toBe(true);
    expect(push({ push: null }, 'refs/tags/anything')).toBe(true);
  });
  it('refuses the filter syntax it does not emulate', () => {
    expect(() => push({ push: { tags: ['v[0-9]+'] } }, 'refs/tags/v1')).toThrow('not emulated');
    expect(() => push({ push: { 'tags-ignore': ['x'] } }, 'refs/tags/v1')).toThrow('not emulated');
  });
});

describe('perimeterAction', () => {
  it('knows the published action and its sub-actions, and local paths in the workspace', () => {
    expect(perimeterAction('OWNER/perimeter@v1')).toEqual({ sub: undefined, local: null });
    expect(perimeterAction('OWNER/perimeter/verify@v1')).toEqual({ sub: 'verify', local: null });
    expect(perimeterAction('./.perimeter-action')).toEqual({ sub: undefined, local: './.perimeter-action' });
    expect(perimeterAction('./verify')).toEqual({ sub: 'verify', local: './verify' });
    expect(perimeterAction('actions/checkout@v5')).toBeNull();
  });
  it('refuses a local action with a ref (it runs the files in the workspace, at no ref)', () => {
    expect(() => perimeterAction('./.perimeter-action@v1')).toThrow('a local action takes no @ref');
  });
});

describe('shellOf', () => {
  it('starts `run:` as bash -e without shell:, and with pipefail for shell: bash', () => {
    expect(shellOf(undefined)).toEqual(['bash', '-e']);
    expect(shellOf('bash')).toEqual(['bash', '--noprofile', '--norc', '-eo', 'pipefail']);
  });
});

describe('jobOutputs', () => {
  describe('when an output holds a masked value', () => {
    it('drops it with the runner warning and keeps the others', () => {
      const warnings: string[] = [];
      const outputs = jobOutputs(
        'implement',
        {
          outputs: {
            url: '${{ fromJSON(steps.perimeter.outputs.endpoints).implementer }}',
            secret: 'x${{ steps.perimeter.outputs.secret }}',
          },
        },
        X,
        ['s3cr3t'],
        warnings,
      );
      expect(outputs).toEqual({ url: 'http://u' });
      expect(warnings).toEqual(["Skip output 'secret' since it may contain secret. (job implement)"]);
    });
  });
});

describe('perimeterEntry', () => {
  it("serves the docs' OWNER/perimeter at any ref by default", () => {
    expect(perimeterEntry('OWNER/perimeter@v1')).toBe('main');
    expect(perimeterEntry('OWNER/perimeter/verify@v1')).toBe('verify');
    expect(perimeterEntry('actions/checkout@v5')).toBeNull();
  });
  describe('when the run names the action (a fork pinned to a commit)', () => {
    const action = `octo-fork/perimeter@${'a'.repeat(40)}`;
    it('serves that repository at that ref, and its sub-actions', () => {
      expect(perimeterEntry(action, action)).toBe('main');
      expect(perimeterEntry(`octo-fork/perimeter/apply@${'a'.repeat(40)}`, action)).toBe('apply');
      expect(perimeterEntry('actions/checkout@v5', action)).toBeNull();
    });
    it('cannot resolve it at another ref, or another Perimeter, as GitHub cannot', () => {
      expect(() => perimeterEntry('octo-fork/perimeter@v1', action)).toThrow('Unable to resolve action');
      expect(() => perimeterEntry(`OWNER/perimeter@${'a'.repeat(40)}`, action)).toThrow('Unable to resolve');
    });
  });
});
