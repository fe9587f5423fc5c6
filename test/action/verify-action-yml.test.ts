/**
 * verify/action.yml and the two-job workflow of docs/verify-job.md: the sub-action declares what the code
 * reads and runs the committed verify bundle, and the page wires the handoff and the permissions the verify
 * job needs.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { VerifyInputs } from '../../src/action/constants.js';
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
  it('declares exactly the inputs the verify step reads, the handoff optional (the pull-request gate has none)', () => {
    expect(Object.keys(action.inputs).sort()).toEqual(Object.values(VerifyInputs).sort());
    expect(action.inputs[VerifyInputs.Handoff]?.required).toBe(false);
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

  it("passes main's handoff to a verify job that always runs after the agent job", () => {
    const [agentName, agent] = Object.entries(jobs).find(([, job]) => job.outputs?.handoff)!;
    const id = agent.steps.find((step) => step.uses?.startsWith('OWNER/perimeter@'))?.id;
    expect(agent.outputs?.handoff).toBe(`\${{ steps.${id}.outputs.handoff }}`);
    expect(agent.steps.find((step) => step.id === id)?.with?.['receipt-by']).toBe('verify-job');
    const verify = Object.values(jobs).find((job) => job.needs === agentName)!;
    expect(verify.if).toBe('always()');
    expect(verify.steps).toEqual([
      { uses: 'OWNER/perimeter/verify@v1', with: { handoff: `\${{ needs.${agentName}.outputs.handoff }}` } },
    ]);
  });

  it('gives each job exactly the permissions the page lists', () => {
    const verify = Object.values(jobs).find((job) => job.needs !== undefined)!;
    const agent = Object.values(jobs).find((job) => job.needs === undefined)!;
    expect(agent.permissions).toEqual({ contents: 'write', statuses: 'write' });
    expect(verify.permissions).toEqual({ contents: 'write', statuses: 'write', actions: 'read' });
  });
});
