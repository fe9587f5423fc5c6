import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  DEFAULT_LIMITS,
  parseConfig,
  DEFAULT_TOOLS,
  type ConfigProblem,
} from '../../src/policy/index.js';
import { SAMPLES } from './config-samples.js';

function problems(text: string, file?: string): ConfigProblem[] {
  try {
    parseConfig(text, file);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('parseConfig', () => {
  describe('when the file is valid', () => {
    it('returns the perimeters in document order with defaults filled in', () => {
      const config = parseConfig(
        'version: 1\nperimeters:\n  writer:\n    read: ["src/**"]\n    write: ["src/**"]\n    limits: { files-per-push: 3 }\n  reader:\n    description: reads\n    tools: [get_file]\n    branches: [main]\n    allow-protected: [".github/**"]\n    allow-credential-files: ["a.pem"]\n    allow-secrets-in: ["fixtures/**"]\n',
        'conf/p.yml',
      );
      expect(config).toEqual({
        version: 1,
        file: 'conf/p.yml',
        perimeters: [
          {
            name: 'writer',
            tools: [...DEFAULT_TOOLS],
            read: ['src/**'],
            write: ['src/**'],
            branches: null,
            allowProtected: [],
            limits: { ...DEFAULT_LIMITS, filesPerPush: 3 },
            allowCredentialFiles: [],
            allowSecretsIn: [],
          },
          {
            name: 'reader',
            description: 'reads',
            tools: ['get_file'],
            read: [],
            write: [],
            branches: ['main'],
            allowProtected: ['.github/**'],
            limits: DEFAULT_LIMITS,
            allowCredentialFiles: ['a.pem'],
            allowSecretsIn: ['fixtures/**'],
          },
        ],
        trust: null,
      });
    });

    it('reads deny, protect, trust and untrusted-triggers, and gives every perimeter the top-level ones', () => {
      const config = parseConfig(`version: 1
protect: [manifests]
deny: ["secrets/**"]
trust:
  associations: [OWNER, MEMBER]
  users: ["dependabot[bot]", "octo-cat"]
perimeters:
  writer:
    write: ["**"]
    deny: ["package.json", "**/*.lock"]
    protect: [ci, manifests]
  triage:
    read: ["docs/**"]
    untrusted-triggers: true
`);
      expect(config.trust).toEqual({
        associations: ['OWNER', 'MEMBER'],
        users: ['dependabot[bot]', 'octo-cat'],
      });
      expect(config.perimeters[0]).toMatchObject({
        deny: ['package.json', '**/*.lock'],
        ownerDeny: ['secrets/**'],
        protect: ['manifests', 'ci'],
      });
      expect(config.perimeters[0]!.untrustedTriggers).toBeUndefined();
      expect(config.perimeters[1]).toMatchObject({
        ownerDeny: ['secrets/**'],
        protect: ['manifests'],
        untrustedTriggers: true,
      });
    });

    it('defaults the file name to perimeters.yml', () => {
      expect(parseConfig('version: 1\nperimeters:\n  a: {}\n').file).toBe('perimeters.yml');
    });

    it('follows YAML aliases', () => {
      const config = parseConfig(
        'version: 1\nperimeters:\n  a:\n    read: &src ["src/**"]\n  b:\n    read: *src\n',
      );
      expect(config.perimeters[1]!.read).toEqual(['src/**']);
    });
  });

  describe('when a perimeter uses a YAML merge key', () => {
    it('refuses it with a hint', () => {
      const [problem] = problems('version: 1\nbase: &b {read: [a]}\nperimeters:\n  a:\n    <<: *b\n');
      expect(problem).toMatchObject({ key: 'base' });
      const found = problems('version: 1\nperimeters:\n  a: &b {read: [a]}\n  c:\n    <<: *b\n');
      expect(found).toEqual([
        expect.objectContaining({
          line: 5,
          column: 5,
          key: 'perimeters.c.<<',
          message: expect.stringMatching(/merge keys are not supported/),
        }),
      ]);
    });
  });

  describe('when deny, protect or trust are wrong', () => {
    it('reports each with its position', () => {
      const yaml = `version: 1
protect: [lockfiles]
deny: ["src/[/]"]
trust:
  associations: [ADMIN]
  users: ["not a login"]
  teams: [x]
perimeters:
  a:
    deny: "x"
    protect: [hooks]
    untrusted-triggers: yes
`;
      expect(problems(yaml).map((p) => `${p.line}:${p.column} ${p.key}: ${p.message}`)).toEqual([
        '2:11 protect[0]: "lockfiles": unknown family; expected one of manifests, ci, editors',
        expect.stringMatching(/^3:8 deny\[0\]: "src\/\[\/\]": bracket expression/),
        '5:18 trust.associations[0]: "ADMIN": unknown association; expected one of OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, FIRST_TIME_CONTRIBUTOR, FIRST_TIMER, MANNEQUIN, NONE',
        '6:11 trust.users[0]: "not a login": not a GitHub login (letters, digits and single hyphens; apps end in "[bot]")',
        '7:3 trust.teams: unknown key; expected one of associations, users',
        '10:11 perimeters.a.deny: expected a list, got string "x"; write it as a list: ["x"]',
        '11:15 perimeters.a.protect[0]: "hooks": unknown family; expected one of manifests, ci, editors',
        '12:25 perimeters.a.untrusted-triggers: expected true or false, got string "yes"',
      ]);
    });

    it('refuses a trust rule that trusts nobody', () => {
      expect(problems('version: 1\ntrust: {}\nperimeters:\n  a: {}\n')).toEqual([
        expect.objectContaining({ line: 2, key: 'trust', message: expect.stringMatching(/^trusts nobody/) }),
      ]);
    });
  });

  describe('when an alias is used as a key', () => {
    it('refuses it: "*k : [...]" would hide a write from reviewers', () => {
      const yaml =
        'version: 1\nperimeters:\n  a:\n    description: &k write\n    read: ["src/**"]\n    *k : ["**"]\n';
      expect(problems(yaml)).toEqual([
        {
          file: 'perimeters.yml',
          line: 6,
          column: 5,
          key: 'perimeters.a',
          message: 'alias *k used as a key: write the key out',
        },
      ]);
    });
  });

  describe('when a glob starting with * is not quoted', () => {
    it('explains that YAML read it as an alias', () => {
      expect(problems('version: 1\nperimeters:\n  a:\n    read:\n      - src/**\n      - **/*.md\n')).toEqual(
        [
          {
            file: 'perimeters.yml',
            line: 6,
            column: 9,
            key: 'perimeters.a.read[1]',
            message: 'unknown alias **/*.md; quote a glob that starts with "*": "**/*.md"',
          },
        ],
      );
    });
  });

  describe('when the file has many problems', () => {
    const text = [
      'version: 2', // 1
      'perimeters:', // 2
      '  Bad_Name:', // 3
      '    read: src/**', // 4
      '    write: ["/abs", "ok/**", "ok/**"]', // 5
      '    tools: [get_tree, list_branches]', // 6
      '    colour: red', // 7
      '  good:', // 8
      '    read: []', // 9
      '    read: []', // 10
      '    limits: { files-per-push: 0, bytes: 1 }', // 11
      'extra: 1', // 12
    ].join('\n');

    it('reports every one at once, in order, with file:line:column and key', () => {
      expect(problems(text, 'x.yml').map((p) => `${p.line}:${p.column} ${p.key}`)).toEqual([
        '1:10 version',
        '3:3 perimeters.Bad_Name',
        '4:11 perimeters.Bad_Name.read',
        '5:13 perimeters.Bad_Name.write[0]',
        '5:30 perimeters.Bad_Name.write[2]',
        '6:23 perimeters.Bad_Name.tools[1]',
        '7:5 perimeters.Bad_Name.colour',
        '10:5 perimeters.good.read',
        '11:31 perimeters.good.limits.files-per-push',
        '11:34 perimeters.good.limits.bytes',
        '12:1 extra',
      ]);
    });

    it('formats the message as one line per problem', () => {
      let message = '';
      try {
        parseConfig(text, 'x.yml');
      } catch (error) {
        message = (error as Error).message;
      }
      const lines = message.split('\n');
      expect(lines).toHaveLength(11);
      expect(lines[0]).toBe('x.yml:1:10: version: unsupported version 2; this Perimeter reads version 1');
      expect(lines[3]).toBe(
        'x.yml:5:13: perimeters.Bad_Name.write[0]: "/abs": leading "/": globs are relative to the repository root',
      );
      expect(lines[5]).toMatch(/"list_branches": unknown tool; expected one of get_tree, /);
      expect(lines[7]).toBe('x.yml:10:5: perimeters.good.read: duplicate key');
    });
  });

  describe('when the YAML does not parse', () => {
    it('reports the syntax error with its position', () => {
      const [first] = problems('version: 1\nperimeters:\n  a: "unterminated\n');
      expect(first).toMatchObject({ file: 'perimeters.yml', key: 'yaml' });
      expect(first!.line).toBeGreaterThanOrEqual(3);
    });

    it('rejects several documents in one file', () => {
      expect(problems('version: 1\nperimeters: {a: {}}\n---\nversion: 1\n')[0]!.key).toBe('yaml');
    });

    it('rejects unknown tags', () => {
      expect(problems('version: 1\nperimeters:\n  a: !!python/object {}\n').length).toBeGreaterThan(0);
    });
  });

  describe('when a required key is missing', () => {
    it('points at the start of the mapping', () => {
      expect(problems('perimeters:\n  a: {}\n')).toEqual([
        { file: 'perimeters.yml', line: 1, column: 1, key: 'version', message: 'missing; add "version: 1"' },
      ]);
    });
    it('explains an empty file', () => {
      expect(problems('# nothing\n')[0]).toMatchObject({ line: 1, column: 1, key: 'version' });
    });
  });

  describe('when a value has the wrong type', () => {
    it.each([
      ['version: "1"\nperimeters: {a: {}}\n', 'version', /expected the number 1, got string "1"/],
      ['version: 1\nperimeters: [a]\n', 'perimeters', /expected a mapping, got a list/],
      ['version: 1\nperimeters:\n  a:\n', 'perimeters.a', /expected a mapping, got null/],
      [
        'version: 1\nperimeters:\n  a:\n    read: [1]\n',
        'perimeters.a.read[0]',
        /expected a string, got number 1/,
      ],
      ['version: 1\nperimeters:\n  a:\n    read:\n', 'perimeters.a.read', /expected a list, got null/],
      [
        'version: 1\nperimeters:\n  a:\n    description: [x]\n',
        'perimeters.a.description',
        /expected a string, got a list/,
      ],
      [
        'version: 1\nperimeters:\n  a:\n    limits: { bytes-per-push: 1.5 }\n',
        'perimeters.a.limits.bytes-per-push',
        /positive integer/,
      ],
    ])('reports it for %j', (text, key, message) => {
      const [problem] = problems(text);
      expect(problem!.key).toBe(key);
      expect(problem!.message).toMatch(message);
    });
  });

  describe.each(SAMPLES)('when the sample is "$name"', (sample) => {
    it(sample.valid ? 'accepts it' : 'rejects it with at least one positioned problem', () => {
      if (sample.valid) {
        expect(() => parseConfig(sample.yaml)).not.toThrow();
      } else {
        const found = problems(sample.yaml);
        expect(found.length).toBeGreaterThan(0);
        for (const p of found) {
          expect(p.line).toBeGreaterThanOrEqual(1);
          expect(p.column).toBeGreaterThanOrEqual(1);
          expect(p.key).not.toBe('');
          expect(p.message).not.toMatch(/\n/);
        }
      }
    });
  });
});
