/**
 * createMcpServer's way out for answers: one text for the model, the answer as data in `_meta`, and an
 * answer outside its tool's output schema never leaves (the SDK checked that while tools declared an
 * outputSchema; the gateway checks it itself now that they do not).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ANSWER_META } from '../../src/gateway/serving/answers.js';
import { CallTracker, type CallServices } from '../../src/gateway/serving/calls.js';
import { createMcpServer, type PerimeterRuntime } from '../../src/gateway/serving/mcp-server.js';
import { defineTool, type ToolDefinition } from '../../src/gateway/tools/definition.js';
import { compilePerimeter, parseConfig } from '../../src/policy/index.js';
import { createSecretFilter } from '../../src/safety/index.js';

/** Answers whatever it is given: a tool that can break its own output schema. */
const echo = defineTool({
  name: 'get_tree',
  description: 'echo',
  readOnly: true,
  destructive: false,
  inputSchema: { entries: z.unknown() },
  outputSchema: { entries: z.array(z.object({ path: z.string() })) },
  pathArguments: {},
  handler: async ({ entries }) => ({ structured: { entries } }),
});

const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
});

async function connect(tools: ToolDefinition[], log: string[]): Promise<Client> {
  const config = parseConfig('version: 1\nperimeters:\n  reader:\n    read: ["**"]\n');
  const runtime: PerimeterRuntime = {
    perimeter: compilePerimeter(config.perimeters[0]!),
    repository: 'octo/widgets',
    branch: 'main',
    // the echo tool reads nothing: no repository behind this server
    view: undefined as never,
    history: undefined as never,
    pusher: undefined as never,
    instructions: null,
    conversation: null,
    scopeRequests: { recorded: 0 },
    filter: createSecretFilter(),
    tools,
    log: (line) => log.push(line),
  };
  // no call is begun on this tracker, so it writes no ledger record and needs no services
  const server = createMcpServer(runtime, new CallTracker({} as CallServices));
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(b);
  clients.push(client);
  return client;
}

describe('createMcpServer', () => {
  describe('when an answer fits its output schema', () => {
    it('answers one text, the data in _meta, and no structuredContent', async () => {
      const client = await connect([echo], []);
      const result = (await client.callTool({
        name: 'get_tree',
        arguments: { entries: [{ path: 'a' }] },
      })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      expect(result.content).toEqual([{ type: 'text', text: '{"entries":[{"path":"a"}]}' }]);
      expect(result.structuredContent).toBeUndefined();
      expect(result._meta?.[ANSWER_META]).toEqual({ entries: [{ path: 'a' }] });
    });
  });

  describe('when an answer breaks its output schema', () => {
    it('answers an internal error instead, and logs which tool', async () => {
      const log: string[] = [];
      const client = await connect([echo], log);
      const result = (await client.callTool({
        name: 'get_tree',
        arguments: { entries: 'not a list' },
      })) as CallToolResult;
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result)).not.toContain('not a list');
      expect(result.content).toEqual([
        { type: 'text', text: 'internal error in the gateway; the call did not complete' },
      ]);
      expect(log).toEqual(['internal error: get_tree answered outside its output schema']);
    });
  });
});
