import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Inputs } from '../../src/action/constants.js';
import { InputError, readSettings } from '../../src/action/inputs.js';

const baseEnv = {
  GITHUB_REPOSITORY: 'octo/repo',
  GITHUB_REF: 'refs/heads/agent/work',
  GITHUB_API_URL: 'http://127.0.0.1:1/',
  GITHUB_SERVER_URL: 'https://github.example',
  GITHUB_RUN_ID: '42',
  RUNNER_TEMP: '/tmp/runner',
};

function settings(inputs: Partial<Record<Inputs, string>>, env: Record<string, string> = {}) {
  const all: Record<string, string> = { [Inputs.GithubToken]: 'ghs_test-token', ...inputs };
  return readSettings({ ...baseEnv, ...env }, (name) => all[name] ?? '');
}

function failure(inputs: Partial<Record<Inputs, string>>, env: Record<string, string> = {}): string {
  try {
    settings(inputs, env);
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    return (error as Error).message;
  }
  throw new Error('expected an InputError');
}

describe('readSettings', () => {
  describe('when only the token is given', () => {
    it('uses the documented defaults', () => {
      expect(settings({})).toEqual({
        token: 'ghs_test-token',
        owner: 'octo',
        repo: 'repo',
        apiUrl: 'http://127.0.0.1:1',
        runUrl: 'https://github.example/octo/repo/actions/runs/42',
        repositoryUrl: 'https://github.example/octo/repo',
        configFile: 'perimeters.yml',
        configRef: null,
        perimeters: null,
        branch: 'agent/work',
        port: 0,
        failOnViolation: true,
        directPushes: 'check',
        requireChanges: false,
        statusContext: 'perimeter',
        endpointSecrets: {},
        exportSecrets: false,
        writesPerMinute: 80,
        writes: 'push',
        ignoreRefs: [],
        receiptBy: 'post',
        receiptAs: 'status',
        verifyTimeoutMs: 600_000,
        workspace: null,
        isolation: 'none',
        agentEgress: [],
        tempDir: '/tmp/runner',
        eventName: '',
        event: null,
        run: { id: '42', attempt: '', job: '' },
        runnerName: '',
        record: { name: 'perimeter-job-1', retentionDays: undefined },
      });
    });
  });

  describe('when receipt-by is given', () => {
    it('takes post or verify-job, and refuses anything else', () => {
      expect(settings({ [Inputs.ReceiptBy]: 'verify-job' }).receiptBy).toBe('verify-job');
      expect(failure({ [Inputs.ReceiptBy]: 'later' })).toBe(
        'receipt-by: expected "post" or "verify-job", got "later"',
      );
    });
  });

  describe('when writes is stage', () => {
    it('leaves the receipt to the apply job, and refuses receipt-by: post', () => {
      expect(settings({ [Inputs.Writes]: 'stage' }).receiptBy).toBe('apply-job');
      expect(settings({ [Inputs.Writes]: 'stage', [Inputs.ReceiptBy]: 'verify-job' }).receiptBy).toBe(
        'verify-job',
      );
      expect(failure({ [Inputs.Writes]: 'stage', [Inputs.ReceiptBy]: 'post' })).toBe(
        'receipt-by: "post" cannot go with writes: stage, whose job needs no statuses: write; perimeter/apply posts the receipt',
      );
    });
  });

  describe('when workspace is given', () => {
    it('reads false, true (under RUNNER_TEMP) and a folder relative to the checkout', () => {
      expect(settings({ [Inputs.Workspace]: 'false' }).workspace).toBeNull();
      expect(settings({ [Inputs.Workspace]: 'true' }).workspace).toBe('/tmp/runner/perimeter-workspaces');
      expect(
        settings({ [Inputs.Workspace]: 'agents' }, { GITHUB_WORKSPACE: '/home/runner/work/r' }).workspace,
      ).toBe('/home/runner/work/r/agents');
      expect(settings({ [Inputs.Workspace]: '/srv/ws/' }).workspace).toBe('/srv/ws');
    });
  });

  describe('when isolation is given', () => {
    it('takes user or none, and refuses anything else', () => {
      expect(settings({ [Inputs.Isolation]: 'user' }).isolation).toBe('user');
      expect(settings({ [Inputs.Isolation]: 'none' }).isolation).toBe('none');
      expect(failure({ [Inputs.Isolation]: 'root' })).toBe(
        'isolation: expected "user" or "none", got "root"',
      );
    });
  });

  describe('when agent-egress is given', () => {
    it('expands presets, keeps hosts, *.domains and host:ports, and refuses anything else', () => {
      expect(
        settings({ [Inputs.AgentEgress]: 'anthropic, copilot Example.com:8443 *.corp.test' }).agentEgress,
      ).toEqual([
        'api.anthropic.com',
        'api.githubcopilot.com',
        '*.githubcopilot.com',
        'api.github.com',
        'example.com:8443',
        '*.corp.test',
      ]);
      expect(failure({ [Inputs.AgentEgress]: 'https://evil.test/' })).toMatch(
        /^agent-egress: expected host names, .*got "https:\/\/evil.test\/"$/,
      );
    });
  });

  describe('when receipt-as is given', () => {
    it('takes status, check-run or both, and refuses anything else', () => {
      expect(settings({ [Inputs.ReceiptAs]: 'check-run' }).receiptAs).toBe('check-run');
      expect(settings({ [Inputs.ReceiptAs]: 'both' }).receiptAs).toBe('both');
      expect(failure({ [Inputs.ReceiptAs]: 'Check-Run' })).toBe(
        'receipt-as: expected "status", "check-run" or "both", got "Check-Run"',
      );
    });
  });

  describe('when the run is a pull request', () => {
    function eventFile(event: unknown): string {
      const path = join(mkdtempSync(join(tmpdir(), 'perimeter-inputs-')), 'event.json');
      writeFileSync(path, JSON.stringify(event));
      return path;
    }
    const pr = (ref: string, repo: unknown) => ({
      pull_request: { head: { ref, repo } },
      repository: { id: 7, full_name: 'octo/repo' },
    });

    describe('when the head lives in this repository', () => {
      it('binds the head branch from GITHUB_HEAD_REF', () => {
        const event = eventFile(pr('feature/x', { full_name: 'Octo/Repo', id: 7 }));
        const env = {
          GITHUB_HEAD_REF: 'feature/x',
          GITHUB_REF: 'refs/pull/3/merge',
          GITHUB_EVENT_PATH: event,
        };
        expect(settings({}, env).branch).toBe('feature/x');
      });
      it('falls back to the event payload', () => {
        const event = eventFile(pr('from-payload', { full_name: 'octo/repo', id: 7 }));
        expect(settings({}, { GITHUB_REF: 'refs/pull/3/merge', GITHUB_EVENT_PATH: event }).branch).toBe(
          'from-payload',
        );
      });
    });

    describe('when the head lives in a fork', () => {
      it('refuses to bind a branch of that name here and says why', () => {
        const event = eventFile(pr('main', { full_name: 'mallory/repo', id: 99 }));
        const env = { GITHUB_HEAD_REF: 'main', GITHUB_REF: 'refs/pull/3/merge', GITHUB_EVENT_PATH: event };
        expect(failure({}, env)).toBe(
          'branch: not given, and the pull request\'s head branch "main" lives in "mallory/repo", not in ' +
            'octo/repo; a fork chooses its branch names, so it cannot choose the branch this job writes. ' +
            'Set the branch input to a branch of octo/repo',
        );
      });
      it('refuses a fork renamed to look like this repository (its id differs)', () => {
        const event = eventFile(pr('main', { full_name: 'octo/repo', id: 99 }));
        expect(failure({}, { GITHUB_HEAD_REF: 'main', GITHUB_EVENT_PATH: event })).toContain(
          'not in octo/repo',
        );
      });
      it('binds the explicit branch input instead', () => {
        const event = eventFile(pr('main', { full_name: 'mallory/repo', id: 99 }));
        const env = { GITHUB_HEAD_REF: 'main', GITHUB_EVENT_PATH: event };
        expect(settings({ [Inputs.Branch]: 'agent/pr-3' }, env).branch).toBe('agent/pr-3');
      });
    });

    describe('when the head repository is unknown', () => {
      it.each([
        ['no payload', {}],
        ['a deleted fork (repo null)', { GITHUB_EVENT_PATH: eventFile(pr('main', null)) }],
        ['an unreadable payload', { GITHUB_EVENT_PATH: '/nonexistent/event.json' }],
      ])('refuses with %s', (_name, env) => {
        expect(failure({}, { GITHUB_HEAD_REF: 'main', ...env })).toContain(
          'cannot be shown to live in this repository',
        );
      });
    });
  });

  describe('when inputs are given', () => {
    it('parses lists, ports, booleans and modes', () => {
      const s = settings({
        [Inputs.Perimeters]: 'implementer, test-author\nimplementer',
        [Inputs.Port]: '8123',
        [Inputs.FailOnViolation]: 'false',
        [Inputs.DirectPushes]: 'deny',
        [Inputs.Branch]: 'refs/heads/bound',
        [Inputs.ConfigRef]: 'release',
        [Inputs.Config]: 'ci/perimeters.yml',
        [Inputs.StatusContext]: 'perimeter/tests',
        [Inputs.WritesPerMinute]: '40',
        [Inputs.VerifyTimeout]: '120',
      });
      expect(s).toMatchObject({
        writesPerMinute: 40,
        verifyTimeoutMs: 120_000,
        perimeters: ['implementer', 'test-author'],
        port: 8123,
        failOnViolation: false,
        directPushes: 'deny',
        branch: 'bound',
        configRef: 'release',
        configFile: 'ci/perimeters.yml',
        statusContext: 'perimeter/tests',
      });
    });
  });

  describe('when a value is bad', () => {
    it.each([
      [{ [Inputs.Port]: '80a' }, 'port: expected a port number from 0 to 65535, got "80a"'],
      [{ [Inputs.Port]: '70000' }, 'got "70000"'],
      [{ [Inputs.FailOnViolation]: 'yes' }, 'fail-on-violation: expected true or false, got "yes"'],
      [{ [Inputs.DirectPushes]: 'allow' }, 'direct-pushes: expected "check" or "deny", got "allow"'],
      [{ [Inputs.Config]: '../perimeters.yml' }, 'config: expected a repository-relative path'],
      [{ [Inputs.Config]: '/etc/passwd' }, '"/etc/passwd"'],
      [{ [Inputs.Branch]: 'bad..name' }, 'branch: not a valid branch name: "bad..name"'],
      [{ [Inputs.Perimeters]: 'all, implementer' }, '"all" cannot be combined'],
      [{ [Inputs.GithubToken]: '' }, 'github-token: required'],
      [{ [Inputs.GithubToken]: 'ghs_abc' }, 'github-token: 7 characters, shorter than any GitHub token'],
      [{ [Inputs.StatusContext]: 'a\nb' }, 'status-context: expected a short status name'],
      [{ [Inputs.IgnoreRefs]: 'tags/**' }, 'ignore-refs: "tags/**" is not a ref glob'],
      [
        { [Inputs.IgnoreRefs]: 'refs/heads/**' },
        'covers the bound branch refs/heads/agent/work, which is always judged',
      ],
      [
        { [Inputs.WritesPerMinute]: '0' },
        'writes-per-minute: expected a whole number from 1 to 1000000, got "0"',
      ],
      [
        { [Inputs.VerifyTimeout]: '1.5' },
        'verify-timeout: expected a whole number from 1 to 1000000, got "1.5"',
      ],
      [{ [Inputs.RecordName]: 'a/b' }, 'record-name: "a/b" holds a character artifact names may not have'],
      [
        { [Inputs.RecordRetentionDays]: '0' },
        'record-retention-days: expected a whole number from 1 to 1000000, got "0"',
      ],
    ])('rejects %o', (inputs, message) => {
      expect(failure(inputs)).toContain(message);
    });

    it('says so when no branch can be found', () => {
      expect(failure({}, { GITHUB_REF: 'refs/tags/v1' })).toContain(
        '(GITHUB_REF is "refs/tags/v1"); set the input',
      );
    });

    it('rejects a malformed repository', () => {
      expect(failure({}, { GITHUB_REPOSITORY: 'nope' })).toContain('expected "owner/name", got "nope"');
    });
  });

  describe('when endpoint secrets are given', () => {
    const a = 'a'.repeat(31) + 'A';
    const b = 'b'.repeat(40);

    it('maps each perimeter to its secret, one per line', () => {
      expect(
        settings({ [Inputs.EndpointSecrets]: `implementer=${a}\n test-author=${b}\n` }).endpointSecrets,
      ).toEqual({ implementer: a, 'test-author': b });
      expect(settings({ [Inputs.EndpointSecrets]: `implementer=${a},=x` }).endpointSecrets).toEqual({
        implementer: `${a},=x`,
      });
      expect(settings({}).endpointSecrets).toEqual({});
    });

    it.each([
      [
        `implementer=${a.slice(1)}`,
        'the secret of "implementer" has 31 characters; at least 32 are required',
      ],
      [`implementer=${a}\ntest-author=${a}`, '"implementer" and "test-author" have the same secret'],
      [`implementer=${a}\nimplementer=${b}`, '"implementer" is given twice'],
      [`implementer ${a}`, 'expected lines of "perimeter=secret", got an entry without "="'],
      [`Implementer=${a}`, 'got an entry named "Implementer"'],
      ['implementer=', 'the secret of "implementer" is empty'],
      [`implementer=${a}\u00e9`, 'outside visible ASCII'],
    ])('refuses %j without quoting a secret', (value, message) => {
      const text = failure({ [Inputs.EndpointSecrets]: value });
      expect(text).toContain(`endpoint-secrets: `);
      expect(text).toContain(message);
      expect(text).not.toContain(a.slice(0, 20));
      expect(text).not.toContain(b.slice(0, 20));
    });
  });
});
