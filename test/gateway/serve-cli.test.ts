import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseToml } from 'smol-toml';
import { seedRepo, startFakeGithub, type FakeGithub } from '@perimeter/fake-github';
import { fakeToken, ok } from '@perimeter/test-rigs';

const MAIN = resolve(import.meta.dirname, '../../src/cli/main.ts');
/** tsx by absolute URL: the command runs in a directory without node_modules. */
const TSX = pathToFileURL(resolve(import.meta.dirname, '../../node_modules/tsx/dist/loader.mjs')).href;

const run = promisify(execFile);

interface McpConfig {
  mcpServers: Record<string, { type: string; url: string; headers: Record<string, string> }>;
}

/** Runs `perimeter serve` until it prints its endpoints, lets `use` talk to it, then stops it with SIGTERM. */
async function serveSession(
  args: string[],
  options: { cwd: string; env: Record<string, string>; stdin?: string },
  use: (stdout: string) => Promise<void>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', TSX, MAIN, 'serve', ...args], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? '', ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin.end(options.stdin ?? '');
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const closed = new Promise<number | null>((done) => child.on('close', done));
  await new Promise<void>((ready, fail) => {
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
      if (stdout.includes('Stop with Ctrl-C.')) ready();
    });
    void closed.then(() => fail(new Error(`serve exited early: ${stderr}`)));
  });
  try {
    await use(stdout);
  } finally {
    child.kill('SIGTERM');
  }
  return { code: await closed, stdout, stderr };
}

describe('perimeter serve', () => {
  let dir: string;
  let fake: FakeGithub;
  const token = fakeToken();

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'perimeter-serve-test-'));
    await seedRepo(join(dir, 'repo.git'), { 'src/a.ts': 'a\n', 'docs/x.md': 'x\n' });
    fake = await startFakeGithub({ repos: { 'octo/cli': join(dir, 'repo.git') }, token });
    await writeFile(
      join(dir, 'perimeters.yml'),
      'version: 1\nperimeters:\n  implementer:\n    read: ["src/**"]\n    write: ["src/**"]\n    branches: ["main"]\n  docs:\n    read: ["docs/**"]\n    write: []\n    branches: ["docs/**"]\n',
    );
  });
  afterAll(async () => {
    await fake.stop();
    await rm(dir, { recursive: true, force: true });
  });

  /** serve run to its end (it is refused before it serves): its exit code and what it printed on stderr. */
  const refused = async (
    args: string[],
    githubToken: string,
  ): Promise<{ code: number | null; stderr: string }> => {
    const child = spawn(process.execPath, ['--import', TSX, MAIN, 'serve', '--repo', 'octo/cli', ...args], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', GITHUB_TOKEN: githubToken },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    return { code: await new Promise<number | null>((done) => child.on('close', done)), stderr };
  };

  it('refuses, by the action rule, to start when a perimeter of the file may not use the branch', async () => {
    const { code, stderr } = await refused(['--api-url', fake.url], token);
    expect(code).toBe(2);
    expect(stderr).toContain(
      'perimeter serve: --branch: branch "main" is not allowed for this perimeter: perimeter "docs" allows branches ["docs/**"]',
    );
    expect(stderr).not.toContain('    at ');
  });

  it('refuses to bind the default branch to a perimeter whose branches do not name it', async () => {
    await writeFile(
      join(dir, 'anywhere.yml'),
      'version: 1\nperimeters:\n  anywhere:\n    read: ["src/**"]\n    write: ["src/**"]\n',
    );
    const { code, stderr } = await refused(['--api-url', fake.url, '--config', 'anywhere.yml'], token);
    expect(code).toBe(2);
    expect(stderr).toContain(
      'perimeter serve: --branch: branch "main" is the repository\'s default branch, and a perimeter may be bound to it only when its branches list names it: perimeter "anywhere" has no branches list',
    );
  });

  it('refuses a token too short to be scrubbed from what it prints', async () => {
    const { code, stderr } = await refused([], 'abc1234');
    expect(code).toBe(2);
    expect(stderr).toContain(
      'the token has 7 characters, shorter than any GitHub token (at least 8 are required)',
    );
    expect(stderr).not.toContain('abc1234');
  });

  it('prints the endpoints, writes client configs that work, and leaves a verifiable ledger', async () => {
    const out = join(dir, 'session');
    let config: McpConfig | undefined;
    const result = await serveSession(
      ['--repo', 'octo/cli', '--api-url', fake.url, '--out', out, '--perimeters', 'implementer'],
      { cwd: dir, env: { GITHUB_TOKEN: token } },
      async (stdout) => {
        expect(stdout).toMatch(/Serving octo\/cli at branch main:/);
        expect(stdout).toMatch(/implementer +http:\/\/127\.0\.0\.1:\d+\/mcp\/implementer/);
        expect(stdout).not.toMatch(/docs +http/);
        config = JSON.parse(await readFile(join(out, 'mcp-config.json'), 'utf8')) as McpConfig;
        const server = config.mcpServers.implementer!;
        expect(server.type).toBe('http');
        const client = new Client({ name: 'cli-test', version: '1' });
        await client.connect(
          new StreamableHTTPClientTransport(new URL(server.url), {
            requestInit: { headers: server.headers },
          }),
        );
        expect(await ok(client, 'get_file', { path: 'src/a.ts' })).toMatchObject({ content: 'a\n' });
        await client.close();
      },
    );
    expect(result.code).toBe(0);
    expect(Object.keys(config!.mcpServers)).toEqual(['implementer']);
    for (const text of [result.stdout, result.stderr]) expect(text).not.toContain(token);

    const codex = parseToml(await readFile(join(out, 'codex-config.toml'), 'utf8')) as {
      mcp_servers: Record<string, { url: string; bearer_token_env_var: string }>;
    };
    expect(codex.mcp_servers.implementer).toMatchObject({
      url: config!.mcpServers.implementer!.url,
      bearer_token_env_var: 'PERIMETER_TOKEN_IMPLEMENTER',
    });
    expect(await readFile(join(out, 'tokens.env'), 'utf8')).toBe(
      `PERIMETER_TOKEN_IMPLEMENTER='${config!.mcpServers.implementer!.headers.Authorization!.slice('Bearer '.length)}'\n`,
    );

    const verify = (): Promise<{ code: number; stdout: string }> =>
      run(
        process.execPath,
        ['--import', TSX, MAIN, 'verify-ledger', '--key-file', 'ledger.key', 'ledger.jsonl'],
        {
          cwd: out,
        },
      ).then(
        ({ stdout }) => ({ code: 0, stdout }),
        (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
      );
    expect(await verify()).toMatchObject({ code: 0, stdout: expect.stringMatching(/ok, 3 records/) });
    const ledger = await readFile(join(out, 'ledger.jsonl'), 'utf8');
    await writeFile(join(out, 'ledger.jsonl'), ledger.replace('"allowed"', '"refused"'));
    expect(await verify()).toMatchObject({
      code: 1,
      stdout: expect.stringMatching(/BROKEN at record 2 of 3/),
    });
  });

  it('takes the token from stdin with --token-stdin', async () => {
    const result = await serveSession(
      [
        '--repo',
        'octo/cli',
        '--api-url',
        fake.url,
        '--token-stdin',
        '--perimeters',
        'implementer',
        '--branch',
        'main',
        '--out',
        dir,
      ],
      { cwd: dir, env: {}, stdin: `${token}\n` },
      async (stdout) => expect(stdout).toMatch(/implementer +http/),
    );
    expect(result.code).toBe(0);
  });
});
