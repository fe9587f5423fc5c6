/**
 * Issue 27, item 3: each written form of a secret that passed the filter, as a file would hold it, through
 * the whole filter. Every piece that carries the secret must be gone from the answer.
 */
import { describe, expect, it } from 'vitest';
import { createSecretFilter } from '../../src/safety/index.js';
import {
  LAYERS,
  pemBodies,
  providerSamples,
  sample,
  secretEncodings,
  WRAPPERS,
  type Written,
} from '@perimeter/test-rigs';

const filter = createSecretFilter();
const token = sample.github();

async function expectHidden(text: string, pieces: string[]): Promise<void> {
  const { text: answer, hidden } = await filter.redact(text);
  expect(hidden, answer).toBeGreaterThan(0);
  for (const piece of pieces) expect(answer, `"${piece}" still shows`).not.toContain(piece);
}

const inFile = ({ text, pieces }: Written, before = 'value = ', after = '\n'): [string, string[]] => [
  `# settings\n${before}${text}${after}next: 1\n`,
  pieces,
];

describe('the secret filter, on the encoded forms of issue 27', () => {
  describe('when a token is written in one layer of encoding', () => {
    it.each([
      ['hex', LAYERS.hex(token)],
      ['hex in upper case', LAYERS['hex, upper case'](token)],
      ['hex bytes with colons', LAYERS['hex bytes with colons'](token)],
      ['HTML decimal entities', LAYERS['HTML decimal entities'](token)],
      ['HTML hex entities, some', LAYERS['HTML hex entities, some'](token)],
      ['HTML named entities', LAYERS['HTML named entities'](token)],
      ['\\x escapes', LAYERS['\\x escapes'](token)],
      ['\\u escapes', LAYERS['\\u escapes'](token)],
      [
        'base64 wrapped over lines',
        `${LAYERS.base64(`GITHUB_TOKEN=${token}\n`).replace(/.{20}/g, '$&\n  ')}`,
      ],
    ])('hides it in %s', async (_form, encoded) => {
      const [text] = inFile({ text: encoded, pieces: [] });
      const pieces = encoded.split(/\s+/).filter((p) => p.length >= 8);
      await expectHidden(text, pieces);
      expect(await filter.findCredentials(text)).toContain('GitHub token');
    });

    it('names each span by what it decodes to, keeping the text around it', async () => {
      const text = `a = "${LAYERS.hex(token)}"\nb = 1\n`;
      expect((await filter.redact(text)).text).toBe('a = "[hidden: GitHub token]"\nb = 1\n');
    });
  });

  describe('when a token is under nested layers', () => {
    it.each([
      ['base64 of hex', LAYERS.base64(LAYERS.hex(token))],
      ['URL-encoded base64 of base64', LAYERS['URL, every byte'](LAYERS.base64(LAYERS.base64(token)))],
      [
        'HTML entities of URL-encoded base64 of hex',
        LAYERS['HTML hex entities, some'](
          LAYERS['URL, every third character'](LAYERS.base64(LAYERS.hex(token))),
        ),
      ],
    ])('hides it under %s', async (_form, encoded) => {
      await expectHidden(...inFile({ text: encoded, pieces: [encoded] }));
    });
  });

  describe('when a token is cut in two', () => {
    it.each(Object.keys(WRAPPERS))('hides it %s, both halves', async (name) => {
      const written = WRAPPERS[name]!(token);
      await expectHidden(...inFile(written));
      expect(await filter.findCredentials(inFile(written)[0])).toContain('GitHub token');
    });

    it('leaves the lines around a split token alone', async () => {
      const { text } = await filter.redact(
        `token_a = "${token.slice(0, 20)}" +\n    "${token.slice(20)}";\nnext();\n`,
      );
      expect(text).toBe('token_a = "[hidden: GitHub token]";\nnext();\n');
    });

    it('leaves the next line of a .env file alone', async () => {
      const text = `GITHUB_TOKEN=${token}\nOTHER=1\nnext_key: value\n`;
      expect((await filter.redact(text)).text).toBe(
        'GITHUB_TOKEN=[hidden: GitHub token]\nOTHER=1\nnext_key: value\n',
      );
    });

    it('joins nothing where the halves would be no credential', async () => {
      const text = 'const message = "Hello, " +\n  "world";\nfoo\nbar\nbaz(x) \\\n  && y;\n';
      expect(await filter.redact(text)).toEqual({ text, hidden: 0, kinds: {}, spans: [] });
    });
  });

  describe('when a PEM private key has lost its BEGIN and END lines', () => {
    const bodies = pemBodies();
    it.each(Object.entries(bodies.private))(
      'hides a %s body, also written in a JSON string',
      async (_kind, body) => {
        await expectHidden(`key: |\n${body.replace(/^/gm, '  ')}\n`, body.split('\n'));
        const json = JSON.stringify({ key: `${body}\n` });
        await expectHidden(json, [JSON.stringify(body).slice(1, 30)]);
        expect(await filter.findCredentials(json)).toEqual(['private key']);
      },
    );

    it.each(Object.entries(bodies.public))('leaves a %s body visible', async (_kind, body) => {
      const text = `key: |\n${body.replace(/^/gm, '  ')}\n`;
      expect((await filter.redact(text)).hidden).toBe(0);
    });
  });

  describe('when an AWS secret access key stands alone, without its key ID', () => {
    const secret = sample.awsSecret();
    it.each([
      ['in prose', `Use ${secret} for the deploy bucket.`],
      ['in a CSV row', `deploy,${secret},eu-west-1`],
      ['quoted in code', `const s = '${secret}';`],
    ])('hides it %s', async (_where, text) => {
      await expectHidden(text, [secret]);
    });

    it.each([
      ['a path', 'src/components/Button/ButtonGroup2/index'],
      ['a camel-case name', 'someVeryLongIdentifierNameWithDigits1234'],
      ['a git commit id', 'da39a3ee5e6b4b0d3255bfef95601890afd80709'],
      ['an npm integrity hash', 'sha1-2jmj7l5rSw0yVb/vlWAYkK/YBwk='],
    ])('leaves %s alone', async (_what, text) => {
      expect((await filter.redact(`x ${text} y`)).hidden).toBe(0);
    });
  });

  describe('when every held-in sample is written in every form', () => {
    it('hides all of them', async () => {
      const missed: string[] = [];
      for (const encoding of secretEncodings()) {
        for (const { kind, value } of providerSamples()) {
          const [text, pieces] = inFile(encoding.encode(value));
          const { text: answer } = await filter.redact(text);
          if (pieces.some((piece) => answer.includes(piece))) missed.push(`${kind} as ${encoding.name}`);
        }
      }
      expect(missed).toEqual([]);
    }, 120_000);
  });
});
