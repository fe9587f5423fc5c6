/**
 * Fake but format-valid secrets, assembled at run time so this repository holds no string that
 * other secret scanners would flag. Each carries FAKE in its body where the format allows.
 */
import { createHash, generateKeyPairSync } from 'node:crypto';

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
    ...roundTwoSamples(),
  ];
}

const HEX = '0123456789abcdef';
const LOWER_ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789';
const BECH32 = 'QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L';

/** The provider formats added from gitleaks' and trufflehog's lists (src/safety/provider-formats.ts). */
function roundTwoSamples(): Array<{ kind: string; value: string }> {
  return [
    { kind: 'Stripe webhook secret', value: j('wh', 'sec_', 'FAKE', fill('whsec', 32)) },
    { kind: 'Telegram bot token', value: j('1234', '56789:AA', 'FAKE', fill('tg', 29)) },
    { kind: 'Groq API key', value: j('gs', 'k_', 'FAKE', fill('groq', 48)) },
    { kind: 'xAI API key', value: j('xa', 'i-', 'FAKE', fill('xai', 76)) },
    { kind: 'Perplexity API key', value: j('pp', 'lx-', 'FAKE', fill('pplx', 44)) },
    { kind: 'Replicate token', value: j('r', '8_', 'FAKE', fill('r8', 33)) },
    { kind: 'LangSmith API key', value: j('lsv2', '_pt_', fill('ls1', 32, HEX), '_', fill('ls2', 10, HEX)) },
    { kind: 'Google OAuth client secret', value: j('GOC', 'SPX-', 'FAKE', fill('gocspx', 24)) },
    { kind: 'RubyGems API key', value: j('ruby', 'gems_', fill('gem', 48, HEX)) },
    { kind: 'Clojars token', value: j('CLO', 'JARS_', fill('clj', 60, LOWER_ALNUM)) },
    { kind: 'Artifactory token', value: j('AK', 'Cp', 'FAKE', fill('art', 65)) },
    { kind: 'Slack token', value: j('xa', 'pp-1-', 'A0FAKE', '-1234567890-', fill('xapp', 40, HEX)) },
    {
      kind: 'Discord webhook URL',
      value: j('https://discord.com/api/', 'webhooks/', '123456789012345678/', 'FAKE', fill('dw', 64)),
    },
    { kind: 'Twilio API key', value: j('S', 'K', fill('twilio', 32, HEX)) },
    { kind: 'Mailchimp API key', value: j(fill('mc', 32, HEX), '-u', 's12') },
    { kind: 'Atlassian API token', value: j('ATA', 'TT3', 'FAKE', fill('atl', 182)) },
    { kind: 'Azure AD client secret', value: j('abc', '8Q', '~', 'FAKE', fill('azure', 30)) },
    { kind: 'Alibaba Cloud access key ID', value: j('LT', 'AI', 'FAKE', fill('ali', 16)) },
    { kind: 'DigitalOcean token', value: j('do', 'p_v1_', fill('do', 64, HEX)) },
    { kind: 'Databricks token', value: j('da', 'pi', fill('dbx', 32, HEX)) },
    { kind: 'Doppler token', value: j('dp', '.pt.', 'FAKE', fill('doppler', 39)) },
    { kind: 'HashiCorp Vault token', value: j('hv', 's.', 'FAKE', fill('vault', 92)) },
    { kind: 'Terraform Cloud token', value: j(fill('tfc', 14), '.atlas', 'v1.', 'FAKE', fill('tfc2', 62)) },
    { kind: 'Pulumi token', value: j('pu', 'l-', fill('pulumi', 40, HEX)) },
    { kind: 'Heroku API key', value: j('HR', 'KU-AA', 'FAKE', fill('heroku', 54)) },
    { kind: 'Fly.io token', value: j('fo', '1_', 'FAKE', fill('fly', 39)) },
    { kind: 'Grafana token', value: j('gl', 'sa_', fill('graf', 32), '_', fill('graf2', 8, HEX)) },
    { kind: 'Sentry token', value: j('sntr', 'yu_', fill('sentry', 64, HEX)) },
    { kind: 'New Relic key', value: j('NR', 'AK-', 'FAKE', fill('nr', 23, ALNUM_UPPER)) },
    { kind: 'Dynatrace token', value: j('dt0', 'c01.', fill('dt1', 24, ALNUM_UPPER), '.', fill('dt2', 64)) },
    { kind: 'Postman API key', value: j('PM', 'AK-', fill('pm1', 24, HEX), '-', fill('pm2', 34, HEX)) },
    { kind: 'Notion token', value: j('nt', 'n_', '12345678901', 'FAKE', fill('notion', 31)) },
    { kind: 'PlanetScale token', value: j('pscale', '_tkn_', 'FAKE', fill('ps', 40)) },
    { kind: 'Supabase key', value: j('sb', 'p_', fill('supa', 40, HEX)) },
    { kind: 'Prefect API key', value: j('pn', 'u_', 'FAKE', fill('prefect', 32)) },
    { kind: 'ReadMe API key', value: j('rd', 'me_', fill('readme', 70, LOWER_ALNUM)) },
    { kind: 'Scalingo token', value: j('tk-', 'us-', 'FAKE', fill('scalingo', 44)) },
    { kind: 'Tailscale key', value: j('tskey', '-auth-', 'kFAKE1', '-', fill('ts', 30)) },
    { kind: 'Typeform token', value: j('tf', 'p_', 'FAKE', fill('tf', 55)) },
    { kind: 'Shippo token', value: j('shippo', '_live_', fill('shippo', 40, HEX)) },
    { kind: 'Square token', value: j('sq0', 'csp-', 'FAKE', fill('square', 39)) },
    { kind: 'Flutterwave key', value: j('FLW', 'SECK_TEST-', fill('flw', 32, 'abcdefgh0123456789'), '-X') },
    { kind: 'Duffel token', value: j('duffel', '_test_', 'FAKE', fill('duffel', 39)) },
    { kind: 'EasyPost API key', value: j('EZ', 'AK', 'FAKE', fill('easypost', 50)) },
    { kind: 'Facebook access token', value: j('EA', 'AC', 'FAKE', fill('fb', 120)) },
    { kind: 'Mapbox secret token', value: j('sk', '.eyJ', fill('mb1', 60), '.', fill('mb2', 22)) },
    { kind: 'Age secret key', value: j('AGE-', 'SECRET-KEY-1', fill('age', 58, BECH32)) },
    {
      kind: 'Cloudflare origin CA key',
      value: j('v1', '.0-', fill('cf1', 24, HEX), '-', fill('cf2', 146, HEX)),
    },
    {
      kind: 'Discord bot token',
      value: j('MTA', 'FAKE', fill('disc1', 20), '.', fill('disc2', 6), '.', fill('disc3', 38)),
    },
  ];
}

