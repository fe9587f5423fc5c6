import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Every MCP client configuration the gateway's endpoints are handed out in, for the action and for
 * `perimeter serve` alike: Claude Code's JSON (which the Copilot CLI reads too) and Codex's TOML.
 */

/** Prefix of the variables carrying endpoint secrets and URLs: `PERIMETER_TOKEN_IMPLEMENTER`. */
export const ENV_PREFIX = 'PERIMETER';

export interface Endpoint {
  name: string;
  url: string;
  secret: string;
}

export interface ClientConfigFiles {
  /** Claude Code `--mcp-config` (Copilot CLI `--additional-mcp-config @FILE`): holds the secrets */
  mcpConfig: string;
  /** Codex `config.toml` tables: name the variables holding the secrets */
  codexConfig: string;
}

export interface ClientConfigs extends ClientConfigFiles {
  /** perimeter name -> the same files with that perimeter's endpoint only */
  perimeters: Record<string, ClientConfigFiles>;
}

/** `PERIMETER_TOKEN_TEST_AUTHOR` for `test-author`. */
export function variableName(kind: 'TOKEN' | 'URL' | 'WORKSPACE', perimeter: string): string {
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

/** Claude Code's `--mcp-config` JSON (the Copilot CLI reads the same shape): one HTTP server per endpoint. */
export function mcpConfigJson(endpoints: Endpoint[]): string {
  const mcpServers = Object.fromEntries(
    endpoints.map(({ name, url, secret }) => [
      name,
      { type: 'http', url, headers: { Authorization: `Bearer ${secret}` } },
    ]),
  );
  return `${JSON.stringify({ mcpServers }, null, 2)}\n`;
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
        `# ${variable} must be in Codex's environment: the bearer secret of ${e.name}'s endpoint.`,
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

/** The variables Codex reads the secrets from, as shell assignments (`set -a; . FILE; set +a`). */
export function tokenEnvFile(endpoints: Endpoint[], variables: Record<string, string>): string {
  return endpoints.map((e) => `${variables[e.name] as string}=${shellQuote(e.secret)}\n`).join('');
}

/**
 * Writes every client form, for all endpoints together and for each alone (owner-only: the MCP configs hold
 * the secrets), and returns their paths.
 */
export function writeClientConfigs(
  dir: string,
  endpoints: Endpoint[],
  variables: Record<string, string>,
): ClientConfigs {
  const write = (suffix: string, some: Endpoint[]): ClientConfigFiles => {
    const files = {
      mcpConfig: join(dir, `mcp-config${suffix}.json`),
      codexConfig: join(dir, `codex-config${suffix}.toml`),
    };
    writeFileSync(files.mcpConfig, mcpConfigJson(some), { mode: 0o600 });
    writeFileSync(files.codexConfig, codexConfigToml(some, variables), { mode: 0o600 });
    return files;
  };
  const perimeters = Object.fromEntries(endpoints.map((e) => [e.name, write(`-${e.name}`, [e])]));
  return { ...write('', endpoints), perimeters };
}

/** A word for sh, quoted only when it needs to be. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
