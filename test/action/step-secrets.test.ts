/**
 * Per-step secrets, as a runner runs the action: main hands each perimeter's secret and client configs out
 * as outputs of their own and exports none of them to later steps, unless `export-secrets` asks it to.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { text, type Job } from '@perimeter/test-rigs';
import { jobSuite } from './support/suite.js';

const { started, create } = jobSuite();
const NAMES = ['implementer', 'test-author'] as const;

/** What a later `run:` step sees in its environment, given `env` as its own `env:` block. */
async function laterStepEnv(j: Job, env: Record<string, string> = {}): Promise<string> {
  const step = await j.runner.runShell('env', env);
  expect(step.exitCode, step.stderr).toBe(0);
  return step.stdout;
}

function secretsOf(j: Job): Record<(typeof NAMES)[number], string> {
  const outputs = j.runner.main!.outputs;
  return {
    implementer: outputs['secret-implementer'] ?? '',
    'test-author': outputs['secret-test-author'] ?? '',
  };
}

async function status(url: string, secret: string): Promise<number> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${secret}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  await response.arrayBuffer();
  return response.status;
}

describe('endpoint secrets', { timeout: 120_000 }, () => {
  describe('by default', () => {
    it("give each perimeter its own outputs and no later step any perimeter's secret", async () => {
      const j = await started();
      const main = j.runner.main!;
      const secrets = secretsOf(j);
      const endpoints = JSON.parse(main.outputs.endpoints ?? '{}') as Record<string, string>;
      for (const name of NAMES) {
        expect(secrets[name]).toMatch(/^[A-Za-z0-9_-]{43}$/);
        expect(main.masks).toContain(secrets[name]);
        expect(await status(endpoints[name]!, secrets[name])).toBe(200);
      }
      expect(secrets.implementer).not.toBe(secrets['test-author']);
      expect(await status(endpoints.implementer!, secrets['test-author'])).toBe(401);

      // no secret reaches a later step's environment, nor the variables main used to export
      expect(main.exported).toEqual({});
      const env = await laterStepEnv(j);
      for (const name of NAMES) expect(env).not.toContain(secrets[name]);
      expect(env).not.toMatch(/^PERIMETER_(TOKEN|URL)_/m);

      // each perimeter's configs hold its own endpoint only
      for (const [name, other] of [NAMES, [...NAMES].reverse()] as const) {
        const mcp = readFileSync(main.outputs[`mcp-config-${name}`] ?? '', 'utf8');
        expect(Object.keys((JSON.parse(mcp) as { mcpServers: object }).mcpServers)).toEqual([name]);
        expect(mcp).toContain(secrets[name]);
        expect(mcp).not.toContain(secrets[other]);
        const codex = readFileSync(main.outputs[`codex-config-${name}`] ?? '', 'utf8');
        expect(codex).toContain(`[mcp_servers.${name}]`);
        expect(codex).not.toContain(`[mcp_servers.${other}]`);
      }
      // the file with every perimeter's secrets is not handed out
      expect(main.outputs['mcp-config']).toBe('');

      // the step given its own perimeter's secret, as README's snippets do, holds that one only
      const own = await laterStepEnv(j, { PERIMETER_TOKEN_TEST_AUTHOR: secrets['test-author'] });
      expect(own).toContain(secrets['test-author']);
      expect(own).not.toContain(secrets.implementer);
      const agent = await j.agent('implementer');
      expect(text(await agent.callTool({ name: 'get_file', arguments: { path: 'src/count.ts' } }))).toContain(
        'xs.length',
      );
    });

    it('hand out the one config as mcp-config when one perimeter is exposed', async () => {
      const j = await started({ inputs: { perimeters: 'implementer' } });
      const outputs = j.runner.main!.outputs;
      expect(outputs['mcp-config']).toBe(outputs['mcp-config-implementer']);
      expect(outputs['secret-test-author']).toBeUndefined();
      expect(await laterStepEnv(j)).not.toContain(outputs['secret-implementer']);
    });
  });

  describe('with export-secrets: true', () => {
    it("exports every perimeter's secret and URL to later steps, as before", async () => {
      const j = await started({ inputs: { 'export-secrets': 'true' } });
      const main = j.runner.main!;
      const secrets = secretsOf(j);
      expect(main.exported).toMatchObject({
        PERIMETER_TOKEN_IMPLEMENTER: secrets.implementer,
        PERIMETER_TOKEN_TEST_AUTHOR: secrets['test-author'],
        PERIMETER_URL_IMPLEMENTER: expect.stringMatching(/\/mcp\/implementer$/),
      });
      const env = await laterStepEnv(j);
      for (const name of NAMES) expect(env).toContain(secrets[name]);
      const all = readFileSync(main.outputs['mcp-config'] ?? '', 'utf8');
      for (const name of NAMES) expect(all).toContain(secrets[name]);
    });
  });

  describe('with export-secrets neither true nor false', () => {
    it('fails main with an error naming the input, before any gateway starts', async () => {
      const j = await create({ inputs: { 'export-secrets': 'yes' } });
      const main = await j.main();
      expect(main.exitCode).toBe(1);
      expect(main.log).toContain('export-secrets: expected true or false, got "yes"');
      expect(main.stderr).not.toMatch(/\n\s+at /);
      expect(main.outputs['secret-implementer']).toBeUndefined();
    });
  });
});
