import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { assembleGateway } from '../gateway/assemble.js';
import { tokenEnvFile, tokenVariables, writeClientConfigs, type Endpoint } from '../clients/client-config.js';
import { makeScrubber, MIN_SCRUBBED_LENGTH } from '../safety/secret-forms.js';
import { createOctokitUpstream } from '../github/index.js';
import { ExposureError } from '../policy/index.js';
import { parseCommandArgs, renderHelp, type Flags } from './args.js';
import { EXIT_OK, UsageError, type CliIo } from './io.js';
import { loadConfig } from './load-config.js';

export const SERVE_USAGE =
  'perimeter serve --repo OWNER/NAME [--config perimeters.yml] [--branch B] [--port P] [--perimeters a,b] [--token-stdin] [--api-url URL] [--out DIR]';

export const SERVE_FLAGS = {
  repo: { type: 'string', value: 'OWNER/NAME', help: 'the GitHub repository to serve (required)' },
  config: {
    type: 'string',
    value: 'FILE',
    help: 'the local perimeters file (default perimeters.yml in the current directory)',
  },
  branch: {
    type: 'string',
    value: 'B',
    help: "the branch the endpoints read and push (default: the repository's default branch)",
  },
  port: { type: 'string', value: 'P', help: 'the loopback port to listen on (default: any free port)' },
  perimeters: {
    type: 'string',
    value: 'a,b',
    help: 'the perimeters to expose (default: every one the file defines; each must allow the branch, as in the action)',
  },
  'token-stdin': {
    type: 'boolean',
    help: 'read the GitHub token from standard input instead of GITHUB_TOKEN',
  },
  'api-url': {
    type: 'string',
    value: 'URL',
    help: "GitHub's API (default GITHUB_API_URL, else https://api.github.com)",
  },
  out: {
    type: 'string',
    value: 'DIR',
    help: 'where to write mcp-config.json, codex-config.toml, tokens.env, the ledger and its key (default: a new temporary directory)',
  },
} satisfies Flags;

export const SERVE_HELP = renderHelp({
  usage: SERVE_USAGE,
  about:
    'Runs the MCP gateway on this machine until Ctrl-C, one endpoint per exposed perimeter, with the token from GITHUB_TOKEN (or --token-stdin), and writes the client configs the action writes.',
  flags: SERVE_FLAGS,
  exits: '0 stopped by SIGINT or SIGTERM; 1 the gateway could not start; 2 bad usage.',
});

/**
 * `perimeter serve`: the gateway on this machine until SIGINT or SIGTERM. Token from GITHUB_TOKEN or stdin.
 * The perimeters exposed follow the action's rule (src/policy/establish/exposure.ts).
 */
export async function run(args: string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs(args, SERVE_FLAGS, false);
  if (!values.repo) throw new UsageError('--repo OWNER/NAME is required');
  const [owner, repo, ...rest] = values.repo.split('/');
  if (!owner || !repo || rest.length > 0)
    throw new UsageError(`--repo expects OWNER/NAME, got ${JSON.stringify(values.repo)}`);
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
  // as the action's github-token input: a shorter value could not be scrubbed from what serve prints
  if (token.length < MIN_SCRUBBED_LENGTH)
    throw new UsageError(
      `the token has ${token.length} characters, shorter than any GitHub token (at least ${MIN_SCRUBBED_LENGTH} are required)`,
    );
  const stopped = new Promise<void>((done) => {
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });

  const { text, configInRepo } = loadConfig(values.config, io.cwd);
  const apiUrl = values['api-url'] ?? process.env.GITHUB_API_URL ?? 'https://api.github.com';
  const upstream = createOctokitUpstream({ token, owner, repo, baseUrl: apiUrl });
  const { defaultBranch } = await upstream.getRepository();
  const branch = values.branch ?? defaultBranch;
  const out = values.out ? resolve(io.cwd, values.out) : await mkdtemp(join(tmpdir(), 'perimeter-serve-'));
  await mkdir(out, { recursive: true, mode: 0o700 });
  const ledgerKey = randomBytes(32).toString('hex');
  const files = { ledger: join(out, 'ledger.jsonl'), keyFile: join(out, 'ledger.key') };
  await writeFile(files.keyFile, `${ledgerKey}\n`, { mode: 0o600 });
  let scrub = makeScrubber([token, ledgerKey]);
  const assembled = await assembleGateway(
    {
      token,
      apiUrl,
      owner,
      repo,
      branch,
      defaultBranch,
      configText: text,
      configFile: configInRepo,
      perimeters: values.perimeters
        ?.split(',')
        .map((p) => p.trim())
        .filter((p) => p !== ''),
      port,
      ledgerPath: files.ledger,
      ledgerKey,
    },
    { upstream, log: (line) => io.stderr(`${scrub(line)}\n`) },
  ).catch((error: unknown) => {
    if (!(error instanceof ExposureError)) throw error;
    throw new UsageError(
      `${error.code === 'branch-not-allowed' || error.code === 'default-branch-not-named' ? '--branch' : '--perimeters'}: ${error.message}`,
    );
  });
  const { gateway, perimeters, secrets } = assembled;
  scrub = makeScrubber([token, ledgerKey, ...Object.values(secrets)]);

  const endpoints: Endpoint[] = perimeters.map((p) => ({
    name: p.name,
    url: gateway.endpoints[p.name]!,
    secret: secrets[p.name]!,
  }));
  const variables = tokenVariables(endpoints.map((e) => e.name));
  const configs = writeClientConfigs(out, endpoints, variables);
  const tokensEnv = join(out, 'tokens.env');
  await writeFile(tokensEnv, tokenEnvFile(endpoints, variables), { mode: 0o600 });
  const width = Math.max(...endpoints.map((e) => e.name.length));
  io.stdout(
    [
      `Serving ${owner}/${repo} at branch ${branch}:`,
      ...endpoints.map((e) => `  ${e.name.padEnd(width)}  ${e.url}`),
      `MCP client config (claude --mcp-config, copilot --additional-mcp-config @FILE): ${configs.mcpConfig}`,
      `Codex config.toml tables: ${configs.codexConfig} (its variables: set -a; . ${tokensEnv}; set +a)`,
      `Ledger: ${files.ledger}`,
      `Verify it after stopping: perimeter verify-ledger --key-file ${files.keyFile} ${files.ledger}`,
      'Stop with Ctrl-C.',
      '',
    ].join('\n'),
  );
  await stopped;
  io.stderr('stopping the gateway\n');
  await gateway.close();
  return EXIT_OK;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
