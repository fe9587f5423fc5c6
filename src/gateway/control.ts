import { timingSafeEqual } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';

/** The files post takes over, by name: base64 content. */
export interface HandOver {
  files: Record<string, string>;
}

/** Far above a ledger of a whole session; a directory beyond it is refused, not truncated. */
const MAX_HAND_OVER_BYTES = 256 * 1_048_576;

/**
 * With isolation (the gateway runs as its own user), the post step can neither signal the gateway nor read its
 * directory. It asks here instead: `POST /stop` with the control secret main saved in the runner's state
 * stops the gateway (its calls finish, the ledger is complete), answers with every file of the gateway's
 * directory, and then the process exits. Nothing else is served; a wrong secret is a 401.
 */
export function startControl(options: {
  secret: string;
  dir: string;
  stop: () => Promise<void>;
  exit: () => void;
}): Promise<{ port: number; server: Server }> {
  const expected = Buffer.from(`Bearer ${options.secret}`);
  let stopping = false;
  const server = createServer((req, res) => {
    const given = Buffer.from(req.headers.authorization ?? '');
    const authorized = given.length === expected.length && timingSafeEqual(given, expected);
    if (req.method !== 'POST' || req.url !== '/stop' || !authorized || stopping) {
      res.writeHead(authorized ? 404 : 401).end();
      return;
    }
    stopping = true;
    void (async () => {
      await options.stop();
      const body = JSON.stringify(await readDir(options.dir));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body, () => options.exit());
    })().catch((error: unknown) => {
      res.writeHead(500).end(error instanceof Error ? error.message : 'hand-over failed');
      options.exit();
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve({ port: typeof address === 'object' && address ? address.port : 0, server });
    });
  });
}

async function readDir(dir: string): Promise<HandOver> {
  const files: Record<string, string> = {};
  let total = 0;
  for (const name of await readdir(dir)) {
    const path = join(dir, name);
    if (!(await stat(path)).isFile()) continue;
    const content = await readFile(path);
    total += content.length;
    if (total > MAX_HAND_OVER_BYTES)
      throw new Error(`the gateway's files exceed ${MAX_HAND_OVER_BYTES} bytes`);
    files[name] = content.toString('base64');
  }
  return { files };
}
