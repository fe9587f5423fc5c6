/** Claude Code's `--mcp-config` JSON (Copilot's agent reads the same shape): one HTTP server per endpoint. */
export function claudeMcpConfig(endpoints: Record<string, { url: string; secret: string }>): string {
  const mcpServers = Object.fromEntries(
    Object.entries(endpoints).map(([name, { url, secret }]) => [
      name,
      { type: 'http', url, headers: { Authorization: `Bearer ${secret}` } },
    ]),
  );
  return `${JSON.stringify({ mcpServers }, null, 2)}\n`;
}
