import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseToml } from 'smol-toml';
import { execFileSync } from 'node:child_process';
import {
  codexConfigToml,
  mcpConfigJson,
  tokenEnvFile,
  tokenVariables,
  writeClientConfigs,
} from '../../src/clients/client-config.js';

const endpoints = [
  { name: 'implementer', url: 'http://127.0.0.1:4100/mcp/implementer', secret: 's1' },
  { name: 'test-author', url: 'http://127.0.0.1:4100/mcp/test-author', secret: 's2' },
];

describe('tokenVariables', () => {
  it('derives one variable per perimeter', () => {
    expect(tokenVariables(['implementer', 'test-author'])).toEqual({
      implementer: 'PERIMETER_TOKEN_IMPLEMENTER',
      'test-author': 'PERIMETER_TOKEN_TEST_AUTHOR',
    });
  });
  describe('when two names map to one variable', () => {
    it('throws naming both', () => {
      expect(() => tokenVariables(['a-b', 'a_b'])).toThrow(
        'perimeters "a-b" and "a_b" both map to PERIMETER_TOKEN_A_B',
      );
    });
  });
});

describe('mcpConfigJson', () => {
  it('is a Claude Code mcpServers document with a bearer header per perimeter', () => {
    expect(JSON.parse(mcpConfigJson(endpoints))).toEqual({
      mcpServers: {
        implementer: { type: 'http', url: endpoints[0]?.url, headers: { Authorization: 'Bearer s1' } },
        'test-author': { type: 'http', url: endpoints[1]?.url, headers: { Authorization: 'Bearer s2' } },
      },
    });
  });
});

describe('codexConfigToml', () => {
  it('names the variable, never the secret', () => {
    const text = codexConfigToml(endpoints, tokenVariables(['implementer', 'test-author']));
    expect(text).not.toContain('s1');
    const server = { default_tools_approval_mode: 'approve', required: true };
    expect(parseToml(text)).toEqual({
      mcp_servers: {
        implementer: {
          url: endpoints[0]?.url,
          bearer_token_env_var: 'PERIMETER_TOKEN_IMPLEMENTER',
          ...server,
        },
        'test-author': {
          url: endpoints[1]?.url,
          bearer_token_env_var: 'PERIMETER_TOKEN_TEST_AUTHOR',
          ...server,
        },
      },
    });
  });

  it('says which variable must reach Codex', () => {
    const text = codexConfigToml(endpoints, tokenVariables(['implementer', 'test-author']));
    expect(text).toContain("# PERIMETER_TOKEN_IMPLEMENTER must be in Codex's environment");
  });
});

describe('writeClientConfigs', () => {
  it('writes owner-only files', () => {
    const dir = mkdtempSync(join(tmpdir(), 'perimeter-client-'));
    const files = writeClientConfigs(dir, endpoints, tokenVariables(['implementer', 'test-author']));
    expect(statSync(files.mcpConfig).mode & 0o777).toBe(0o600);
    expect(readFileSync(files.mcpConfig, 'utf8')).toBe(mcpConfigJson(endpoints));
  });

  it("writes each perimeter's own files, holding its endpoint only", () => {
    const dir = mkdtempSync(join(tmpdir(), 'perimeter-client-'));
    const variables = tokenVariables(['implementer', 'test-author']);
    const files = writeClientConfigs(dir, endpoints, variables);
    expect(Object.keys(files.perimeters)).toEqual(['implementer', 'test-author']);
    for (const endpoint of endpoints) {
      const own = files.perimeters[endpoint.name]!;
      expect(statSync(own.mcpConfig).mode & 0o777).toBe(0o600);
      expect(readFileSync(own.mcpConfig, 'utf8')).toBe(mcpConfigJson([endpoint]));
      expect(readFileSync(own.codexConfig, 'utf8')).toBe(codexConfigToml([endpoint], variables));
    }
  });
});

describe('tokenEnvFile', () => {
  it('assigns each secret to its variable, quoted for the shell whatever it holds', () => {
    const odd = [{ name: 'implementer', url: 'u', secret: `it's $HOME \`x\`` }];
    const dir = mkdtempSync(join(tmpdir(), 'perimeter-client-'));
    const file = join(dir, 'tokens.env');
    writeFileSync(file, tokenEnvFile(odd, tokenVariables(['implementer'])));
    const shown = execFileSync(
      'bash',
      ['-c', `set -a; . "$1"; set +a; printf %s "$PERIMETER_TOKEN_IMPLEMENTER"`, 'sh', file],
      {
        env: { PATH: process.env.PATH ?? '' },
      },
    ).toString();
    expect(shown).toBe(odd[0]!.secret);
  });
});
