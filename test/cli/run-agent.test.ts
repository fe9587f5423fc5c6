import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agentEnvironment, tryLock } from '../../src/cli/run-agent.js';

describe('agentEnvironment', () => {
  const step = {
    PATH: '/home/runner/bin:/usr/bin',
    HOME: '/home/runner',
    TASK: 'count',
    ANTHROPIC_API_KEY: 'sk-ant-x',
    GITHUB_ENV: '/home/runner/work/_temp/_runner_file_commands/set_env',
    GITHUB_PATH: 'p',
    GITHUB_OUTPUT: 'o',
    GITHUB_STATE: 's',
    GITHUB_STEP_SUMMARY: 'x',
    GITHUB_REPOSITORY: 'octo/widgets',
    ACTIONS_RUNTIME_TOKEN: 'runtime',
    ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'oidc',
    'INPUT_GITHUB-TOKEN': 'ghs_x',
    STATE_isolation: '{}',
    SUDO_USER: 'runner',
  };
  const agent = { user: 'perimeter-agent', dir: '/var/lib/perimeter/run-x.agent', cwd: '/w', proxy: null };

  describe('when the step holds the runner variables', () => {
    it('hands the agent the rest, and its own home, temp and user', () => {
      expect(agentEnvironment(step, agent)).toEqual({
        PATH: '/home/runner/bin:/usr/bin',
        TASK: 'count',
        ANTHROPIC_API_KEY: 'sk-ant-x',
        GITHUB_REPOSITORY: 'octo/widgets',
        HOME: '/var/lib/perimeter/run-x.agent/home',
        TMPDIR: '/var/lib/perimeter/run-x.agent/tmp',
        USER: 'perimeter-agent',
        LOGNAME: 'perimeter-agent',
        PERIMETER_AGENT_PATH: '/home/runner/bin:/usr/bin',
        PERIMETER_AGENT_CWD: '/w',
      });
    });
  });

  describe('when main started an egress proxy', () => {
    it('sends everything but loopback through it', () => {
      const env = agentEnvironment(step, { ...agent, proxy: 'http://127.0.0.1:3128' });
      expect(env.HTTPS_PROXY).toBe('http://127.0.0.1:3128');
      expect(env.http_proxy).toBe('http://127.0.0.1:3128');
      expect(env.NO_PROXY).toBe('127.0.0.1,localhost,::1');
    });
  });
});

describe('tryLock', () => {
  const dirs: string[] = [];
  const lockIn = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'run-agent-lock-'));
    dirs.push(dir);
    return join(dir, 'run-agent.pid');
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  describe('when no run-agent holds it', () => {
    it('takes it, writing its pid', () => {
      const lock = lockIn();
      expect(tryLock(lock, 4242)).toBeNull();
      expect(readFileSync(lock, 'utf8')).toBe('4242');
    });
  });

  describe('when a running run-agent holds it', () => {
    it("answers that one's pid and leaves the lock as it was", () => {
      const lock = lockIn();
      expect(tryLock(lock)).toBeNull();
      expect(tryLock(lock, 4242)).toBe(process.pid);
      expect(readFileSync(lock, 'utf8')).toBe(String(process.pid));
    });
  });

  describe('when the run-agent that took it is gone (killed before it removed it)', () => {
    it('takes it over', () => {
      const lock = lockIn();
      const gone = spawnSync('true').pid as number;
      expect(tryLock(lock, gone)).toBeNull();
      expect(tryLock(lock, 4242)).toBeNull();
      expect(readFileSync(lock, 'utf8')).toBe('4242');
    });
  });
});
