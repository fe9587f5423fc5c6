/**
 * Leaks: one whole action run the way a runner runs it (main, an agent session, post), everything it emits
 * collected, and the job's token searched for in raw, URL-encoded and base64 form (every byte alignment,
 * standard and URL-safe alphabets). The only place the token may appear is the `::add-mask::` command
 * that tells the runner to mask it; nothing here relies on that masking.
 */
import { appendFileSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionDir, FILES, git, Job, REPOSITORY } from '@perimeter/test-rigs';
import { jobSuite } from '../action/support/suite.js';

/** Every form of `secret` that could show up in text, each long enough to be unambiguous. */
export function encodedForms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const forms = new Set([secret, encodeURIComponent(secret), bytes.toString('hex')]);
  for (let shift = 0; shift < 3; shift++) {
    const encoded = Buffer.concat([Buffer.alloc(shift), bytes]).toString('base64');
    // the characters that depend on the secret's bytes only, whatever precedes or follows them
    const core = encoded.slice(Math.ceil((shift * 8) / 6), Math.floor(((shift + bytes.length) * 8) / 6));
    forms.add(core);
    forms.add(core.replaceAll('+', '-').replaceAll('/', '_'));
  }
  return [...forms];
}

function filesUnder(dir: string): Array<{ path: string; text: string }> {
  const out: Array<{ path: string; text: string }> = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat) continue;
    if (stat.isDirectory()) out.push(...filesUnder(path));
    else if (stat.isFile()) out.push({ path, text: readFileSync(path).toString('latin1') });
  }
  return out;
}

