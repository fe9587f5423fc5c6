import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startFakeGithub } from './server.js';

const USAGE =
  'usage: npm run fake-github -- --port PORT --repo OWNER/NAME=PATH [--repo ...] [--token TOKEN] [--private OWNER/NAME] [--rate-limit N] [--writes-per-minute N] [--actor LOGIN] [--extra-token LOGIN=TOKEN ...]';

function fail(message: string): never {
  process.stderr.write(`fake-github: ${message}\n${USAGE}\n`);
  process.exit(2);
}

async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      options: {
        port: { type: 'string', default: '0' },
        repo: { type: 'string', multiple: true, default: [] },
        token: { type: 'string' },
        private: { type: 'string', multiple: true, default: [] },
        'rate-limit': { type: 'string' },
        'writes-per-minute': { type: 'string' },
        actor: { type: 'string' },
        'extra-token': { type: 'string', multiple: true, default: [] },
      },
      strict: true,
    }).values;
  } catch (error) {
    fail(error instanceof Error ? error.message : String(error));
  }
  const port = Number(parsed.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    fail(`expected --port to be 0..65535, got ${JSON.stringify(parsed.port)}`);
  const repos: Record<string, string> = {};
  for (const spec of parsed.repo) {
    const match = /^([^/=\s]+\/[^/=\s]+)=(.+)$/.exec(spec);
    if (!match) fail(`expected --repo OWNER/NAME=PATH, got ${JSON.stringify(spec)}`);
    repos[match[1]!] = resolve(match[2]!);
  }
  if (Object.keys(repos).length === 0) fail('give at least one --repo OWNER/NAME=PATH');
  for (const name of parsed.private) if (!(name in repos)) fail(`--private ${name} names no --repo`);
  let rateLimit: number | undefined;
  if (parsed['rate-limit'] !== undefined) {
    rateLimit = Number(parsed['rate-limit']);
    if (!Number.isInteger(rateLimit) || rateLimit < 0)
      fail(`expected --rate-limit to be a whole number, got ${JSON.stringify(parsed['rate-limit'])}`);
  }
  let writesPerMinute: number | undefined;
  if (parsed['writes-per-minute'] !== undefined) {
    writesPerMinute = Number(parsed['writes-per-minute']);
    if (!Number.isInteger(writesPerMinute) || writesPerMinute < 1) {
      fail(
        `expected --writes-per-minute to be a positive whole number, got ${JSON.stringify(parsed['writes-per-minute'])}`,
      );
    }
  }
  // Another actor: its token acts as LOGIN over REST and git, and its ref changes are recorded as LOGIN's.
  const extraTokens: Record<string, string> = {};
  for (const spec of parsed['extra-token']) {
    const match = /^([^=\s]+)=(\S+)$/.exec(spec);
    if (!match) fail(`expected --extra-token LOGIN=TOKEN, got ${JSON.stringify(spec)}`);
    if (match[2] === parsed.token || match[2]! in extraTokens)
      fail(`--extra-token ${match[1]}: that token is taken`);
    extraTokens[match[2]!] = match[1]!;
  }
  const gh = await startFakeGithub({
    extraTokens,
    writesPerMinute,
    port,
    repos,
    token: parsed.token,
    private: parsed.private,
    rateLimit,
    actor: parsed.actor,
  });
  process.stdout.write(`fake-github listening on ${gh.url}\n`);
  const stop = (): void => {
    void gh.stop().finally(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((error: unknown) => fail(error instanceof Error ? error.message : String(error)));
