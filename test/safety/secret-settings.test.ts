import { describe, expect, it } from 'vitest';
import { createSecretFilter } from '../../src/safety/index.js';
import { secretKindOfName } from '../../src/safety/secret-settings.js';
import { sample } from '@perimeter/test-rigs';

const filter = createSecretFilter();
const redact = async (text: string) => (await filter.redact(text)).text;
const pw = sample.password();

describe('secret-named settings', () => {
  describe('when a value is assigned', () => {
    it.each([
      ['YAML', `database:\n  password: ${pw}\n`, 'database:\n  password: [hidden: password]\n'],
      ['YAML, quoted', `password: '${pw}'`, `password: '[hidden: password]'`],
      ['YAML with a comment', `db_pass: ${pw} # prod`, 'db_pass: [hidden: password] # prod'],
      ['JSON', `{"api_key": "${pw}", "n": 1}`, '{"api_key": "[hidden: API key]", "n": 1}'],
      [
        'JSON inside a JSON string',
        `{"text":"{\\"clientSecret\\": \\"${pw}\\"}"}`,
        '{"text":"{\\"clientSecret\\": \\"[hidden: secret]\\"}"}',
      ],
      ['env file', `DB_PASSWORD=${pw}\nPORT=5432`, 'DB_PASSWORD=[hidden: password]\nPORT=5432'],
      ['shell export', `export SERVICE_TOKEN="${pw}"`, 'export SERVICE_TOKEN="[hidden: token]"'],
      ['INI', `[auth]\nsecret = ${pw}\n`, '[auth]\nsecret = [hidden: secret]\n'],
      [
        'dotted properties',
        `spring.datasource.password=${pw}`,
        'spring.datasource.password=[hidden: password]',
      ],
      ['TypeScript', `const apiKey = "${pw}";`, 'const apiKey = "[hidden: API key]";'],
      [
        'TypeScript object',
        `{ accessKey: '${pw}', region: 'x' }`,
        `{ accessKey: '[hidden: secret key]', region: 'x' }`,
      ],
      ['Python', `PRIVATE_KEY = """${pw}"""`, 'PRIVATE_KEY = """[hidden: private key]"""'],
      ['Go', `authToken := "${pw}"`, 'authToken := "[hidden: token]"'],
      ['Ruby/PHP', `'passphrase' => '${pw}',`, `'passphrase' => '[hidden: password]',`],
      ['comparison', `if (token === "${pw}") {`, 'if (token === "[hidden: token]") {'],
      ['npmrc', `//registry.npmjs.org/:_authToken=${pw}`, '//registry.npmjs.org/:_authToken=[hidden: token]'],
      ['HTTP header', `Authorization: Bearer ${pw}`, 'Authorization: [hidden: token]'],
      ['XML', `<password>${pw}</password>`, '<password>[hidden: password]</password>'],
      ['curl -u', `curl -u deploy:${pw} https://x.test`, 'curl -u deploy:[hidden: password] https://x.test'],
      [
        'name/value list',
        `env:\n  - name: API_TOKEN\n    value: "${pw}"`,
        'env:\n  - name: API_TOKEN\n    value: "[hidden: token]"',
      ],
      ['Dockerfile ENV', `ENV DB_PASSWORD ${pw}`, 'ENV DB_PASSWORD [hidden: password]'],
      ['encoded name', `SECRET_KEY_BASE=${pw}`, 'SECRET_KEY_BASE=[hidden: secret key]'],
      [
        'command-line flag',
        `login --password ${pw} --user me`,
        'login --password [hidden: password] --user me',
      ],
      [
        'shell export, qualified name',
        `export NAME_PASSWORD_PROD=${pw}`,
        'export NAME_PASSWORD_PROD=[hidden: password]',
      ],
      ['numbered name', `DB_PASSWORD2=${pw}`, 'DB_PASSWORD2=[hidden: password]'],
      ['PHP define', `define('DB_PASSWORD', '${pw}');`, `define('DB_PASSWORD', '[hidden: password]');`],
      ['C setenv', `setenv("API_TOKEN", "${pw}", 1);`, 'setenv("API_TOKEN", "[hidden: token]", 1);'],
      ['Ruby ENV[]', `ENV['DB_PASSWORD'] = '${pw}'`, `ENV['DB_PASSWORD'] = '[hidden: password]'`],
      ['flag with =, quoted', `--password="${pw} two"`, '--password="[hidden: password]"'],
      [
        'flag with =',
        `wget --password=${pw} https://x.test`,
        'wget --password=[hidden: password] https://x.test',
      ],
      [
        'YAML block',
        `private_key: |\n  line-one-${pw}\n  line-two\nnext: 1`,
        'private_key: |\n[hidden: private key]\nnext: 1',
      ],
    ])('hides it (%s)', async (_syntax, text, expected) => {
      expect(await redact(text)).toBe(expected);
    });
  });

  describe('when the value is a reference or a placeholder', () => {
    it.each([
      'password: ${DB_PASSWORD}',
      'token: ${{ secrets.GITHUB_TOKEN }}',
      'api_key: "{{ vault_api_key }}"',
      'DB_PASSWORD=$PASSWORD',
      'SECRET=%APP_SECRET%',
      'const token = process.env.GITHUB_TOKEN;',
      'password = os.environ["DB_PASSWORD"]',
      'secret = os.getenv("SECRET")',
      'const apiKey = config.apiKey;',
      'token: await getToken(),',
      'password: <your password>',
      'password: changeme',
      'client_secret: "xxxxxxxx"',
      'api_key: "********"',
      'password: ""',
      'password:',
      'secret_key: example-secret-key',
      'token: your_token_here',
      'password?: string;',
      'token: string | undefined',
      'password: str',
      'auth: true',
      '  id-token: write',
      'secrets: inherit',
      'max_tokens: 4096',
      'password_min_length: 12',
      'token_url: https://auth.example.net/token',
      'Password: !Ref DbPassword',
      'password: *default_password',
      'env:\n  - name: API_TOKEN\n    value: ${{ secrets.API_TOKEN }}',
      'curl -u "$USER:$PASSWORD" https://x.test',
      'ENV DB_PASSWORD_FILE /run/secrets/db',
      "define('DB_PASSWORD', getenv('DB_PASSWORD'));",
      'headers.set("Authorization", token)',
      "ENV['API_TOKEN'] = ENV.fetch('X')",
    ])('keeps %j', async (text) => {
      expect(await redact(text)).toBe(text);
    });
  });
});

describe('secretKindOfName', () => {
  it.each([
    ['password', 'password'],
    ['DB_PASS', 'password'],
    ['dbPassword', 'password'],
    ['client_secret', 'secret'],
    ['GITHUB_TOKEN', 'token'],
    ['_authToken', 'token'],
    ['Authorization', 'token'],
    ['api-key', 'API key'],
    ['APIKEY', 'API key'],
    ['private_key', 'private key'],
    ['AWS_SECRET_ACCESS_KEY', 'secret key'],
    ['AccountKey', 'secret key'],
    ['credentials', 'credential'],
    ['NAME_PASSWORD_PROD', 'password'],
    ['stripe_secret_live', 'secret'],
    ['API_TOKEN_2', 'token'],
    ['password1', 'password'],
  ])('%s announces a %s', (name, kind) => {
    expect(secretKindOfName(name)).toBe(kind);
  });

  it.each([
    'key',
    'tokenizer',
    'max_tokens',
    'token_url',
    'password_policy',
    'bypass_cache',
    'author',
    'secrets',
    'monkey',
    'PASSWORD_FILE',
    'token_count_prod',
  ])('%s announces nothing', (name) => {
    expect(secretKindOfName(name)).toBeNull();
  });
});
