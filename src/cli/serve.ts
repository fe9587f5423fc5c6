import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { claudeMcpConfig, startGateway, type RunningGateway } from '../gateway/index.js';
import { makeScrubber } from '../safety/secret-forms.js';
import { createOctokitUpstream } from '../github/octokit-upstream.js';
import { createSecretFilter } from '../safety/index.js';
import { parseCommandArgs } from './args.js';
import { EXIT_OK, UsageError, type CliIo } from './io.js';
import { loadConfig } from './load-config.js';

export const SERVE_USAGE =
  'perimeter serve --repo OWNER/NAME [--config perimeters.yml] [--branch B] [--port P] [--perimeters a,b] [--token-stdin] [--api-url URL] [--out DIR]';

export interface ServeSettings {
  repo: string;
  config?: string | undefined;
  branch?: string | undefined;
  port: number;
  perimeters?: string[] | undefined;
  token: string;
  apiUrl?: string | undefined;
  out?: string | undefined;
}

export interface Served {
  gateway: RunningGateway;
  mcpConfig: string;
  ledger: string;
  keyFile: string;
}

/** `perimeter serve`: the gateway on this machine until SIGINT or SIGTERM. Token from GITHUB_TOKEN or stdin. */
export async function run(args: string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs(
    args,
    {
      repo: { type: 'string' },
      config: { type: 'string' },
      branch: { type: 'string' },
      port: { type: 'string' },
      perimeters: { type: 'string' },
      'token-stdin': { type: 'boolean' },
      'api-url': { type: 'string' },
      out: { type: 'string' },
    },
    false,
  );
  if (!values.repo) throw new UsageError('--repo OWNER/NAME is required');
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new UsageError(`--port expects 0-65535, got ${JSON.stringify(values.port)}`);
  const token = values['token-stdin']
    ? (await readAll(process.stdin)).trim()
    : (process.env.GITHUB_TOKEN ?? '');
  if (!token)
    throw new UsageError(
      values['token-stdin']
        ? 'standard input held no token'
        : 'no token: set GITHUB_TOKEN or pass --token-stdin',
    );
  const stopped = new Promise<void>((done) => {
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
  const served = await serve(
    {
      repo: values.repo,
      config: values.config,
      branch: values.branch,
      port,
      perimeters: values.perimeters
        ?.split(',')
        .map((p) => p.trim())
        .filter((p) => p !== ''),
      token,
      apiUrl: values['api-url'],
      out: values.out,
    },
    io,
  );
  await stopped;
  io.stderr('stopping the gateway\n');
  await served.gateway.close();
  return EXIT_OK;
}

export async function serve(settings: ServeSettings, io: CliIo): Promise<Served> {
  const [owner, repo, ...rest] = settings.repo.split('/');
  if (!owner || !repo || rest.length > 0)
    throw new UsageError(`--repo expects OWNER/NAME, got ${JSON.stringify(settings.repo)}`);
  const { perimeters: all, configInRepo } = loadConfig(settings.config, io.cwd);
  const upstream = createOctokitUpstream({
    token: settings.token,
    owner,
    repo,
    ...(settings.apiUrl ? { baseUrl: settings.apiUrl } : {}),
  });
  const branch = settings.branch ?? (await upstream.getRepository()).defaultBranch;
  let perimeters = all.filter((p) => p.allowsBranch(branch));
  if (settings.perimeters) {
    const unknown = settings.perimeters.filter((name) => !all.some((p) => p.name === name));
    if (unknown.length > 0)
      throw new UsageError(
        `no perimeter named ${unknown.join(', ')} in ${configInRepo} (it has ${all.map((p) => p.name).join(', ')})`,
      );
    perimeters = all.filter((p) => settings.perimeters!.includes(p.name));
  }
  if (perimeters.length === 0)
    throw new UsageError(`no perimeter of ${configInRepo} may be bound to branch ${branch}`);

  const out = settings.out
    ? resolve(io.cwd, settings.out)
    : await mkdtemp(join(tmpdir(), 'perimeter-serve-'));
  await mkdir(out, { recursive: true, mode: 0o700 });
  const secrets = Object.fromEntries(perimeters.map((p) => [p.name, randomBytes(32).toString('base64url')]));
  const key = randomBytes(32).toString('hex');
  const files = {
    mcpConfig: join(out, 'mcp-config.json'),
    ledger: join(out, 'ledger.jsonl'),
    keyFile: join(out, 'ledger.key'),
  };
  await writeFile(files.keyFile, `${key}\n`, { mode: 0o600 });
  const scrub = makeScrubber([settings.token, key, ...Object.values(secrets)]);
  const gateway = await startGateway({
    upstream,
    branch,
    perimeters,
    secrets,
    port: settings.port,
    ledger: { path: files.ledger, key },
    filter: createSecretFilter({ extraSecrets: [settings.token, key, ...Object.values(secrets)] }),
    log: (line) => io.stderr(`${scrub(line)}\n`),
  });
  const endpoints = Object.fromEntries(
    perimeters.map((p) => [p.name, { url: gateway.endpoints[p.name]!, secret: secrets[p.name]! }]),
  );
  await writeFile(files.mcpConfig, claudeMcpConfig(endpoints), { mode: 0o600 });
  const width = Math.max(...perimeters.map((p) => p.name.length));
  io.stdout(
    [
      `Serving ${owner}/${repo} at branch ${branch}:`,
      ...perimeters.map((p) => `  ${p.name.padEnd(width)}  ${gateway.endpoints[p.name]}`),
      `MCP client config (claude --mcp-config): ${files.mcpConfig}`,
      `Ledger: ${files.ledger}`,
      `Verify it after stopping: perimeter verify-ledger --key-file ${files.keyFile} ${files.ledger}`,
      'Stop with Ctrl-C.',
      '',
    ].join('\n'),
  );
  return { gateway, ...files };
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
