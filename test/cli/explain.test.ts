import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIG, makeCheckout, runCli } from './run-cli.js';

let dir: string;
beforeAll(() => {
  dir = makeCheckout({ 'perimeters.yml': CONFIG, 'other.yml': CONFIG.replace('docs:', 'writer:') });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('perimeter explain', () => {
  describe('when asked for JSON', () => {
    it('prints exactly the documented shape', async () => {
      const result = await runCli(
        ['explain', '--json', 'docs/shared/a.md', '.github/x.yml', '../etc', 'config/k.pem'],
        dir,
      );
      expect(result.code).toBe(0);
      expect(result.stderr).toBe('');
      expect(JSON.parse(result.stdout)).toEqual({
        paths: [
          {
            input: 'docs/shared/a.md',
            path: 'docs/shared/a.md',
            error: null,
            perimeters: {
              docs: {
                read: true,
                write: true,
                reason: 'read: read glob "docs/**"; write: write glob "docs/**"',
              },
              source: {
                read: true,
                write: true,
                reason: 'read: read glob "docs/**"; write: write glob "docs/shared/**"',
              },
            },
          },
          {
            input: '.github/x.yml',
            path: '.github/x.yml',
            error: null,
            perimeters: {
              docs: {
                read: false,
                write: false,
                reason: 'read: no read glob matches; write: no write glob matches',
              },
              source: {
                read: false,
                write: false,
                reason: 'read: no read glob matches; write: protected: .github/**',
              },
            },
          },
          {
            input: '../etc',
            path: null,
            error: '".." segment',
            perimeters: {
              docs: { read: false, write: false, reason: 'invalid path: ".." segment' },
              source: { read: false, write: false, reason: 'invalid path: ".." segment' },
            },
          },
          {
            input: 'config/k.pem',
            path: 'config/k.pem',
            error: null,
            perimeters: {
              docs: {
                read: false,
                write: false,
                reason: 'read: no read glob matches; write: no write glob matches',
              },
              source: {
                read: true,
                write: false,
                reason:
                  'read: read glob "config/**", allow-credential-files "config/*.pem"; write: no write glob matches',
              },
            },
          },
        ],
      });
    });
  });

  describe('when asked for text', () => {
    it('shows each path with every perimeter and the deciding rules', async () => {
      const result = await runCli(['explain', 'src/a.ts', 'a\\b'], dir);
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(
        [
          'src/a.ts',
          '  docs    read no (no read glob matches); write no (no write glob matches)',
          '  source  read yes (read glob "src/**"); write yes (write glob "src/**")',
          '"a\\\\b": rejected: backslash (paths use "/" only)',
          '',
        ].join('\n'),
      );
    });
  });

  describe('when --config names another file', () => {
    it('uses it', async () => {
      const result = await runCli(['explain', '--config', 'other.yml', '--json', 'README.md'], dir);
      expect(result.code).toBe(0);
      expect(Object.keys(JSON.parse(result.stdout).paths[0].perimeters)).toEqual(['writer', 'source']);
    });
  });

  describe('when a path starts with a dash', () => {
    it('accepts it after --', async () => {
      const result = await runCli(['explain', '--json', '--', '-x'], dir);
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout).paths[0].input).toBe('-x');
    });
  });

  describe('when no path is given', () => {
    it('exits 2 with the usage', async () => {
      const result = await runCli(['explain', '--json'], dir);
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(
        'perimeter explain: explain needs at least one PATH\nUsage: perimeter explain [--config FILE] [--json] [--association NAME | --user LOGIN | --pr-author LOGIN --pr-branch BRANCH] PATH...\n(perimeter explain --help explains each option)\n',
      );
    });
  });

  describe('when the config is invalid', () => {
    it('exits 1 with the problems', async () => {
      const result = await runCli(['explain', '--config', 'missing.yml', 'a'], dir);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe('perimeter explain: cannot read missing.yml: no such file\n');
    });
  });
});

describe('perimeter explain with deny, families and trust', () => {
  let policyDir: string;
  beforeAll(() => {
    policyDir = makeCheckout({
      'perimeters.yml': `version: 1
protect: [manifests]
deny: ["secrets/**"]
trust:
  associations: [OWNER, MEMBER, COLLABORATOR]
perimeters:
  implementer:
    read: ["**"]
    write: ["**"]
    deny: ["**/*.lock"]
  triage:
    read: ["docs/**"]
    write: ["docs/**"]
    untrusted-triggers: true
`,
    });
  });
  afterAll(() => rmSync(policyDir, { recursive: true, force: true }));

  describe('when a path is denied or in an optional family', () => {
    it('names the rule that refused it', async () => {
      const result = await runCli(['explain', 'yarn.lock', 'secrets/a.txt', 'package.json'], policyDir);
      expect(result.stderr).toBe('');
      expect(result.stdout).toContain(
        'yarn.lock\n  implementer  read no (deny glob "**/*.lock"); write no (deny glob "**/*.lock")\n',
      );
      expect(result.stdout).toContain(
        'secrets/a.txt\n  implementer  read no (top-level deny glob "secrets/**"); write no (top-level deny glob "secrets/**")\n',
      );
      expect(result.stdout).toContain(
        'package.json\n  implementer  read yes (read glob "**"); write no (protected: package.json, manifests family)\n',
      );
    });
  });

  describe('when asked for an untrusted trigger', () => {
    it('shows only the perimeters such a run exposes, and why', async () => {
      const result = await runCli(
        ['explain', '--association', 'NONE', '--user', 'mallory', 'src/a.ts'],
        policyDir,
      );
      expect(result.stderr).toBe('');
      expect(result.stdout).toBe(
        'trigger: untrusted (comment author "mallory" is NONE, not OWNER, MEMBER, COLLABORATOR); exposed: triage\n' +
          'src/a.ts\n  triage  read no (no read glob matches); write no (no write glob matches)\n',
      );
    });
    it('refuses an unknown association', async () => {
      const result = await runCli(['explain', '--association', 'ADMIN', 'a'], policyDir);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('--association: expected one of OWNER, MEMBER');
    });
  });
});
