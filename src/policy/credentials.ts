import { foldSegment } from './path.js';

/**
 * Files that usually hold credentials. Matched on the file name alone, at any depth, case- and
 * Unicode-insensitively (see foldSegment). Rules are shown to users as written here.
 * Sources beside our own: the file names gitleaks' and trufflehog's rules and GitHub's secret-scanning
 * docs name as credential stores; names that are mostly ordinary configuration (`*.tfvars`,
 * `config.json`) stay readable, their secret-named values are hidden by the content filter.
 */
const EXACT_NAMES: readonly string[] = [
  '.env',
  '.envrc',
  '.netrc',
  '_netrc',
  '.pgpass',
  '.pypirc',
  '.npmrc',
  '.git-credentials',
  '.htpasswd',
  '.s3cfg',
  '.boto',
  '.dockercfg',
  '.vault-token',
  '.terraformrc',
  'terraform.rc',
  'credentials',
  'secring.gpg',
  '.my.cnf',
  '.bash_history',
  '.zsh_history',
  '.psql_history',
  '.mysql_history',
];
/** SSH private keys, also under other names (`id_rsa_github`, `id_ed25519-work`); `.pub` files are public. */
const SSH_KEYS: readonly string[] = ['id_rsa', 'id_dsa', 'id_ecdsa', 'id_ed25519'];
const SUFFIXES: readonly string[] = [
  '.env',
  '.pem',
  '.key',
  '.p12',
  '.pfx',
  '.p8',
  '.jks',
  '.keystore',
  '.kdbx',
  '.ppk',
  '.ovpn',
  '.tfstate',
  '.tfstate.backup',
];
/** Copies that editors and people leave beside a file: `.env~`, `id_rsa.bak`, `.env.orig`. */
const BACKUP_ENDINGS = /(?:~|\.(?:bak|backup|old|orig|save|swp|tmp|copy))+$/;
const ENV_TEMPLATES: ReadonlySet<string> = new Set([
  '.env.example',
  '.env.sample',
  '.env.template',
  '.env.dist',
  '.env-example',
  '.env-sample',
  '.env-template',
  '.env_example',
  '.env_sample',
  '.env_template',
  'example.env',
  'sample.env',
  'template.env',
]);

export const CREDENTIAL_FILE_RULES: readonly string[] = Object.freeze([
  ...EXACT_NAMES,
  '.env.*',
  '.env-*',
  '.env_*',
  ...SSH_KEYS.map((key) => `${key}*`),
  ...SUFFIXES.map((suffix) => `*${suffix}`),
]);

/** A copy of a credential file (`.env~`, `id_rsa.bak`) answers with its original's rule and this mark. */
export const COPY_MARK = ' (a copy)';

const exact = new Set(EXACT_NAMES);

function ruleOfName(name: string): string | null {
  if (exact.has(name)) return name;
  if (ENV_TEMPLATES.has(name)) return null;
  for (const separator of ['.', '-', '_'])
    if (name.startsWith(`.env${separator}`)) return `.env${separator}*`;
  for (const key of SSH_KEYS)
    if (name.startsWith(key) && !name.endsWith('.pub') && !/^[a-z0-9]/.test(name.slice(key.length)))
      return `${key}*`;
  // the longest suffix first: `x.tfstate.backup` is a state backup, not only a backup
  for (const suffix of [...SUFFIXES].sort((a, b) => b.length - a.length))
    if (name.endsWith(suffix) && name.length > suffix.length) return `*${suffix}`;
  return null;
}

/** The credential-file rule matching this path (`.env`, `*.pem`, `id_rsa*`, ...), or null. */
export function credentialFileRule(path: string): string | null {
  const name = foldSegment(path.slice(path.lastIndexOf('/') + 1));
  const direct = ruleOfName(name);
  if (direct !== null) return direct;
  const original = name.replace(BACKUP_ENDINGS, '');
  if (original === name || original === '') return null;
  const rule = ruleOfName(original);
  return rule === null ? null : `${rule}${COPY_MARK}`;
}
