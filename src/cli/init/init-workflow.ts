import type { Config } from '../../policy/index.js';
import { UsageError } from '../io.js';
import type { RoleProposal } from './layout.js';
import {
  COPILOT_PULL_REQUESTS,
  renderWorkflow,
  TEMPLATES,
  WORKFLOW_KINDS,
  type ActionRef,
  type WorkflowKind,
} from './workflow-templates.js';

/**
 * `perimeter init --workflow`'s decisions, free of I/O: which perimeter the workflow names (the one init
 * proposes, or the one an existing perimeters.yml has) and the file's text with the header that says what it
 * is and what to do before its first run.
 */
export function parseKind(value: string): WorkflowKind {
  if (!(WORKFLOW_KINDS as readonly string[]).includes(value))
    throw new UsageError(
      `--workflow: expected one of ${WORKFLOW_KINDS.join(', ')}, got ${JSON.stringify(value)}`,
    );
  return value as WorkflowKind;
}

/** The perimeter the proposal's workflow names: the implementer's, else the first role init found. */
export function proposedRole(roles: RoleProposal[]): RoleProposal {
  return roles.find((role) => role.name === 'implementer') ?? roles[0]!;
}

/** The role as the gate needs it: the perimeter Copilot coding agent's pull requests are judged by. */
export function gatedRole(role: RoleProposal): RoleProposal {
  return { ...role, pullRequests: COPILOT_PULL_REQUESTS };
}

/** The perimeters a workflow names in an existing config, or why it has none that fits. */
export function existingPerimeters(
  kind: WorkflowKind,
  config: Config,
): { names: string[] } | { why: string } {
  const names = config.perimeters.map((p) => p.name);
  if (kind === 'gate') {
    const gated = config.perimeters.filter((p) => p.pullRequests !== undefined).map((p) => p.name);
    return gated.length > 0
      ? { names: gated }
      : {
          why:
            `${config.file} assigns no pull requests to a perimeter, so the gate would judge none: add ` +
            '`pull-requests: { authors: [Copilot], branches: ["copilot/**"] }` to the perimeter that judges them',
        };
  }
  if (names.includes('implementer')) return { names: ['implementer'] };
  if (names.length === 1) return { names };
  return {
    why: `${config.file} has no perimeter named implementer and ${names.length} others (${names.join(', ')}): rename the one the agent works in to implementer, or write the workflow by hand`,
  };
}

/** The workflow file's text: a header naming what wrote it and what to do first, then the template. */
export function workflowText(
  kind: WorkflowKind,
  action: ActionRef,
  perimeters: string[],
  configFile: string,
): string {
  const template = TEMPLATES[kind];
  const pinned = /^[0-9a-f]{40}$/.test(action.ref) ? `pinned to commit ${action.ref}` : `at ${action.ref}`;
  const header = [
    `# Written by \`perimeter init --workflow ${kind}\`: ${template.about}.`,
    kind === 'gate'
      ? `# It judges the pull requests ${configFile} assigns to perimeter ${perimeters.join(', ')} (pull-requests:).`
      : `# The agent works in perimeter ${perimeters[0]} of ${configFile}, read from the default branch.`,
    `# The action: ${action.repository}, ${pinned}.`,
    template.secret === null
      ? `# Commit this file and ${configFile} to the default branch.`
      : `# Before the first run: the repository secret ${template.secret}; this file and ${configFile} on the default branch.`,
  ];
  return `${header.join('\n')}\n${renderWorkflow(kind, { action, perimeter: perimeters[0]! })}`;
}

/** What to do after init wrote the workflow, with the commands as the user runs them. */
export function workflowNextSteps(kind: WorkflowKind, file: string, configFile: string): string {
  if (kind === 'gate')
    return `Then commit ${file} and ${configFile} to the default branch: the gate runs on the next pull request Copilot coding agent opens or updates.\n`;
  const secret = TEMPLATES[kind].secret!;
  return (
    `Then add the repository secret ${secret}, commit ${file} and ${configFile} to the default branch, push, ` +
    'and run it on a branch of its own:\n' +
    '  git push origin HEAD:agent/work && gh workflow run implement --ref agent/work -f task="..."\n' +
    "The receipt is the `perimeter` commit status on agent/work and the run's job summary.\n"
  );
}
