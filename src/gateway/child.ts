import { rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { makeScrubber } from '../safety/secret-forms.js';
import { assembleGateway, checkConfig, gatewayConfigSchema } from './assemble.js';
import { startControl } from './control.js';
import { EGRESS_RECORD, startEgressProxy } from './serving/egress-proxy.js';
import type { RunningGateway } from './gateway.js';

/** The one JSON document the gateway process reads from stdin: a gateway configuration and its ready file. */
export const childConfigSchema = gatewayConfigSchema.extend({
  /** where `{ port, pid }` is written once the gateway serves */
  readyFile: z.string().min(1),
  // the action always names the perimeters and their secrets: nothing is chosen or made up in the child
  perimeters: z.array(z.string()).min(1),
  secrets: z.record(z.string(), z.string()),
  port: z.number().int().min(0).max(65_535),
  /**
   * with isolation: the secret of the control endpoint post stops the gateway and takes its files over with
   * (src/gateway/control.ts); post runs as a user that can neither signal this process nor read its directory
   */
  controlSecret: z.string().min(32).optional(),
  /**
   * with isolation: the agent's egress proxy (src/gateway/serving/egress-proxy.ts) and the hosts it lets
   * through; its record goes beside the ledger, so post takes it over with it
   */
  egress: z.strictObject({ allow: z.array(z.string().min(1)) }).optional(),
});
export type ChildConfig = z.input<typeof childConfigSchema>;

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
    const { readyFile, controlSecret, egress, ...config } = parseInput(await readStdin());
    scrub = makeScrubber([
      config.token,
      config.ledgerKey,
      ...(controlSecret ? [controlSecret] : []),
      ...Object.values(config.secrets),
    ]);
    gateway = (await assembleGateway(config, { log })).gateway;
    const running = gateway;
    const control = controlSecret
      ? await startControl({
          secret: controlSecret,
          dir: dirname(config.ledgerPath),
          stop: async () => {
            log('stopping: asked by the post step');
            stopping = true;
            await running.close().catch(() => log('the gateway did not close cleanly'));
          },
          exit: () => process.exit(0),
        })
      : null;
    const proxy = egress
      ? await startEgressProxy({
          allow: egress.allow,
          recordPath: join(dirname(config.ledgerPath), EGRESS_RECORD),
        })
      : null;
    const ready = `${readyFile}.${process.pid}.tmp`;
    // port and pid only, which anyone on the machine sees anyway: readable by main's user under isolation
    await writeFile(
      ready,
      JSON.stringify({
        port: gateway.port,
        pid: process.pid,
        ...(control && { controlPort: control.port }),
        ...(proxy && { egressPort: proxy.port }),
      }),
      { mode: 0o644 },
    );
    await rename(ready, readyFile);
    log(
      `serving ${config.owner}/${config.repo}@${config.branch} on ${gateway.url}: ${config.perimeters.join(', ')}`,
    );
  } catch (error) {
    log(`could not start: ${error instanceof Error ? error.message : String(error)}`);
    await stop('start failed', 1);
  }
}

function parseInput(text: string): z.output<typeof childConfigSchema> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error('standard input is not one JSON document');
  }
  return checkConfig(childConfigSchema, value, 'invalid configuration on standard input');
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
