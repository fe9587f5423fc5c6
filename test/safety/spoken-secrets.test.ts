import { describe, expect, it } from 'vitest';
import { createSecretFilter } from '../../src/safety/index.js';

const filter = createSecretFilter();
const redact = async (text: string) => (await filter.redact(text)).text;

describe('secrets said in prose', () => {
  it.each([
    ['The password is hunter2hunter2.', 'The password is [hidden: password].'],
    [
      'the password for the admin account is "Tr0ub4dor&3"',
      'the password for the admin account is "[hidden: password]"',
    ],
    ['Our API key is sk3y-9f8e7d6c5b', 'Our API key is [hidden: API key]'],
    ['The token was: zQ81kd02mM1p', 'The token was: [hidden: token]'],
    ['Passphrase is `correct-horse-battery-42`', 'Passphrase is `[hidden: password]`'],
  ])('hides the value in %j', async (text, expected) => {
    expect(await redact(text)).toBe(expected);
  });

  it.each([
    'the token is stored in the vault',
    'The password is required.',
    'the secret is ${SECRET_NAME}',
    'the password is <your password>',
    'Your token is invalid or expired',
    'The password is changeme',
  ])('keeps %j', async (text) => {
    expect(await redact(text)).toBe(text);
  });

  it('hides without refusing the write (the form alone is no proof of a credential)', async () => {
    expect(await filter.findCredentials('The password is hunter2hunter2')).toEqual([]);
  });
});

describe('passwords on command lines', () => {
  it.each([
    ['mysql -uroot -pS3cretPw mydb', 'mysql -uroot -p[hidden: password] mydb'],
    ['mysqldump -h db -u app -p"S3cret Pw" shop', 'mysqldump -h db -u app -p"[hidden: password]" shop'],
    ['sshpass -p S3cretPw ssh deploy@host', 'sshpass -p [hidden: password] ssh deploy@host'],
    ['docker login -u bot -p S3cretPw ghcr.io', 'docker login -u bot -p [hidden: password] ghcr.io'],
    ['redis-cli -h cache -a S3cretPw ping', 'redis-cli -h cache -a [hidden: password] ping'],
    ['sqlcmd -S db -U sa -P S3cretPw', 'sqlcmd -S db -U sa -P [hidden: password]'],
    [
      'openssl pkcs12 -in a.p12 -passin pass:S3cretPw',
      'openssl pkcs12 -in a.p12 -passin pass:[hidden: password]',
    ],
    ['7z x backup.7z -pS3cretPw', '7z x backup.7z -p[hidden: password]'],
  ])('hides the value in %j', async (text, expected) => {
    expect(await redact(text)).toBe(expected);
  });

  it.each([
    'mysql -u root -p mydb',
    'mysql -uroot -p"$DB_PASSWORD" mydb',
    'docker login -u bot -p $TOKEN ghcr.io',
    'mkdir -p build/out',
    'cp -p a b',
    'grep -P "x" file',
  ])('keeps %j', async (text) => {
    expect(await redact(text)).toBe(text);
  });
});
