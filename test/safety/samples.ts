/**
 * Fake but format-valid secrets, assembled at run time so this repository holds no string that
 * other secret scanners would flag. Each carries FAKE in its body where the format allows.
 */
import { createHash } from 'node:crypto';

/** `length` characters from `alphabet`, deterministic for a seed. */
export function fill(
  seed: string,
  length: number,
  alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789',
): string {
  let out = '';
  for (let round = 0; out.length < length; round++) {
    for (const byte of createHash('sha256').update(`${seed}:${round}`).digest()) {
      out += alphabet[byte % alphabet.length];
    }
  }
  return out.slice(0, length);
}

const j = (...parts: string[]): string => parts.join('');
const ALNUM_UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

function onePasswordToken(): string {
  // the body is base64 of a JSON object ending in `}` alone in the last group, so it ends in `fQ==`
  let json = JSON.stringify({ email: 'fake@example.invalid', secretKey: fill('1p', 60) });
  while (json.length % 3 !== 1) json = json.replace('{', '{ ');
  return j('op', 's_', Buffer.from(json).toString('base64'));
}

function privateKeyBody(seed: string): string {
  const body = j(
    'MII',
    'FAKE',
    fill(seed, 600, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'),
  );
  return body.match(/.{1,64}/g)?.join('\n') ?? body;
}

export function privateKeyBlock(label = 'RSA PRIVATE KEY', seed = 'key'): string {
  return j('-----BEGIN ', label, '-----\n', privateKeyBody(seed), '\n-----END ', label, '-----');
}

/** kind shown when hidden -> a sample of it, as it would sit in a file */
export function providerSamples(): Array<{ kind: string; value: string }> {
  return [
    { kind: 'GitHub token', value: j('gh', 'p_', 'FAKE', fill('ghp', 32)) },
    { kind: 'GitHub token', value: j('gh', 's_', 'FAKE', fill('ghs', 32)) },
    {
      kind: 'GitHub token',
      value: j(
        'github',
        '_pat_',
        'FAKE',
        fill('pat', 78, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_'),
      ),
    },
    { kind: 'AWS access key ID', value: j('AK', 'IA', 'FAKE', fill('aws-id', 12, ALNUM_UPPER)) },
    { kind: 'Slack token', value: j('xo', 'xb-', '1234567890-1234567890123-', 'FAKE', fill('slack', 20)) },
    {
      kind: 'Slack webhook URL',
      value: j('https://hooks.', 'slack.com/services/T', 'FAKE0001/B', 'FAKE0002/', fill('hook', 24)),
    },
    { kind: 'npm token', value: j('np', 'm_', 'FAKE', fill('npm', 32)) },
    { kind: 'SendGrid API key', value: j('S', 'G.', fill('sg1', 22), '.', fill('sg2', 43)) },
    { kind: 'Shopify token', value: j('shp', 'at_', 'FAKE', fill('shop', 28, '0123456789abcdef')) },
    { kind: 'OpenAI API key', value: j('sk-', 'proj-', fill('oa1', 74), 'T3Blbk', 'FJ', fill('oa2', 74)) },
    { kind: 'Anthropic API key', value: j('sk-', 'ant-', 'api03-', 'FAKE', fill('ant', 89), 'AA') },
    { kind: 'Linear API key', value: j('lin_', 'api_', 'FAKE', fill('linear', 36)) },
    { kind: '1Password service account token', value: onePasswordToken() },
    { kind: 'GitLab token', value: j('gl', 'pat-', 'FAKE', fill('gitlab', 16)) },
    { kind: 'Stripe key', value: j('sk', '_live_', 'FAKE', fill('stripe', 24)) },
    { kind: 'Google API key', value: j('AI', 'za', 'FAKE', fill('google', 31)) },
    { kind: 'Hugging Face token', value: j('h', 'f_', 'FAKE', fill('hf', 30)) },
    { kind: 'PyPI token', value: j('pypi-', 'AgE', 'IcHlwaS5vcmc', fill('pypi', 60)) },
    { kind: 'Docker Hub token', value: j('dckr', '_pat_', 'FAKE', fill('docker', 23)) },
    {
      kind: 'JSON Web Token',
      value: j('ey', 'J', fill('jwt1', 20), '.ey', 'J', fill('jwt2', 30), '.', fill('jwt3', 43)),
    },
    { kind: 'private key', value: privateKeyBlock() },
  ];
}

export const sample = {
  github: (seed = 'ghp'): string => j('gh', 'p_', 'FAKE', fill(seed, 32)),
  awsSecret: (): string =>
    j('FAKE', fill('aws-secret', 36, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/+')),
  password: (seed = 'pw'): string => j('Fake', fill(seed, 12), '!9'),
};
