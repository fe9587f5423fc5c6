/**
 * verify/action.yml, the two-job workflow of docs/verify-job.md and the staged one of docs/staged-writes.md:
 * the sub-action declares what the code reads and runs the committed verify bundle, and the pages name the
 * agent job to the later job and give each job its permissions, the agent job none to post a receipt with.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { JUDGED_INPUTS, VerifyInputs } from '../../src/action/constants.js';
import { REPO_ROOT } from '@perimeter/test-rigs';
import { readmeWorkflow } from '../agents/readme-jobs.js';

const file = join(REPO_ROOT, 'verify', 'action.yml');
const action = parseYaml(readFileSync(file, 'utf8')) as {
  inputs: Record<string, { required?: boolean }>;
  runs: Record<string, string>;
};

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
  const { jobs } = parseYaml(readmeWorkflow('two-job', 'docs/verify-job.md')) as {
    jobs: Record<string, WorkflowJob>;
  };

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

  it('gives the agent job nothing to post a receipt with, and the verify job what it needs', () => {
    const verify = Object.values(jobs).find((job) => job.needs !== undefined)!;
    const agent = Object.values(jobs).find((job) => job.needs === undefined)!;
    expect(agent.permissions).toEqual({ contents: 'write' });
    expect(verify.permissions).toEqual({ contents: 'write', statuses: 'write', actions: 'read' });
  });
});

describe("docs/staged-writes.md's staged workflow", () => {
  it('the agent job may only read; apply writes, posts the receipt and reads GitHub’s record of the job', () => {
    const { jobs } = parseYaml(readmeWorkflow('staged', 'docs/staged-writes.md')) as {
      jobs: Record<string, WorkflowJob>;
    };
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
  });
});