describe('a whole action run', () => {
  let job: Job;
  /** where each collected text came from -> the text */
  const emitted = new Map<string, string>();
  const collect = (where: string, value: unknown): void => {
    emitted.set(where, typeof value === 'string' ? value : JSON.stringify(value));
  };

  beforeAll(async () => {
    job = await Job.create({ files: FILES, actionDir: await actionDir() });
    // a file that carries the token itself, committed before the job (as a careless commit would)
    await job.push({ 'src/leak.ts': `export const token = '${job.token}';\n` }, { message: 'careless' });

    const main = await job.main();
    expect(main.exitCode, main.log + main.stderr).toBe(0);
    const agent = await job.agent('implementer');
    const calls: Array<[string, Record<string, unknown>]> = [
      ['get_file', { path: 'src/leak.ts' }],
      ['get_file', { path: 'src/count.ts' }],
      ['get_file', { path: 'docs/roadmap.md' }],
      ['get_files', { paths: ['src/leak.ts', 'README.md', '.github/workflows/ci.yml'] }],
      ['get_tree', { recursive: true }],
      ['list_commits', {}],
      ['get_commit', { sha: await job.head() }],
      [
        'push_files',
        { message: 'ok', files: [{ path: 'src/count.ts', content: 'export const count = () => 2;\n' }] },
      ],
      [
        'push_files',
        { message: 'leak it', files: [{ path: 'src/stolen.ts', content: `const t = '${job.token}';\n` }] },
      ],
      ['push_files', { message: `message ${job.token}`, files: [{ path: 'src/m.ts', content: 'm\n' }] }],
      ['push_files', { message: 'outside', files: [{ path: 'docs/roadmap.md', content: 'x\n' }] }],
      ['get_file', { path: job.token }],
      ['get_file', { path: `src/${encodeURIComponent(job.token)}.ts` }],
      ['get_commit', { sha: 'HEAD' }],
      ['no_such_tool', {}],
      ['get_file', { path: 42 }],
    ];
    for (const [name, args] of calls) {
      try {
        collect(
          `answer ${name} ${JSON.stringify(args).slice(0, 40)}`,
          await agent.callTool({ name, arguments: args }),
        );
      } catch (error) {
        collect(`error ${name}`, `${(error as Error).message}\n${(error as Error).stack ?? ''}`);
      }
    }
    // GitHub failing under the gateway: the error answers
    job.gh.injectFault({ kind: 'status', status: 502, count: 20 });
    collect(
      'answer during 5xx',
      await agent.callTool({ name: 'get_file', arguments: { path: 'README.md' } }),
    );
    job.gh.clearFaults();
    // raw HTTP answers an agent could provoke
    const endpoint = JSON.parse(main.outputs.endpoints ?? '{}') as Record<string, string>;
    for (const [where, headers] of [
      ['no bearer', {}],
      ['bearer of the token', { authorization: `Bearer ${job.token}` }],
      ['foreign host', { host: 'evil.example' }],
    ] as const) {
      const response = await fetch(endpoint.implementer!, { method: 'POST', headers, body: '{}' });
      collect(
        `http ${where}`,
        `${response.status} ${JSON.stringify([...response.headers])} ${await response.text()}`,
      );
    }
    // a direct push with the token, as an agent holding it would (the receipt must catch it, not echo it)
    await job.push({ 'docs/roadmap.md': 'rewritten\n' }, { message: 'around the gateway' });

    const post = await job.post();
    expect(post.exitCode).toBe(1);
    for (const [step, result] of [
      ['main', main],
      ['post', post],
    ] as const) {
      const stdout = result.stdout
        .split('\n')
        .filter((line) => !line.startsWith('::add-mask::'))
        .join('\n');
      collect(`${step} stdout (add-mask commands removed)`, stdout);
      collect(`${step} stderr`, result.stderr);
      collect(`${step} outputs`, result.outputs);
      collect(`${step} state`, result.state);
      collect(`${step} exported`, result.exported);
      collect(`${step} summary`, result.summary);
      collect(`${step} annotations`, result.annotations);
    }
    // every file the job left: command files, state, ledger, gateway log, client configs, snapshots
    for (const file of filesUnder(job.runner.root)) collect(`file ${file.path}`, file.text);
    // what GitHub shows about the run afterwards
    const head = await job.head();
    const api = async (path: string): Promise<string> =>
      (await fetch(`${job.gh.url}${path}`, { headers: { authorization: `Bearer ${job.token}` } })).text();
    collect('statuses', await api(`/repos/${REPOSITORY}/commits/${head}/statuses`));
    collect('activity', await api(`/repos/${REPOSITORY}/activity`));
    collect('stand-in stats', await api('/_fake/stats'));
    collect('history', await git(job.bare, ['log', '--all', '--format=%H %an %ae %cn %ce%n%B']));
  }, 600_000);

  afterAll(async () => job?.close());

  it('collected what it meant to: answers, logs, files, receipts', () => {
    expect([...emitted.keys()].filter((k) => k.startsWith('answer')).length).toBeGreaterThanOrEqual(15);
    expect([...emitted.keys()].some((k) => /ledger/.test(k))).toBe(true);
    expect([...emitted.keys()].some((k) => /gateway.*log|\.log$/.test(k))).toBe(true);
    expect(emitted.get('post summary')).toContain('docs/roadmap.md');
    // the careless file was read, and the token in it hidden
    expect(emitted.get('answer get_file {"path":"src/leak.ts"}')).toMatch(/hidden/);
    // pushes carrying it were refused whole
    const refused = [...emitted].filter(([k]) => /^answer push_files/.test(k) && !/"ok"|"outside"/.test(k));
    expect(refused).toHaveLength(2);
    for (const [, answer] of refused) expect(JSON.parse(answer)).toMatchObject({ isError: true });
  });

  it('finds the token nowhere, in any encoding', () => {
    const forms = encodedForms(job.token);
    expect(forms.length).toBeGreaterThanOrEqual(4);
    const found: string[] = [];
    for (const [where, text] of emitted) {
      for (const form of forms)
        if (text.includes(form)) found.push(`${where}: ${form === job.token ? 'raw' : form}`);
    }
    expect(found).toEqual([]);
  });

  it('can find it when it is there (the search is not blind)', () => {
    const token = job.token;
    const probes = [
      `x ${token} y`,
      `https://x-access-token:${encodeURIComponent(token)}@github.com`,
      Buffer.from(`x-access-token:${token}`).toString('base64'),
      Buffer.from(`ab${token}`).toString('base64url'),
      Buffer.from(`a${token}`).toString('base64'),
    ];
    for (const probe of probes)
      expect(
        encodedForms(token).some((form) => probe.includes(form)),
        probe,
      ).toBe(true);
  });
});

describe('the gateway log post quotes in the job summary', () => {
  const { started } = jobSuite();

  it('shows no form of the token, whoever wrote it there', async () => {
    const job = await started();
    const token = job.token;
    // what a crash dump, a library or the agent (same user) could write past the gateway's own scrubbing
    const lines = [
      `raw ${token}`,
      `url https://x-access-token:${encodeURIComponent(token)}@github.com`,
      `basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`,
      `shifted ${Buffer.from(`ab${token}`).toString('base64url')}`,
      `hex ${Buffer.from(token).toString('hex')}`,
    ];
    process.kill(job.gatewayPid(), 'SIGKILL');
    appendFileSync(job.runner.main!.state.logPath!, `${lines.join('\n')}\n`);
    const post = await job.post();
    expect(post.exitCode).toBe(1);
    expect(post.summary).toContain('Gateway log (last lines)');
    for (const shown of ['raw ***', 'x-access-token:***@', 'basic ***', 'shifted ***', 'hex ***'])
      expect(post.summary).toContain(shown);
    // the runner's mask command is the one place the token may stand (see above)
    const stdout = post.stdout
      .split('\n')
      .filter((line) => !line.startsWith('::add-mask::'))
      .join('\n');
    const shown = post.summary + stdout + post.stderr;
    expect(encodedForms(token).filter((form) => shown.includes(form))).toEqual([]);
  });
});
