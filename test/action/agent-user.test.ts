import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  AGENT_USER,
  agentHomeAt,
  checkNoRootLeft,
  trustedBinary,
} from '../../src/action/agent-job/agent-user.js';

const agent = agentHomeAt('/var/lib/perimeter/run-x.agent\nthe agent user reaches loopback only\n');
const listing = (...rules: string[]): string =>
  [
    'Matching Defaults entries for runner on vm:',
    '    env_reset, secure_path=/usr/local/sbin\\:/usr/bin',
    '',
    'User runner may run the following commands on vm:',
    ...rules.map((rule) => `    ${rule}`),
    '',
  ].join('\n');
const DENY = '(ALL : ALL) !ALL';
const AS_AGENT = `(${AGENT_USER}) SETENV: NOPASSWD: /var/lib/perimeter/run-x.agent/as-agent`;
const END_AGENT = `(${AGENT_USER}) NOPASSWD: /var/lib/perimeter/run-x.agent/end-agent ""`;

describe('checkNoRootLeft', () => {
  describe("when only run-agent's rules follow the denial", () => {
    it('passes, whatever came before the denial', () => {
      expect(() =>
        checkNoRootLeft(listing('(ALL) NOPASSWD: ALL', DENY, AS_AGENT, END_AGENT), agent),
      ).not.toThrow();
    });
  });

  describe('when a rule follows the denial (a group rule in a file that sorts after it)', () => {
    it('throws naming it, though sudo -n true would fail', () => {
      expect(() =>
        checkNoRootLeft(listing(DENY, AS_AGENT, END_AGENT, '(root) NOPASSWD: /usr/bin/tee'), agent),
      ).toThrow(
        /can still run commands as another user after sudo was denied: "\(root\) NOPASSWD: \/usr\/bin\/tee"/,
      );
    });

    it("throws for a rule for the agent's user that is not run-agent's", () => {
      expect(() => checkNoRootLeft(listing(DENY, `(${AGENT_USER}) NOPASSWD: ALL`), agent)).toThrow(
        /NOPASSWD: ALL/,
      );
    });
  });

  describe('when there is no denial at all, or sudo listed nothing', () => {
    it('throws', () => {
      expect(() => checkNoRootLeft(listing(AS_AGENT), agent)).toThrow(/no denial in effect/);
      expect(() => checkNoRootLeft('', agent)).toThrow(/no denial in effect/);
    });
  });
});

describe('trustedBinary', () => {
  it('finds a root-owned program in the trusted directories', () => {
    expect(trustedBinary('sh')).toMatch(/^\/(usr\/)?bin\//);
  });

  it('refuses where there is none', () => {
    expect(() => trustedBinary('nothing-here', '/tmp')).toThrow(/no nothing-here a trusted process may run/);
  });

  it('refuses a program others may write, or in a directory others may write', () => {
    const dir = mkdtempSync(join(tmpdir(), 'perimeter-bin-'));
    try {
      writeFileSync(join(dir, 'git'), '#!/bin/sh\n', { mode: 0o755 });
      chmodSync(join(dir, 'git'), 0o777);
      expect(() => trustedBinary('git', dir)).toThrow(
        /git (is writable by others \(mode 777\)|belongs to uid)/,
      );
      chmodSync(join(dir, 'git'), 0o755);
      chmodSync(dir, 0o777);
      expect(() => trustedBinary('git', dir)).toThrow(/(is writable by others \(mode 777\)|belongs to uid)/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
