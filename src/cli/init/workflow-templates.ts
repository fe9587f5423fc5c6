import { variableName } from '../../clients/client-config.js';

/**
 * The workflows `perimeter init --workflow` writes, and the ones README and docs/ show: one text for both.
 * test/docs/init-workflows.test.ts renders each kind with `OWNER/perimeter@v1` and `implementer` and requires
 * the block docs mark for it to be exactly that text, so what a page shows and what init writes cannot
 * drift; `npm run test:agents` runs both whole. Pure: the command decides the action and the perimeter.
 */
export const WORKFLOW_KINDS = [
  'claude-code',
  'codex',
  'copilot',
  'agent-sdk',
  'two-job',
  'staged',
  'gate',
] as const;
export type WorkflowKind = (typeof WORKFLOW_KINDS)[number];

export interface WorkflowTemplate {
  /** the file init writes, under the repository root */
  file: string;
  /** the marker of the block README or docs/ show it in (`<!-- agents-test: NAME -->` or `<!-- NAME -->`) */
  marker: string;
  /** what the kind is, for `--help` and init's closing lines */
  about: string;
  /** the model key the agent step reads from the repository's secrets; null when no agent runs */
  secret: string | null;
}

export const TEMPLATES: Record<WorkflowKind, WorkflowTemplate> = {
  'claude-code': {
    file: '.github/workflows/implement.yml',
    marker: 'claude-code',
    about: 'one job, Claude Code CLI',
    secret: 'ANTHROPIC_API_KEY',
  },
  codex: {
    file: '.github/workflows/implement.yml',
    marker: 'codex',
    about: 'one job, Codex CLI',
    secret: 'OPENAI_API_KEY',
  },
  copilot: {
    file: '.github/workflows/implement.yml',
    marker: 'copilot',
    about: 'one job, Copilot CLI',
    secret: 'COPILOT_TOKEN',
  },
  'agent-sdk': {
    file: '.github/workflows/implement.yml',
    marker: 'agent-sdk',
    about: 'one job, Claude Agent SDK',
    secret: 'ANTHROPIC_API_KEY',
  },
  'two-job': {
    file: '.github/workflows/implement.yml',
    marker: 'two-job',
    about: 'Claude Code, and a verify job that posts the receipt',
    secret: 'ANTHROPIC_API_KEY',
  },
  staged: {
    file: '.github/workflows/implement.yml',
    marker: 'staged',
    about: 'Claude Code with a read-only token, and an apply job that writes',
    secret: 'ANTHROPIC_API_KEY',
  },
  gate: {
    file: '.github/workflows/perimeter-pull-requests.yml',
    marker: 'pull-request-gate',
    about: "the pull-request gate for Copilot coding agent's pull requests",
    secret: null,
  },
};

/** The action a workflow uses: `owner/repo` and the ref (a tag, or a commit SHA to pin). */
export interface ActionRef {
  repository: string;
  ref: string;
}

/** What a template is rendered with. */
export interface WorkflowValues {
  action: ActionRef;
  /** the perimeter the agent job exposes (the gate names none: perimeters.yml assigns its pull requests) */
  perimeter: string;
}

const uses = ({ repository, ref }: ActionRef, sub = '') => `${repository}${sub}@${ref}`;

const DISPATCH = [
  'name: implement',
  'on:',
  '  workflow_dispatch:',
  '    inputs:',
  '      task: { description: What to do, required: true }',
  'jobs:',
  '  implement:',
  '    runs-on: ubuntu-latest',
];

/** The agent job's steps up to the agent's own: checkout, the perimeter step, the client's install line. */
function agentSetup(
  v: WorkflowValues,
  extra: string,
  egress: string,
  install: string,
  note: string[] = [],
): string[] {
  return [
    '    steps:',
    '      - uses: actions/checkout@v7',
    '        with: { persist-credentials: false }',
    ...note,
    '      - id: perimeter',
    `        uses: ${uses(v.action)}`,
    `        with: { perimeters: ${v.perimeter}${extra}, isolation: user, agent-egress: ${egress} }`,
    `      - run: ${install}`,
  ];
}

const CLAUDE_INSTALL = 'npm install -g @anthropic-ai/claude-code@2.1.332';

function claudeStep(p: string): string[] {
  return [
    '      - env:',
    '          ANTHROPIC_API_KEY: ${{ secrets.ANTHROPIC_API_KEY }}',
    '          TASK: ${{ inputs.task }}',
    '        run: |',
    '          ${{ steps.perimeter.outputs.run-agent }} claude -p "$TASK" \\',
    `            --mcp-config "\${{ steps.perimeter.outputs.mcp-config-${p} }}" \\`,
    `            --strict-mcp-config --allowedTools mcp__${p}`,
  ];
}

