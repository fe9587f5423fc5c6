/**
 * The runner emulation's actions/checkout (`npm test`): the majors and inputs it takes, and where a persisted
 * credential lands in a real git repository, as git itself reads it back.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkoutSettings, persistCredential } from './checkout.js';
import { PAGES } from './readme-jobs.js';
import { REPO_ROOT } from '@perimeter/test-rigs';

describe('checkoutSettings', () => {
  it('takes v7 with persist-credentials: false, and the inputs v7 declares', () => {
    expect(checkoutSettings('actions/checkout@v7', { 'persist-credentials': 'false' })).toEqual({
      major: 7,
      persist: false,
    });
    expect(
      checkoutSettings('actions/checkout@v7.0.1', {
        'fetch-depth': '0',
        'allow-unsafe-pr-checkout': 'false',
      }),
    ).toEqual({ major: 7, persist: true });
  });

  describe('when the major is one the emulation does not know', () => {
    it.each(['actions/checkout@v4', 'actions/checkout@v8', 'actions/checkout@main'])('refuses %s', (uses) => {
      expect(() => checkoutSettings(uses, {})).toThrow('emulates actions/checkout v5, v6, v7 only');
    });
  });

  describe('when an input is not one of v7', () => {
    it('refuses it, naming it', () => {
      expect(() => checkoutSettings('actions/checkout@v7', { 'persist-credential': 'false' })).toThrow(
        "unexpected input(s) 'persist-credential'",
      );
    });
  });

  describe('when persist-credentials is neither true nor false', () => {
    it('refuses it, rather than persisting', () => {
      expect(() => checkoutSettings('actions/checkout@v7', { 'persist-credentials': 'no' })).toThrow(
        'persist-credentials must be true or false, got "no"',
      );
    });
  });
});

describe('persistCredential', () => {
  let dir = '';
  let workspace = '';
  let runnerTemp = '';
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'perimeter-checkout-'));
    workspace = join(dir, 'workspace');
    runnerTemp = join(dir, 'temp');
    mkdirSync(workspace);
    mkdirSync(runnerTemp);
    execFileSync('git', ['init', '--quiet'], { cwd: workspace });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** The header git sends to github.com from the workspace, as git resolves the config (includes followed). */
  const header = () =>
    execFileSync('git', ['config', '--get', 'http.https://github.com/.extraheader'], {
      cwd: workspace,
      encoding: 'utf8',
    }).trim();
  const basic = `AUTHORIZATION: basic ${Buffer.from('x-access-token:ghs_token').toString('base64')}`;

  it('v5: in the workspace git config', async () => {
    expect(await persistCredential(5, workspace, runnerTemp, 'ghs_token')).toBe(
      join(workspace, '.git', 'config'),
    );
    expect(header()).toBe(basic);
  });

  it.each([6, 7] as const)(
    'v%i: in a file under RUNNER_TEMP the workspace git config includes',
    async (major) => {
      const file = await persistCredential(major, workspace, runnerTemp, 'ghs_token');
      expect(file).toMatch(new RegExp(`^${runnerTemp}/git-credentials-[0-9a-f-]{36}\\.config$`));
      expect(readFileSync(join(workspace, '.git', 'config'), 'utf8')).not.toContain('ghs_token');
      expect(readFileSync(join(workspace, '.git', 'config'), 'utf8')).not.toContain(basic.split(' ')[2]);
      expect(header()).toBe(basic);
    },
  );
});

describe('the workflows README and docs/ show', () => {
  it('pin actions/checkout at v7, the newest major, every one the same way', () => {
    const pins = PAGES.flatMap((file) =>
      [...readFileSync(join(REPO_ROOT, file), 'utf8').matchAll(/uses: (actions\/checkout@\S+)/g)].map(
        (m) => m[1],
      ),
    );
    expect(pins.length).toBeGreaterThan(10);
    expect(new Set(pins)).toEqual(new Set(['actions/checkout@v7']));
  });
});
