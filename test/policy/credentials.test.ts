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
    ['certs/server.pem', '*.pem'],
    ['server.PEM', '*.pem'],
    ['tls.key', '*.key'],
    ['a.p12', '*.p12'],
    ['a.pfx', '*.pfx'],
    ['release.jks', '*.jks'],
    ['app.keystore', '*.keystore'],
    ['vault.kdbx', '*.kdbx'],
    ['putty.ppk', '*.ppk'],
    ['infra/terraform.tfstate', '*.tfstate'],
    ['terraform.tfstate.backup', '*.tfstate.backup'],
    ['home/.ssh/id_rsa', 'id_rsa'],
    ['id_dsa', 'id_dsa'],
    ['id_ecdsa', 'id_ecdsa'],
    ['ID_ED25519', 'id_ed25519'],
    ['.netrc', '.netrc'],
    ['.pgpass', '.pgpass'],
    ['.pypirc', '.pypirc'],
    ['.npmrc', '.npmrc'],
    ['.git-credentials', '.git-credentials'],
    ['.env.example', null],
    ['.env.sample', null],
    ['.env.template', null],
    ['id_rsa.pub', null],
    ['id_ed25519.pub', null],
    ['src/env.ts', null],
    ['docs/keys.md', null],
    ['keymap.json', null],
    ['.envrc', null],
    ['.env/x', null],
    ['README.md', null],
  ])('when the path is %j', (path, rule) => {
    it(rule === null ? 'is not a credential file' : `is a credential file by ${rule}`, () => {
      expect(credentialFileRule(path)).toBe(rule);
      if (rule !== null) expect(CREDENTIAL_FILE_RULES).toContain(rule);
    });
  });
});
