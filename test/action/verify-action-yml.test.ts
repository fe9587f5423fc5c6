/**
 * verify/action.yml and the two-job workflow of docs/verify-job.md: the sub-action declares what the code
 * reads and runs the committed verify bundle, and the page names the agent job to the verify job and gives
 * each job its permissions, the agent job none to post a receipt with.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { JUDGED_INPUTS, VerifyInputs } from '../../src/action/constants.js';
import { REPO_ROOT } from '@perimeter/test-rigs';

const file = join(REPO_ROOT, 'verify', 'action.yml');
const action = parseYaml(readFileSync(file, 'utf8')) as {
  inputs: Record<string, { required?: boolean }>;
  runs: Record<string, string>;
};
const page = readFileSync(join(REPO_ROOT, 'docs', 'verify-job.md'), 'utf8');

interface WorkflowJob {
  needs?: string;
  if?: string;
  permissions?: Record<string, string>;
  outputs?: Record<string, string>;
  steps: Array<{ id?: string; uses?: string; with?: Record<string, string> }>;
}

describe('verify/action.yml', () => {
  it('declares exactly the inputs the verify step reads, none of them required (the gate needs none)', () => {
    expect(Object.keys(action.inputs).sort()).toEqual(
      [...new Set([...Object.values(VerifyInputs), ...JUDGED_INPUTS])].sort(),
    );
    for (const input of Object.values(action.inputs)) expect(input.required).toBeUndefined();
  });

  it('runs the verify bundle on node24, with no post step', () => {
    expect(action.runs).toEqual({ using: 'node24', main: '../dist/verify/index.js' });
    expect(existsSync(join(dirname(file), action.runs.main as string))).toBe(true);
  });
});

describe("docs/verify-job.md's two-job workflow", () => {
  const section = page.split('# The two-job setup: a receipt the agent cannot forge\n')[1] ?? '';
  const block = /```yaml\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  const { jobs } = parseYaml(block) as { jobs: Record<string, WorkflowJob> };

  it('runs a verify job after the agent job, always, naming it and the same perimeters, and nothing else', () => {
    const [agentName, agent] = Object.entries(jobs).find(([, job]) => job.needs === undefined)!;
    const main = agent.steps.find((step) => step.uses?.startsWith('OWNER/perimeter@'))!;
    expect(main.with?.['receipt-by']).toBe('verify-job');
    expect(agent.outputs).toBeUndefined();
    const verify = Object.values(jobs).find((job) => job.needs === agentName)!;
    expect(verify.if).toBe('always()');
    expect(verify.steps).toEqual([
      {
        uses: 'OWNER/perimeter/verify@v1',
        with: { 'agent-job': agentName, perimeters: main.with?.perimeters },
      },
    ]);
  });

  it('gives each job exactly the permissions the page lists', () => {
    const verify = Object.values(jobs).find((job) => job.needs !== undefined)!;
    const agent = Object.values(jobs).find((job) => job.needs === undefined)!;
    expect(agent.permissions).toEqual({ contents: 'write' });
    expect(verify.permissions).toEqual({ contents: 'write', statuses: 'write', actions: 'read' });
  });
});

describe("README's two-job workflow", () => {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const block = /^```yaml\n([\s\S]*?)```/.exec(readme.split('<!-- two-job -->\n')[1] ?? '')?.[1] ?? '';
  const { jobs } = parseYaml(block) as { jobs: Record<string, WorkflowJob> };

  it('gives the agent job nothing to post a receipt with, and the verify job what it needs', () => {
    const [agentName, agent] = Object.entries(jobs).find(([, job]) => job.needs === undefined)!;
    const verify = Object.values(jobs).find((job) => job.needs === agentName)!;
    expect(agent.permissions).toEqual({ contents: 'write' });
    expect(verify.permissions).toEqual({ contents: 'write', statuses: 'write', actions: 'read' });
    const main = agent.steps.find((step) => step.uses === 'OWNER/perimeter@v1')!;
    expect(main.with?.['receipt-by']).toBe('verify-job');
    expect(verify.if).toBe('always()');
    expect(verify.steps).toEqual([
      {
        uses: 'OWNER/perimeter/verify@v1',
        with: { 'agent-job': agentName, perimeters: main.with?.perimeters },
      },
    ]);
  });
});

describe('the staged workflows of README and docs/staged-writes.md', () => {
  const blocks = {
    README: (readme: string) => readme.split('<!-- staged -->\n')[1] ?? '',
    'docs/staged-writes.md': (page: string) => page,
  };
  it.each(Object.entries(blocks))(
    '%s: the agent job may only read; apply writes, posts the receipt and reads GitHub’s record of the job',
    (file, section) => {
      const text = section(readFileSync(join(REPO_ROOT, file === 'README' ? 'README.md' : file), 'utf8'));
      const block = /```yaml\n([\s\S]*?)```/.exec(text)?.[1] ?? '';
      const { jobs } = parseYaml(block) as { jobs: Record<string, WorkflowJob> };
      const [agentName, agent] = Object.entries(jobs).find(([, job]) => job.needs === undefined)!;
      const apply = Object.values(jobs).find((job) => job.needs === agentName)!;
      expect(agent.permissions).toEqual({ contents: 'read' });
      expect(apply.permissions).toEqual({ contents: 'write', statuses: 'write', actions: 'read' });
      const main = agent.steps.find((step) => step.uses === 'OWNER/perimeter@v1')!;
      expect(main.with?.writes).toBe('stage');
      const step = apply.steps.find((s) => s.uses === 'OWNER/perimeter/apply@v1')!;
      // the record's name is the workflow's own (main's default), not an output the agent's job set
      expect(step.with).toMatchObject({
        record: `perimeter-${agentName}-\${{ github.run_attempt }}`,
        'agent-job': agentName,
        perimeters: main.with?.perimeters,
      });
    },
  );
});
