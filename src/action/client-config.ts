import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { claudeMcpConfig } from '../gateway/client-config.js';
import { ENV_PREFIX } from './constants.js';

export interface Endpoint {
  name: string;
  url: string;
  secret: string;
}

/** `PERIMETER_TOKEN_TEST_AUTHOR` for `test-author`. */
export function variableName(kind: 'TOKEN' | 'URL', perimeter: string): string {
  return `${ENV_PREFIX}_${kind}_${perimeter.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/** Throws when two perimeter names map to the same variable (`a-b` and `a_b`). */
export function tokenVariables(names: string[]): Record<string, string> {
  const byVariable = new Map<string, string>();
  const out: Record<string, string> = {};
  for (const name of names) {
    const variable = variableName('TOKEN', name);
    const other = byVariable.get(variable);
    if (other !== undefined) {
      throw new Error(
        `perimeters ${JSON.stringify(other)} and ${JSON.stringify(name)} both map to ${variable}; rename one`,
      );
    }
    byVariable.set(variable, name);
    out[name] = variable;
  }
  return out;
}

/** Claude Code `--mcp-config` (and most MCP clients): the same file `perimeter serve` writes. */
export function mcpConfigJson(endpoints: Endpoint[]): string {
  return claudeMcpConfig(
    Object.fromEntries(endpoints.map((e) => [e.name, { url: e.url, secret: e.secret }])),
  );
}

/**
 * Codex config.toml tables; the secret stays in the environment variable it names.
 * `default_tools_approval_mode = "approve"`: `codex exec` never grants an approval, and Codex asks one for
 * tools it takes as destructive (push_files), so without it every push is refused before it reaches the
 * gateway. The gateway enforces the perimeter itself. `required = true`: a server that cannot start (its
 * variable missing from Codex's environment, say) stops Codex with an error instead of hiding the tools.
 */
export function codexConfigToml(endpoints: Endpoint[], variables: Record<string, string>): string {
  return endpoints
    .map((e) => {
      const key = /^[A-Za-z0-9_-]+$/.test(e.name) ? e.name : JSON.stringify(e.name);
      const variable = variables[e.name] as string;
      return [
        `# ${variable} must be in Codex's environment (the action exports it to later steps of the job).`,
        `[mcp_servers.${key}]`,
        `url = ${JSON.stringify(e.url)}`,
        `bearer_token_env_var = ${JSON.stringify(variable)}`,
        'default_tools_approval_mode = "approve"',
        'required = true',
        '',
      ].join('\n');
    })
    .join('\n');
}

/** Writes both files (owner-only: the MCP config holds the secrets) and returns their paths. */
export function writeClientConfigs(
  dir: string,
  endpoints: Endpoint[],
  variables: Record<string, string>,
): { mcpConfig: string; codexConfig: string } {
  const mcpConfig = join(dir, 'mcp-config.json');
  const codexConfig = join(dir, 'codex-config.toml');
  writeFileSync(mcpConfig, mcpConfigJson(endpoints), { mode: 0o600 });
  writeFileSync(codexConfig, codexConfigToml(endpoints, variables), { mode: 0o600 });
  return { mcpConfig, codexConfig };
}
