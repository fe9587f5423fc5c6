/**
 * The endpoint-secrets input, as a runner runs the action: a committed MCP config names the gateway with a
 * fixed port and a secret from the repository's secrets, so both must be what main hands out.
 */
import { createServer } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { actionDir, FILES, Job, REPO_ROOT, text, type JobOptions } from '@perimeter/test-rigs';
import { jobSuite } from './support/suite.js';
import { readmeJson, readmeWorkflow } from '../agents/readme-jobs.js';
import { parseWorkflow, runWorkflow } from '../agents/workflow-runner.js';

const AGENTS_PAGE = 'docs/agents.md';
const IMPLEMENTER_SECRET = 'Implementer-fixed-secret-0123456789abcdef';
const TESTER_SECRET = 'Test-author-fixed-secret-0123456789abcdef';
const COPILOT = join(REPO_ROOT, 'test/action/support/copilot-cloud-agent.mjs');

const suite = jobSuite();
const job = (inputs: Record<string, string>, options: Partial<JobOptions> = {}): Promise<Job> =>
  suite.create({ inputs, ...options });

/** A port nothing listens on right now (the gateway binds it a moment later). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function callGetFile(url: string, secret: string, path: string): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${secret}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'get_file', arguments: { path } },
    }),
  });
}

describe('the endpoint-secrets input', { timeout: 120_000 }, () => {
  describe('when a committed config names a fixed port and secret', () => {
    it('serves that perimeter on them, masks the secret and gives the other perimeter a random one', async () => {
      const port = await freePort();
      const j = await job({ port: String(port), 'endpoint-secrets': `implementer=${IMPLEMENTER_SECRET}\n` });
      const main = await j.main();
      expect(main.exitCode, main.log + main.stderr).toBe(0);

      const url = `http://127.0.0.1:${port}/mcp/implementer`;
      expect(JSON.parse(main.outputs.endpoints ?? '{}')).toMatchObject({ implementer: url });
      expect(main.masks).toContain(IMPLEMENTER_SECRET);
      expect(main.log).not.toContain(IMPLEMENTER_SECRET);
      expect(main.outputs['secret-implementer']).toBe(IMPLEMENTER_SECRET);
      const other = main.outputs['secret-test-author'] ?? '';
      expect(other).toMatch(/^[A-Za-z0-9_-]{43}$/);

      const config = JSON.parse(readFileSync(main.outputs['mcp-config-implementer'] ?? '', 'utf8')) as {
        mcpServers: Record<string, { url: string; headers: Record<string, string> }>;
      };
      expect(config.mcpServers.implementer).toEqual({
        type: 'http',
        url,
        headers: { Authorization: `Bearer ${IMPLEMENTER_SECRET}` },
      });

      const read = await callGetFile(url, IMPLEMENTER_SECRET, 'src/count.ts');
      expect(read.status).toBe(200);
      expect(await read.text()).toContain('export const count');
      expect((await callGetFile(url, TESTER_SECRET, 'src/count.ts')).status).toBe(401);

      const agent = await j.agent('implementer');
      expect(text(await agent.callTool({ name: 'get_file', arguments: { path: 'README.md' } }))).toContain(
        '# widgets',
      );
      const post = await j.post();
      expect(post.exitCode, post.log).toBe(0);
      expect((await j.statuses(await j.head()))[0]?.state).toBe('success');
    });
  });

  describe('when a secret is bad', () => {
    it.each([
      [`implementer=${IMPLEMENTER_SECRET.slice(0, 31)}`, 'has 31 characters; at least 32 are required'],
      [
        `implementer=${IMPLEMENTER_SECRET}\ntest-author=${IMPLEMENTER_SECRET}`,
        '"implementer" and "test-author" have the same secret',
      ],
    ])('fails main before any gateway starts, never printing it (%#)', async (value, message) => {
      const j = await job({ 'endpoint-secrets': value });
      const main = await j.main();
      expect(main.exitCode).toBe(1);
      expect(main.annotations.map((a) => a.message)).toEqual([expect.stringContaining(message)]);
      expect(main.stdout + main.stderr).not.toContain(IMPLEMENTER_SECRET.slice(0, 31));
      expect(main.state.gatewayPid).toBeUndefined();
    });

    it('fails main when it names a perimeter the step does not expose', async () => {
      const j = await job({
        perimeters: 'test-author',
        'endpoint-secrets': `implementer=${IMPLEMENTER_SECRET}`,
      });
      const main = await j.main();
      expect(main.exitCode).toBe(1);
      expect(main.annotations.map((a) => a.message)).toEqual([
        'endpoint-secrets: "implementer" not exposed by this step (exposed: test-author)',
      ]);
      expect(main.state.gatewayPid).toBeUndefined();
      expect(main.masks).toContain(IMPLEMENTER_SECRET);
      expect(main.log + main.stderr).not.toContain(IMPLEMENTER_SECRET);
    });
  });
});

describe("docs/agents.md's Copilot coding agent setup", { timeout: 180_000 }, () => {
  it('runs whole: the setup job starts the gateway, and Copilot connects from the settings JSON', async () => {
    const port = String(await freePort());
    const secret = 'Copilot-mcp-secret-0123456789abcdefghij';
    const withPort = (text: string) => text.replaceAll('41234', port);
    const workflow = parseWorkflow(withPort(readmeWorkflow('copilot-coding-agent', AGENTS_PAGE)));
    // after the setup steps, Copilot: the test's one addition to the job
    const [job] = Object.values(workflow.jobs!);
    job!.steps!.push({ name: 'Copilot', run: `node '${COPILOT}' src/count.ts` });
    const run = await runWorkflow(workflow, {
      actionDir: await actionDir(),
      files: FILES,
      inputs: {},
      // an Agents secret reaches every step as an environment variable, never through `secrets`; the
      // COPILOT_MCP_ one reaches only the MCP configuration, which Copilot reads
      secrets: {},
      agentEnv: (_job, step) => ({
        PERIMETER_SECRET: secret,
        ...(step.name === 'Copilot' && {
          COPILOT_MCP_PERIMETER_SECRET: secret,
          COPILOT_MCP_CONFIG: withPort(JSON.stringify(readmeJson('copilot-coding-agent-mcp', AGENTS_PAGE))),
        }),
      }),
    });
    try {
      const report = run.steps.map((s) => `${s.name}: ${s.outcome}\n${s.log}`).join('\n');
      expect(run.results, report).toEqual({ 'copilot-setup-steps': 'success' });
      expect(run.steps.find((s) => s.name === 'Copilot')?.log, report).toContain(
        'implementer: export const count',
      );
      expect(run.standIn.runner.jobMasks).toContain(secret);
      // with contents: read post cannot create its end marker: its own context says error, never `perimeter`
      const statuses = await run.standIn.statuses(await run.standIn.head(), run.observer);
      expect(new Set(statuses.map((s) => s.context)), report).toEqual(new Set(['perimeter/setup-steps']));
      expect(statuses[0]?.state, report).toBe('error');
      expect(statuses[0]?.description).toContain('end marker could not be created');
    } finally {
      await run.standIn.close();
    }
  });
});
