import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { credentialFileRule, CREDENTIAL_FILE_RULES } from '../../src/policy/index.js';

describe('credentialFileRule', () => {
  describe.each([
    ['.env', '.env'],
    ['app/.env', '.env'],
    ['.ENV', '.env'],
    ['.env.local', '.env.*'],
    ['.env.production', '.env.*'],
    ['.env.example.local', '.env.*'],
    ['.env-prod', '.env-*'],
    ['.env_staging', '.env_*'],
    ['prod.env', '*.env'],
    ['config/Production.ENV', '*.env'],
    ['.envrc', '.envrc'],
    ['.env~', '.env (a copy)'],
    ['.env.bak', '.env.*'],
    ['id_rsa.bak', 'id_rsa*'],
    ['server.pem~', '*.pem (a copy)'],
    ['.htpasswd', '.htpasswd'],
    ['certs/server.pem', '*.pem'],
    ['server.PEM', '*.pem'],
    ['tls.key', '*.key'],
    ['a.p12', '*.p12'],
    ['a.pfx', '*.pfx'],
    ['AuthKey_ABC123.p8', '*.p8'],
    ['release.jks', '*.jks'],
    ['app.keystore', '*.keystore'],
    ['vault.kdbx', '*.kdbx'],
    ['putty.ppk', '*.ppk'],
    ['office.ovpn', '*.ovpn'],
    ['infra/terraform.tfstate', '*.tfstate'],
    ['terraform.tfstate.backup', '*.tfstate.backup'],
    ['home/.ssh/id_rsa', 'id_rsa*'],
    ['id_rsa_github', 'id_rsa*'],
    ['id_ed25519-work', 'id_ed25519*'],
    ['id_dsa', 'id_dsa*'],
    ['id_ecdsa', 'id_ecdsa*'],
    ['id_ecdsa_sk', 'id_ecdsa*'],
    ['ID_ED25519', 'id_ed25519*'],
    ['.netrc', '.netrc'],
    ['.pgpass', '.pgpass'],
    ['.pypirc', '.pypirc'],
    ['.npmrc', '.npmrc'],
    ['.git-credentials', '.git-credentials'],
    ['home/.aws/credentials', 'credentials'],
    ['.s3cfg', '.s3cfg'],
    ['.docker/.dockercfg', '.dockercfg'],
    ['.vault-token', '.vault-token'],
    ['.my.cnf', '.my.cnf'],
    ['.bash_history', '.bash_history'],
    ['.env.example', null],
    ['.env.sample', null],
    ['.env.template', null],
    ['.env-example', null],
    ['example.env', null],
    ['id_rsa.pub', null],
    ['id_ed25519.pub', null],
    ['id_rsa_github.pub', null],
    ['id_rsafoo', null],
    ['src/env.ts', null],
    ['docs/keys.md', null],
    ['docs/credentials.md', null],
    ['keymap.json', null],
    ['.env/x', null],
    ['notes.txt~', null],
    ['README.md', null],
  ])('when the path is %j', (path, rule) => {
    it(rule === null ? 'is not a credential file' : `is a credential file by ${rule}`, () => {
      expect(credentialFileRule(path)).toBe(rule);
      if (rule !== null) expect(CREDENTIAL_FILE_RULES).toContain(rule.replace(' (a copy)', ''));
    });
  });
});

describe('CREDENTIAL_FILE_RULES', () => {
  it('are each listed in docs/configuration.md', async () => {
    const page = await readFile(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    const section = page.slice(page.indexOf('**Credential files** are unreadable'));
    for (const rule of CREDENTIAL_FILE_RULES) expect(section, rule).toContain(`\`${rule}\``);
  });
});
