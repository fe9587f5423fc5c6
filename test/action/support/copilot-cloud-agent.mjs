// Plays Copilot cloud agent after its setup steps, as far as MCP goes: reads the repository settings' MCP
// configuration (COPILOT_MCP_CONFIG, the JSON docs/agents.md shows), puts in the COPILOT_MCP_* values it names
// from the environment (those reach only the MCP configuration), and reads the file in argv[2] from each server.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const config = JSON.parse(process.env.COPILOT_MCP_CONFIG ?? '{}');
for (const [name, server] of Object.entries(config.mcpServers ?? {})) {
  const headers = Object.fromEntries(
    Object.entries(server.headers ?? {}).map(([key, value]) => [
      key,
      value.replace(/\$(COPILOT_MCP_\w+)/g, (_, variable) => process.env[variable] ?? ''),
    ]),
  );
  const client = new Client({ name: 'copilot-cloud-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers } }));
  const result = await client.callTool({ name: 'get_file', arguments: { path: process.argv[2] } });
  console.log(`${name}: ${result.content.map((c) => c.text ?? '').join('\n')}`);
  await client.close();
}
