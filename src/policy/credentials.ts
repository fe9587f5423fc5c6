import { foldSegment } from './path.js';

/**
 * Files that usually hold credentials. Matched on the file name alone, at any depth, case- and
 * Unicode-insensitively (see foldSegment). Rules are shown to users as written here.
 */
const EXACT_NAMES: readonly string[] = [
  '.env',
  '.netrc',
  '_netrc',
  '.pgpass',
  '.pypirc',
  '.npmrc',
  '.git-credentials',
  'id_rsa',
  'id_dsa',
  'id_ecdsa',
  'id_ed25519',
  'id_ecdsa_sk',
  'id_ed25519_sk',
];
const SUFFIXES: readonly string[] = [
  '.pem',
  '.key',
  '.p12',
  '.pfx',
  '.jks',
  '.keystore',
  '.kdbx',
  '.ppk',
  '.tfstate',
  '.tfstate.backup',
];
const ENV_TEMPLATES: ReadonlySet<string> = new Set(['.env.example', '.env.sample', '.env.template']);

export const CREDENTIAL_FILE_RULES: readonly string[] = Object.freeze([
  ...EXACT_NAMES,
  '.env.*',
  ...SUFFIXES.map((suffix) => `*${suffix}`),
]);

const exact = new Set(EXACT_NAMES);

const suffixes = new Set(SUFFIXES);

/** The credential-file rule matching this path (`.env`, `*.pem`, `id_rsa`, ...), or null. */
export function credentialFileRule(path: string): string | null {
  const name = foldSegment(path.slice(path.lastIndexOf('/') + 1));
  if (exact.has(name)) return name;
  if (name.startsWith('.env.')) return ENV_TEMPLATES.has(name) ? null : '.env.*';
  const dot = name.lastIndexOf('.');
  if (dot === -1) return null;
  const suffix = name.slice(dot);
  if (suffixes.has(suffix)) return `*${suffix}`;
  if (suffix === '.backup' && name.endsWith('.tfstate.backup')) return '*.tfstate.backup';
  return null;
}
