/**
 * The agent snippets of README and docs/agents.md, checked in `npm test` (the clients themselves run in `npm run test:agents`):
 * every marked snippet parses, exposes a perimeter, installs exactly the pinned versions and uses only
 * expressions the suite can expand.
 */
import { describe, expect, it } from 'vitest';
import { PINNED } from './clients.js';
import { expand, installLine, pageOf, reachTable, readmeSteps } from './readme-jobs.js';

const SNIPPETS = ['claude-code', 'agent-sdk', 'codex', 'copilot'];
const X = {
  outputs: {
    'mcp-config-implementer': '/m.json',
    'codex-config-implementer': '/c.toml',
    'secret-implementer': 's',
    'workspace-implementer': '/w',
    'workspace-push-implementer': '/push',
    'run-agent': '/run-agent',
  },
  runnerTemp: '/rt',
  secrets: { ANTHROPIC_API_KEY: 'a', OPENAI_API_KEY: 'o', COPILOT_TOKEN: 'c' },
  inputs: { task: 't' },
};

describe("README's and docs/agents.md's agent snippets", () => {
  it.each(SNIPPETS)(
    '%s: checkout without credentials, the perimeter step, a pinned install, a run step',
    (name) => {
      const steps = readmeSteps(name);
      expect(steps[0]).toMatchObject({ uses: 'actions/checkout@v7', with: { 'persist-credentials': false } });
      // the agent runs as its own user: the step's last command starts with run-agent
      expect(
        expand(steps.at(-1)?.run ?? '', X)
          .split('\n')
          .some((line) => line.startsWith('/run-agent ')),
      ).toBe(true);
      expect(steps.filter((s) => s.uses?.includes('/perimeter@'))).toHaveLength(1);
      const installs = steps.filter((s) => s.run !== undefined && installLine(s.run));
      expect(installs).toHaveLength(1);
      const runs = steps.filter((s) => s.run !== undefined && !installLine(s.run));
      expect(runs.length).toBeGreaterThan(0);
      for (const step of runs) {
        expect(() => expand(step.run ?? '', X)).not.toThrow();
        for (const value of Object.values(step.env ?? {}))
          expect(() => expand(String(value), X)).not.toThrow();
      }
    },
  );

  it('install every pinned client between them', () => {
    const pkgs = SNIPPETS.flatMap((name) =>
      readmeSteps(name).flatMap((s) => (s.run !== undefined ? [installLine(s.run)?.pkg] : [])),
    ).filter(Boolean);
    expect(new Set(pkgs)).toEqual(new Set(Object.keys(PINNED)));
  });
});

describe("docs/workspace.md's snippets", () => {
  it.each(['claude-code-workspace', 'codex-workspace'])(
    '%s: no checkout, the perimeter step with a workspace, a pinned install, the agent then the push in it',
    (name) => {
      const steps = readmeSteps(name);
      expect(steps.some((s) => s.uses?.startsWith('actions/checkout@'))).toBe(false);
      const perimeter = steps.filter((s) => s.uses?.includes('/perimeter@'));
      expect(perimeter).toHaveLength(1);
      expect(String(perimeter[0]?.with?.workspace)).toBe('true');
      expect(steps.filter((s) => s.run !== undefined && installLine(s.run))).toHaveLength(1);
      const runs = steps.filter((s) => s.run !== undefined && !installLine(s.run));
      expect(runs).toHaveLength(1);
      expect(expand(runs[0]?.['working-directory'] ?? '', X)).toBe('/w');
      // the push comes last, after the agent, so a refused push fails the step
      expect(
        expand(runs[0]?.run ?? '', X)
          .trim()
          .split('\n')
          .at(-1),
      ).toBe('/push "$TASK"');
      for (const value of Object.values(runs[0]?.env ?? {}))
        expect(() => expand(String(value), X)).not.toThrow();
    },
  );
});

describe('installLine', () => {
  it('refuses a version other than the pinned one', () => {
    expect(() => installLine('npm install -g @openai/codex@0.170.0')).toThrow(
      'README installs @openai/codex@0.170.0, the agents suite pins 0.171.0',
    );
  });
  it('refuses an unpinned package', () => {
    expect(() => installLine('npm install -g @scope/other@1.0.0')).toThrow(
      'which the agents suite does not pin',
    );
  });
});

describe('expand', () => {
  it('refuses an expression the suite cannot expand', () => {
    expect(() => expand('${{ github.token }}', X)).toThrow('unsupported expression ${{ github.token }}');
  });
});

describe('the token table', () => {
  it('names workflows README and docs/ show, each on one page, with yes or no in both columns', () => {
    const table = reachTable();
    expect(table.size).toBeGreaterThanOrEqual(8);
    for (const [snippet, row] of table) {
      expect(() => pageOf(snippet), snippet).not.toThrow();
      expect(['yes', 'no']).toContain(row.token);
      expect(['yes', 'no']).toContain(row.write);
    }
  });
});

describe('pageOf', () => {
  it('finds a block by its marker on the page it moved to', () => {
    expect(pageOf('claude-code')).toBe('README.md');
    expect(pageOf('codex')).toBe('docs/agents.md');
    expect(pageOf('issue-comment')).toBe('docs/conversation.md');
  });
  it('refuses a marker no page has', () => {
    expect(() => pageOf('no-such-workflow')).toThrow('no page of README.md and docs/ has a block marked');
  });
});
