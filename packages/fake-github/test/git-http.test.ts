import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commitToBare, seedRepo, startFakeGithub } from '../src/index.js';
import type { FakeGithub } from '../src/index.js';
import { cloneUrl, gitClient, restClient, scratchDir } from './test-support.js';

describe('git smart HTTP', () => {
  let gh: FakeGithub;
  let dir: string;
  let cleanup: () => Promise<void>;
  let seeded: string;

  beforeEach(async () => {
    ({ dir, cleanup } = await scratchDir());
    seeded = await seedRepo(join(dir, 'repo.git'), {
      'README.md': '# hi\n',
      'src/app.ts': 'export const a = 1;\n',
    });
    gh = await startFakeGithub({
      repos: { 'acme/app': join(dir, 'repo.git') },
      extraTokens: { 'human-token': 'mona' },
    });
  });
  afterEach(async () => {
    await gh.stop();
    await cleanup();
  });

  it('clones, and a push is seen by the API and the activity list with its actor', async () => {
    const work = join(dir, 'work');
    await gitClient(dir, ['clone', '--quiet', cloneUrl(gh.url, 'acme/app', 'test-token'), work], dir);
    expect(await readFile(join(work, 'src/app.ts'), 'utf8')).toBe('export const a = 1;\n');

    await writeFile(join(work, 'src/app.ts'), 'export const a = 2;\n');
    await gitClient(work, ['commit', '--quiet', '-am', 'change a'], dir);
    const pushed = (await gitClient(work, ['rev-parse', 'HEAD'], dir)).trim();
    await gitClient(work, ['push', '--quiet', 'origin', 'HEAD:main'], dir);

    const api = restClient(gh.url);
    const ref = await api('GET', '/repos/acme/app/git/ref/heads/main');
    expect(ref.body.object.sha).toBe(pushed);
    const content = await api('GET', '/repos/acme/app/contents/src/app.ts?ref=main');
    expect(Buffer.from(content.body.content, 'base64').toString('utf8')).toBe('export const a = 2;\n');
    const activity = await api('GET', '/repos/acme/app/activity?ref=main');
    expect(activity.body[0]).toMatchObject({
      before: seeded,
      after: pushed,
      ref: 'refs/heads/main',
      activity_type: 'push',
    });
    expect(activity.body[0].actor.login).toBe('github-actions[bot]');
    expect(gh.stats().byRoute['GIT POST /{owner}/{repo}.git/git-receive-pack']).toBe(1);
  });

  it('serves a shallow fetch authenticated the way actions/checkout does (http.extraheader)', async () => {
    const work = join(dir, 'checkout');
    const basic = Buffer.from('x-access-token:test-token').toString('base64');
    await gitClient(dir, ['init', '--quiet', work], dir);
    await gitClient(work, ['remote', 'add', 'origin', `${gh.url}/acme/app.git`], dir);
    await gitClient(work, ['config', 'http.extraheader', `AUTHORIZATION: basic ${basic}`], dir);
    await gitClient(
      work,
      ['fetch', '--quiet', '--no-tags', '--depth=1', 'origin', '+refs/heads/main:refs/remotes/origin/main'],
      dir,
    );
    await gitClient(work, ['checkout', '--quiet', '-B', 'main', 'refs/remotes/origin/main'], dir);
    expect((await gitClient(work, ['rev-parse', 'HEAD'], dir)).trim()).toBe(seeded);
    expect(await readFile(join(work, 'README.md'), 'utf8')).toBe('# hi\n');
    await writeFile(join(work, 'README.md'), '# changed\n');
    await gitClient(work, ['commit', '--quiet', '-am', 'from a shallow clone'], dir);
    await gitClient(work, ['push', '--quiet', 'origin', 'HEAD:refs/heads/topic'], dir);
    const activity = await restClient(gh.url)('GET', '/repos/acme/app/activity?ref=topic');
    expect(activity.body[0]).toMatchObject({ activity_type: 'branch_creation', ref: 'refs/heads/topic' });
  });

  it('records a force push by another token with that actor', async () => {
    const work = join(dir, 'work');
    await gitClient(dir, ['clone', '--quiet', cloneUrl(gh.url, 'acme/app', 'human-token'), work], dir);
    await gitClient(work, ['commit', '--quiet', '--amend', '-m', 'rewritten'], dir);
    await gitClient(work, ['push', '--quiet', '--force', 'origin', 'HEAD:main'], dir);
    const activity = await restClient(gh.url)('GET', '/repos/acme/app/activity');
    expect(activity.body[0]).toMatchObject({ before: seeded, activity_type: 'force_push' });
    expect(activity.body[0].actor.login).toBe('mona');
  });

  it('fetches commits made directly in the bare repository', async () => {
    const work = join(dir, 'work');
    await gitClient(dir, ['clone', '--quiet', cloneUrl(gh.url, 'acme/app', 'test-token'), work], dir);
    const direct = await commitToBare(
      join(dir, 'repo.git'),
      'main',
      { 'src/app.ts': null, 'new.txt': 'n\n' },
      'direct',
    );
    await gitClient(work, ['pull', '--quiet', '--ff-only'], dir);
    expect((await gitClient(work, ['rev-parse', 'HEAD'], dir)).trim()).toBe(direct);
    expect(await readFile(join(work, 'new.txt'), 'utf8')).toBe('n\n');
  });

  describe('when a push changes .github/workflows', () => {
    it('refuses it like GitHub refuses a token without the workflows permission', async () => {
      const work = join(dir, 'work');
      await gitClient(dir, ['clone', '--quiet', cloneUrl(gh.url, 'acme/app', 'test-token'), work], dir);
      await mkdir(join(work, '.github/workflows'), { recursive: true });
      await writeFile(join(work, '.github/workflows/ci.yml'), 'on: push\n');
      await gitClient(work, ['add', '.'], dir);
      await gitClient(work, ['commit', '--quiet', '-m', 'add a workflow'], dir);
      await expect(gitClient(work, ['push', '--quiet', 'origin', 'HEAD:main'], dir)).rejects.toThrow(
        /refusing to allow a GitHub App to create or update workflow `.github\/workflows\/ci.yml`/,
      );
      const ref = await restClient(gh.url)('GET', '/repos/acme/app/git/ref/heads/main');
      expect(ref.body.object.sha).toBe(seeded);
    });

    it('accepts it when the token has the permission', async () => {
      await gh.stop();
      gh = await startFakeGithub({ repos: { 'acme/app': join(dir, 'repo.git') }, workflowsPermission: true });
      const work = join(dir, 'work');
      await gitClient(dir, ['clone', '--quiet', cloneUrl(gh.url, 'acme/app', 'test-token'), work], dir);
      await mkdir(join(work, '.github/workflows'), { recursive: true });
      await writeFile(join(work, '.github/workflows/ci.yml'), 'on: push\n');
      await gitClient(work, ['add', '.'], dir);
      await gitClient(work, ['commit', '--quiet', '-m', 'add a workflow'], dir);
      await gitClient(work, ['push', '--quiet', 'origin', 'HEAD:main'], dir);
      const ref = await restClient(gh.url)('GET', '/repos/acme/app/git/ref/heads/main');
      expect(ref.body.object.sha).not.toBe(seeded);
    });
  });

  describe('when the token is missing or wrong', () => {
    it('answers 401 with a Basic challenge', async () => {
      for (const auth of [undefined, `Basic ${Buffer.from('x-access-token:nope').toString('base64')}`]) {
        const response = await fetch(`${gh.url}/acme/app.git/info/refs?service=git-upload-pack`, {
          headers: auth ? { authorization: auth } : {},
        });
        expect(response.status).toBe(401);
        expect(response.headers.get('www-authenticate')).toMatch(/^Basic /);
      }
    });

    it('makes git clone fail', async () => {
      await expect(
        gitClient(dir, ['clone', '--quiet', cloneUrl(gh.url, 'acme/app', 'wrong'), join(dir, 'w2')], dir),
      ).rejects.toThrow(/Authentication failed|401/);
    });
  });

  describe('when a client asks for object-info (blob sizes without the blobs)', () => {
    const basic = `Basic ${Buffer.from('x-access-token:test-token').toString('base64')}`;
    const pkt = (line: string) => `${(line.length + 4).toString(16).padStart(4, '0')}${line}`;

    it('does not advertise it in protocol v2, as GitHub does not', async () => {
      const response = await fetch(`${gh.url}/acme/app.git/info/refs?service=git-upload-pack`, {
        headers: { authorization: basic, 'git-protocol': 'version=2' },
      });
      const advertised = await response.text();
      expect(advertised).toContain('fetch=');
      expect(advertised).toContain('ls-refs');
      expect(advertised).not.toContain('object-info');
    });

    it('refuses the command', async () => {
      const blob = (
        await gitClient(dir, ['--git-dir', join(dir, 'repo.git'), 'rev-parse', 'main:README.md'], dir)
      ).trim();
      const body = `${pkt('command=object-info\n')}0001${pkt('size\n')}${pkt(`oid ${blob}\n`)}0000`;
      const response = await fetch(`${gh.url}/acme/app.git/git-upload-pack`, {
        method: 'POST',
        headers: {
          authorization: basic,
          'git-protocol': 'version=2',
          'content-type': 'application/x-git-upload-pack-request',
        },
        body,
      });
      expect(response.status).toBe(400);
      expect(await response.text()).not.toContain(blob);
    });
  });

  it('answers 404 for a repository it does not serve', async () => {
    const response = await fetch(`${gh.url}/acme/other.git/info/refs?service=git-upload-pack`, {
      headers: { authorization: `Basic ${Buffer.from('x-access-token:test-token').toString('base64')}` },
    });
    expect(response.status).toBe(404);
  });
});
