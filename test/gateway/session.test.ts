import { readFile, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyLedger } from '../../src/ledger/index.js';
import { readLedgerFacts } from '../../src/verify/index.js';
import { secretForms } from '../../src/safety/secret-forms.js';
import { createSecretFilter } from '../../src/safety/index.js';
import { answerOf, call, fakeToken, startHarness, textOf, type Harness } from '@perimeter/test-rigs';
import { gitText } from '@perimeter/fake-github';

const CONFIG = `
version: 1
perimeters:
  implementer:
    read: ["src/**", "notes/**"]
    write: ["src/**"]
  tester:
    read: ["test/**"]
    write: ["test/**"]
`;

describe('a gateway session', () => {
  const token = fakeToken();
  let h: Harness;
  const answers: string[] = [];
  let commit = '';

  beforeAll(async () => {
    h = await startHarness({
      token,
      filter: createSecretFilter({ extraSecrets: [token] }),
      config: CONFIG,
      files: {
        'src/index.ts': 'export {};\n',
        'notes/leak.md': `a token someone pasted: ${token}\nand its base64: ${Buffer.from(`x-access-token:${token}`).toString('base64')}\n`,
        'test/a.test.ts': 'test\n',
      },
    });
    const implementer = await h.connect('implementer');
    const tester = await h.connect('tester');
    const record = async (client: typeof implementer, name: string, args: Record<string, unknown>) => {
      const result = await call(client, name, args);
      answers.push(JSON.stringify(result));
      return result;
    };
    await record(implementer, 'get_tree', { recursive: true });
    await record(implementer, 'get_file', { path: 'notes/leak.md' });
    await record(implementer, 'get_files', { paths: ['notes/leak.md', `src/${token}.ts`] });
    await record(implementer, 'get_file', { path: `notes/${token}` });
    await record(implementer, 'get_file', { path: 'test/a.test.ts' });
    await record(implementer, 'no_such_tool', { path: token });
    await record(implementer, 'get_file', { path: 7 });
    const pushed = await record(implementer, 'push_files', {
      message: 'one change',
      files: [{ path: 'src/b.ts', content: 'export const b = 1;\n' }],
    });
    commit = (answerOf(pushed) as { commit: string }).commit;
    await record(tester, 'push_files', { message: 'outside', files: [{ path: 'src/c.ts', content: 'x' }] });
    await record(implementer, 'push_files', {
      message: `about ${token}`,
      files: [{ path: 'src/t.ts', content: `const t = "${token}";\n` }],
    });
    // get_commit of the first commit (not one of the gateway's own pushes, which it answers from what it
    // pushed) first asks whether it is on the branch (a compare), then diffs its trees (known already from
    // the first get_tree): the compare fails, and so would the batched GraphQL calls, the file list or a
    // tree by REST
    const first = (await gitText(h.repoDir, ['rev-list', '--max-parents=0', 'main'])).trim();
    h.fake.injectFault({
      kind: 'status',
      status: 502,
      count: 10,
      route: /trees|graphql|compare|^GET \/repos\/\{owner\}\/\{repo\}\/commits\/\{ref\}$/,
    });
    await record(implementer, 'get_commit', { sha: first });
    h.fake.clearFaults();
    await h.gateway.close();
  });
  afterAll(async () => h.close());

  it('hides secrets in answers and says how many it hid', async () => {
    const leak = answers[1]!;
    expect(leak).toMatch(/\[hidden: /);
    expect(leak).toMatch(/"redacted":\{"count":2/);
    expect(leak).toMatch(/secret-looking value\(s\) hidden/);
  });

  it('never lets the token out: not in an answer, a log line or the ledger, in any encoding', async () => {
    const ledger = await readFile(h.ledgerPath, 'utf8');
    const everything = [...answers, ...h.logs, ledger].join('\n');
    expect(answers).toHaveLength(11);
    expect(ledger.split('\n').length).toBeGreaterThan(11);
    for (const form of secretForms([token])) expect(everything).not.toContain(form);
  });

  it('keeps contents and messages out of the ledger, as length and digest', async () => {
    const ledger = await readFile(h.ledgerPath, 'utf8');
    expect(ledger).not.toContain('export const b = 1;');
    expect(ledger).not.toContain('one change');
    const push = ledger
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((r) => r.commit === commit)!;
    expect(push).toMatchObject({
      tool: 'push_files',
      decision: 'allowed',
      message: { length: 10, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
      content: [{ path: 'src/b.ts', length: 20 }],
    });
  });

  it('records every call, allowed, refused and failed, and the ledger verifies', async () => {
    expect(await verifyLedger(h.ledgerPath, h.ledgerKey)).toEqual({ ok: true, records: 13 });
    const facts = await readLedgerFacts(h.ledgerPath, h.ledgerKey);
    expect(facts).toEqual({
      ok: true,
      commits: [commit],
      records: 13,
      head: expect.stringMatching(/^[0-9a-f]{64}$/),
      perPerimeter: {
        implementer: { calls: 10, refusals: 4, hidden: 6, credentialRefusals: 1 },
        tester: { calls: 1, refusals: 1 },
      },
    });
    const records = (await readFile(h.ledgerPath, 'utf8'))
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { tool?: string; decision?: string; reason?: string });
    expect(records.map((r) => r.decision ?? '-')).toEqual([
      '-',
      'allowed',
      'allowed',
      'allowed',
      'allowed',
      'refused',
      'refused',
      'refused',
      'allowed',
      'refused',
      'refused',
      'failed',
      '-',
    ]);
    expect(records[11]!.reason).toMatch(/unavailable|502/);
    const firstCall = records[1] as {
      upstream: { requests: number; git: number; exact: boolean };
      duration_ms: number;
    };
    // the head over git (the advertisement, then ls-refs), the rest by REST or GraphQL
    expect(firstCall.upstream.git).toBe(2);
    expect(firstCall.upstream.requests).toBeGreaterThanOrEqual(2);
    expect(firstCall.upstream.exact).toBe(true);
    expect(firstCall.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it('catches a tampered copy at the right record', async () => {
    const lines = (await readFile(h.ledgerPath, 'utf8')).trimEnd().split('\n');
    lines[9] = lines[9]!.replace('"refused"', '"allowed"');
    const copy = `${h.ledgerPath}.tampered`;
    await writeFile(copy, `${lines.join('\n')}\n`);
    expect(await verifyLedger(copy, h.ledgerKey)).toMatchObject({ ok: false, brokenAt: 10 });
  });

  it('answers an upstream failure with a clear, scrubbed error', async () => {
    expect(textOf(JSON.parse(answers[10]!))).toMatch(/GitHub/);
  });
});