function agentSdkStep(p: string): string[] {
  return [
    '      - env:',
    '          ANTHROPIC_API_KEY: ${{ secrets.ANTHROPIC_API_KEY }}',
    `          MCP_CONFIG: \${{ steps.perimeter.outputs.mcp-config-${p} }}`,
    '          TASK: ${{ inputs.task }}',
    '        run: |',
    "          cat > agent.mjs <<'JS'",
    "          import { readFileSync } from 'node:fs';",
    "          import { query } from '@anthropic-ai/claude-agent-sdk';",
    "          const { mcpServers } = JSON.parse(readFileSync(process.env.MCP_CONFIG, 'utf8'));",
    '          const options = {',
    '            mcpServers,',
    '            strictMcpConfig: true,',
    `            allowedTools: ['mcp__${p}'],`,
    '            cwd: process.cwd(),',
    '          };',
    '          for await (const message of query({ prompt: process.env.TASK, options })) {',
    "            if (message.type === 'result') {",
    '              console.log(message.result);',
    '              if (message.is_error) process.exit(1);',
    '            }',
    '          }',
    '          JS',
    '          ${{ steps.perimeter.outputs.run-agent }} node agent.mjs',
  ];
}

function codexStep(p: string): string[] {
  return [
    '      - env:',
    '          CODEX_API_KEY: ${{ secrets.OPENAI_API_KEY }}',
    `          CODEX_CONFIG: \${{ steps.perimeter.outputs.codex-config-${p} }}`,
    `          ${variableName('TOKEN', p)}: \${{ steps.perimeter.outputs.secret-${p} }}`,
    '          TASK: ${{ inputs.task }}',
    '        run: |',
    "          ${{ steps.perimeter.outputs.run-agent }} bash -ec '",
    '            mkdir -p "$HOME/.codex"',
    '            cat "$CODEX_CONFIG" >> "$HOME/.codex/config.toml"',
    '            codex exec "$TASK"\'',
  ];
}

function copilotStep(p: string): string[] {
  return [
    '      - env:',
    '          COPILOT_GITHUB_TOKEN: ${{ secrets.COPILOT_TOKEN }}',
    '          TASK: ${{ inputs.task }}',
    '        run: |',
    '          ${{ steps.perimeter.outputs.run-agent }} copilot -p "$TASK" \\',
    `            --additional-mcp-config "@\${{ steps.perimeter.outputs.mcp-config-${p} }}" \\`,
    `            --allow-tool ${p}`,
  ];
}

const ONE_JOB = '    permissions: { contents: write, statuses: write }';

/** The workflow of `kind`, as README and docs/ show it (the gate's without its file-name comment). */
export function renderWorkflow(kind: WorkflowKind, v: WorkflowValues): string {
  const p = v.perimeter;
  let lines: string[];
  switch (kind) {
    case 'claude-code':
      lines = [...DISPATCH, ONE_JOB, ...agentSetup(v, '', 'anthropic', CLAUDE_INSTALL), ...claudeStep(p)];
      break;
    case 'agent-sdk':
      lines = [
        ...DISPATCH,
        ONE_JOB,
        ...agentSetup(v, '', 'anthropic', 'npm install @anthropic-ai/claude-agent-sdk@0.3.337'),
        ...agentSdkStep(p),
      ];
      break;
    case 'codex':
      lines = [
        ...DISPATCH,
        ONE_JOB,
        ...agentSetup(v, '', 'openai', 'npm install -g @openai/codex@0.171.0', [
          '      # Codex sandboxes its tools with bubblewrap: install it before this step (sudo apt-get install -y bubblewrap)',
        ]),
        ...codexStep(p),
      ];
      break;
    case 'copilot':
      lines = [
        ...DISPATCH,
        ONE_JOB,
        ...agentSetup(v, '', 'copilot', 'npm install -g @github/copilot@1.0.102'),
        ...copilotStep(p),
      ];
      break;
    case 'two-job':
      lines = [
        ...DISPATCH,
        '    permissions: { contents: write }',
        ...agentSetup(v, ', receipt-by: verify-job', 'anthropic', CLAUDE_INSTALL),
        ...claudeStep(p),
        '  verify:',
        '    needs: implement',
        '    if: always()',
        '    runs-on: ubuntu-latest',
        '    permissions: { contents: write, statuses: write, actions: read }',
        '    steps:',
        `      - uses: ${uses(v.action, '/verify')}`,
        `        with: { agent-job: implement, perimeters: ${p} }`,
      ];
      break;
    case 'staged':
      lines = [
        ...DISPATCH,
        '    permissions: { contents: read }',
        ...agentSetup(v, ', writes: stage', 'anthropic', CLAUDE_INSTALL),
        ...claudeStep(p),
        '  apply:',
        '    needs: implement',
        '    runs-on: ubuntu-latest',
        '    permissions: { contents: write, statuses: write, actions: read }',
        '    steps:',
        `      - uses: ${uses(v.action, '/apply')}`,
        '        with:',
        '          record: perimeter-implement-${{ github.run_attempt }}',
        '          agent-job: implement',
        `          perimeters: ${p}`,
      ];
      break;
    case 'gate':
      lines = [
        'on:',
        '  pull_request_target:',
        '    types: [opened, synchronize, reopened]',
        'permissions: {}',
        'jobs:',
        '  perimeter:',
        '    runs-on: ubuntu-latest',
        '    permissions: { contents: read, statuses: write, pull-requests: read }',
        '    steps:',
        `      - uses: ${uses(v.action, '/verify')}`,
      ];
      break;
  }
  return `${lines.join('\n')}\n`;
}

/**
 * The `pull-requests` rule init gives the perimeter the gate judges Copilot coding agent's pull requests by,
 * as README's gate perimeters.yml names them.
 */
export const COPILOT_PULL_REQUESTS = { authors: ['Copilot'], branches: ['copilot/**'] };