export const sample = {
  github: (seed = 'ghp'): string => j('gh', 'p_', 'FAKE', fill(seed, 32)),
  awsSecret: (): string =>
    j('FAKE', fill('aws-secret', 36, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/+')),
  password: (seed = 'pw'): string => j('Fake', fill(seed, 12), '!9'),
};

/** A PEM's body: the base64 lines between its BEGIN and END lines. */
export function pemBody(pem: string): string {
  return pem
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('-----'))
    .join('\n');
}

/**
 * Bodies of real private keys without their BEGIN and END lines, generated at run time (nothing stored in
 * the repository), and public bodies of the same keys, which must stay visible.
 */
export function pemBodies(): { private: Record<string, string>; public: Record<string, string> } {
  const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 });
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const ed = generateKeyPairSync('ed25519');
  const pem = (key: { export(options: object): string | Buffer }, type: string): string =>
    pemBody(key.export({ type, format: 'pem' }).toString());
  return {
    private: {
      'PKCS#8 (RSA)': pem(rsa.privateKey, 'pkcs8'),
      'PKCS#1 (RSA)': pem(rsa.privateKey, 'pkcs1'),
      'SEC1 (EC)': pem(ec.privateKey, 'sec1'),
      'PKCS#8 (Ed25519)': pem(ed.privateKey, 'pkcs8'),
    },
    public: {
      'SPKI (RSA)': pem(rsa.publicKey, 'spki'),
      'PKCS#1 (RSA public)': pem(rsa.publicKey, 'pkcs1'),
    },
  };
}
