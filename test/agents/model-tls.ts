/**
 * The scripted model's names and certificate: it answers as the model hosts of README's `agent-egress`
 * presets, over HTTPS on port 443, with a certificate of a test CA (made with openssl when the sandbox starts,
 * test/agents/sandbox.ts). The sandbox maps the names to 127.0.0.1 and adds the CA to the system bundle; the
 * Node-based clients (Claude Code, the Agent SDK, Copilot CLI) read it from NODE_EXTRA_CA_CERTS, which the suite
 * adds to the model route.
 */
import { execFileSync } from 'node:child_process';
import { lookup } from 'node:dns/promises';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The hosts the presets name, which the scripted model answers as: anthropic, openai, copilot. */
export const MODEL_HOSTS = ['api.anthropic.com', 'api.openai.com', 'api.githubcopilot.com'] as const;
/**
 * A server a branch's own `.mcp.json` names (an MCP server of the checkout's, which README's flags keep clients
 * away from), mapped to 127.0.0.1 too and in the certificate: a client that tries it directly (no run-agent)
 * reaches it; through run-agent the egress proxy refuses it, as no preset names it.
 */
export const ROGUE_HOST = 'mcp.rogue.example';
/** The scripted model's port, the presets' (HTTPS). */
export const MODEL_PORT = 443;
/** The variable the sandbox names its directory in (the CA, the model's key and certificate). */
export const TLS_DIR_VARIABLE = 'PERIMETER_AGENTS_SANDBOX';

export interface ModelTls {
  /** the test CA's certificate (PEM), readable by every user */
  ca: string;
  key: string;
  cert: string;
}

const paths = (dir: string): ModelTls => ({
  ca: join(dir, 'ca.pem'),
  key: join(dir, 'model.key'),
  cert: join(dir, 'model.pem'),
});

/** Makes the test CA and the model's certificate for MODEL_HOSTS in `dir`. */
export function makeModelTls(dir: string): ModelTls {
  const out = paths(dir);
  const openssl = (...args: string[]): void => {
    execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  };
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    'ca.key',
    '-out',
    out.ca,
    '-days',
    '2',
    '-subj',
    '/CN=perimeter test model CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  );
  openssl('req', ...ec, '-keyout', out.key, '-out', 'model.csr', '-subj', `/CN=${MODEL_HOSTS[0]}`);
  writeFileSync(
    join(dir, 'model.ext'),
    [
      `subjectAltName=${[...MODEL_HOSTS, ROGUE_HOST].map((host) => `DNS:${host}`).join(',')}`,
      'basicConstraints=critical,CA:FALSE',
      'keyUsage=critical,digitalSignature',
      'extendedKeyUsage=serverAuth',
      '',
    ].join('\n'),
  );
  openssl(
    'x509',
    '-req',
    '-in',
    'model.csr',
    '-CA',
    out.ca,
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    out.cert,
    '-days',
    '2',
    '-extfile',
    'model.ext',
  );
  chmodSync(out.ca, 0o644);
  return out;
}

/**
 * The sandbox's certificate, checked: the suite runs in the sandbox (the names resolve to loopback there), or it
 * says how to start it.
 */
export async function modelTls(): Promise<{ key: string; cert: string; ca: string }> {
  const dir = process.env[TLS_DIR_VARIABLE];
  const how = 'run it with `npm run test:agents` (single cases: `npm run test:agents -- -t NAME`)';
  if (!dir || !existsSync(paths(dir).cert))
    throw new Error(`the real-agent suite runs in its sandbox (test/agents/sandbox.ts): ${how}`);
  for (const host of MODEL_HOSTS) {
    const { address } = await lookup(host);
    if (address !== '127.0.0.1')
      throw new Error(`${host} resolves to ${address}, not the scripted model: ${how}`);
  }
  const file = paths(dir);
  return { key: readFileSync(file.key, 'utf8'), cert: readFileSync(file.cert, 'utf8'), ca: file.ca };
}
