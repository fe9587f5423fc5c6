import { rename, writeFile } from 'node:fs/promises';
import { z } from 'zod';
import { makeScrubber } from '../safety/secret-forms.js';
import { createOctokitUpstream } from '../github/octokit-upstream.js';
import { compilePerimeter, parseConfig } from '../policy/index.js';
import { createSecretFilter } from '../safety/index.js';
import { startGateway, type RunningGateway } from './gateway.js';

/** The one JSON document the gateway process reads from stdin. */
export const childConfigSchema = z.strictObject({
  token: z.string().min(1),
  apiUrl: z.string().url(),
  owner: z.string().min(1),
  repo: z.string().min(1),
  branch: z.string().min(1),
  configText: z.string(),
  configFile: z.string().min(1),
  /** the trusted ref configText was read from: agent instruction files are served from it */
  configRef: z.string().min(1).optional(),
  perimeters: z.array(z.string()).min(1),
  secrets: z.record(z.string(), z.string()),
  port: z.number().int().min(0).max(65_535),
  writesPerMinute: z.number().int().min(1).optional(),
  ledgerPath: z.string().min(1),
  ledgerKey: z.string().min(1),
  readyFile: z.string().min(1),
});
export type ChildConfig = z.infer<typeof childConfigSchema>;

const MAX_STDIN_BYTES = 4 * 1_048_576;
const CLOSE_TIMEOUT_MS = 10_000;

/**
 * The gateway as its own process: configuration on stdin (never argv or environment), `{ port, pid }`
 * to the ready file once serving (written whole, by rename), a clean stop on SIGTERM or SIGINT.
 * Output is log lines only, scrubbed of every secret it was given.
 */
export async function runGatewayProcess(): Promise<void> {
  let scrub = (text: string): string => text;
  const log = (line: string): void =>
    void process.stderr.write(`${new Date().toISOString()} ${scrub(line)}\n`);
  let gateway: RunningGateway | null = null;
  let stopping = false;
  const stop = async (why: string, code: number): Promise<void> => {
    if (stopping) return;
    stopping = true;
    log(`stopping: ${why}`);
    setTimeout(() => process.exit(code === 0 ? 1 : code), CLOSE_TIMEOUT_MS).unref();
    await gateway?.close().catch(() => log('the gateway did not close cleanly'));
    process.exit(code);
  };
  process.on('SIGTERM', () => void stop('SIGTERM', 0));
  process.on('SIGINT', () => void stop('SIGINT', 0));
  process.on('uncaughtException', (error) => void stop(`uncaught ${error.name}: ${error.message}`, 1));
  process.on(
    'unhandledRejection',
    (error) => void stop(`unhandled rejection: ${error instanceof Error ? error.message : 'non-error'}`, 1),
  );

  try {
    const config = parseInput(await readStdin());
    scrub = makeScrubber([config.token, config.ledgerKey, ...Object.values(config.secrets)]);
    gateway = await start(config, log);
    const ready = `${config.readyFile}.${process.pid}.tmp`;
    await writeFile(ready, JSON.stringify({ port: gateway.port, pid: process.pid }), { mode: 0o600 });
    await rename(ready, config.readyFile);
    log(
      `serving ${config.owner}/${config.repo}@${config.branch} on ${gateway.url}: ${config.perimeters.join(', ')}`,
    );
  } catch (error) {
    log(`could not start: ${error instanceof Error ? error.message : String(error)}`);
    await stop('start failed', 1);
  }
}

async function start(config: ChildConfig, log: (line: string) => void): Promise<RunningGateway> {
  const parsed = parseConfig(config.configText, config.configFile);
  const perimeters = config.perimeters.map((name) => {
    const spec = parsed.perimeters.find((p) => p.name === name);
    if (!spec) throw new Error(`perimeter "${name}" is not in ${config.configFile}`);
    return compilePerimeter(spec, config.configFile);
  });
  const upstream = createOctokitUpstream({
    token: config.token,
    owner: config.owner,
    repo: config.repo,
    baseUrl: config.apiUrl,
    writesPerMinute: config.writesPerMinute,
  });
  return startGateway({
    upstream,
    branch: config.branch,
    perimeters,
    secrets: config.secrets,
    port: config.port,
    ledger: { path: config.ledgerPath, key: config.ledgerKey },
    filter: createSecretFilter({
      extraSecrets: [config.token, config.ledgerKey, ...Object.values(config.secrets)],
    }),
    log,
    ...(config.configRef !== undefined ? { instructionsRef: config.configRef } : {}),
  });
}

function parseInput(text: string): ChildConfig {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error('standard input is not one JSON document');
  }
  const result = childConfigSchema.safeParse(value);
  if (!result.success) {
    const fields = result.error.issues.map(
      (issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`,
    );
    throw new Error(`invalid configuration on standard input: ${fields.join('; ')}`);
  }
  return result.data;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    size += (chunk as Buffer).length;
    if (size > MAX_STDIN_BYTES) throw new Error(`standard input is larger than ${MAX_STDIN_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
