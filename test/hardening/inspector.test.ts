/**
 * Interoperability with an MCP client nobody here wrote: the MCP Inspector's CLI mode
 * (`@modelcontextprotocol/inspector-cli`, what `npx @modelcontextprotocol/inspector --cli` runs; the
 * `inspector` package itself declares Node >= 22.7.5 from 0.16 on, its CLI package declares no engine and
 * runs on Node 20). It lists the tools of a perimeter endpoint and calls get_file with the bearer header.
 */
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '@perimeter/test-rigs';
import { startStand, type Stand } from './support/stand.js';

const run = promisify(execFile);
const CLI = join(REPO_ROOT, 'node_modules', '@modelcontextprotocol', 'inspector-cli', 'build', 'cli.js');

const CONFIG = `
version: 1
perimeters:
  dev:
    read: ["src/**"]
    write: ["src/**"]
    tools: [get_tree, get_file, push_files]
`;

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

async function inspector(args: string[]): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, '--cli', ...args], {
      // The CLI looks for its package.json relative to the working directory but imports it relative to
      // itself; from its own build directory both agree (standalone, it is not inside the inspector package).
      cwd: dirname(CLI),
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp' },
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

describe('the MCP Inspector CLI against a perimeter endpoint', () => {
  let stand: Stand;
  let url = '';
  let bearer = '';

  beforeAll(async () => {
    stand = await startStand({
      files: { 'src/a.ts': 'export const a = 1;\n', 'docs/hidden.md': 'hidden\n' },
      config: CONFIG,
    });
    url = stand.gateway.endpoints.dev!;
    bearer = `Authorization: Bearer ${stand.secrets.dev}`;
  });
  afterAll(async () => stand.close());

  it('lists exactly the tools the perimeter grants', async () => {
    const result = await inspector([
      url,
      '--transport',
      'http',
      '--header',
      bearer,
      '--method',
      'tools/list',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const listed = JSON.parse(result.stdout) as { tools: Array<{ name: string; inputSchema: object }> };
    expect(listed.tools.map((t) => t.name).sort()).toEqual(['get_file', 'get_tree', 'push_files']);
  });

  it('calls get_file and gets the file', async () => {
    const result = await inspector([
      url,
      '--transport',
      'http',
      '--header',
      bearer,
      '--method',
      'tools/call',
      '--tool-name',
      'get_file',
      '--tool-arg',
      'path=src/a.ts',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const answer = JSON.parse(result.stdout) as { content: Array<{ text: string }>; isError?: boolean };
    expect(answer.isError).toBeFalsy();
    expect(answer.content[0]?.text).toBe('export const a = 1;\n');
  });

  it('gets the same "not found" for a hidden file as for a missing one', async () => {
    const call = (path: string) =>
      inspector([
        url,
        '--transport',
        'http',
        '--header',
        bearer,
        '--method',
        'tools/call',
        '--tool-name',
        'get_file',
        '--tool-arg',
        `path=${path}`,
      ]);
    const hidden = JSON.parse((await call('docs/hidden.md')).stdout) as { content: Array<{ text: string }> };
    const missing = JSON.parse((await call('docs/missing.md')).stdout) as {
      content: Array<{ text: string }>;
    };
    expect(hidden.content[0]?.text).toBe('"docs/hidden.md" not found');
    expect(missing.content[0]?.text).toBe('"docs/missing.md" not found');
  });

  it('is refused without the bearer header', async () => {
    const result = await inspector([url, '--transport', 'http', '--method', 'tools/list']);
    expect(result.code).not.toBe(0);
    expect(result.stdout).not.toContain('get_file');
  });
});
