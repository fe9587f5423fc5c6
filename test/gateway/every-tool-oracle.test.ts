/**
 * The read properties, over EVERY registered tool (src/gateway/tools/all-tools.ts), the new ones included:
 *
 * - hidden equals missing: a tool asked about a hidden file, folder or commit answers exactly as it does
 *   about a missing one of the same shape (a commit that changed hidden files only, an unknown SHA), and
 *   makes the same upstream requests (counted by the stand-in, per route), on both of the gateway's routes:
 *   with the history copy (git-history.ts) and by the API alone (no trusted git, or the copy failed);
 * - no secret: whatever a tool is asked about readable files holding secret values of every provider form
 *   the detector knows, no value (nor a long piece of one) is in any answer, and a search for a piece of a
 *   real secret answers as a search for a piece of a made-up one;
 * - bounded: every answer stays under a size limit.
 *
 * The table of arguments is typed by the catalogue: a tool registered without a case here does not compile.
 * Tools that serve nothing of the repository (`serves: 'nothing'`) may have no hidden-equals-missing case;
 * any other tool must.
 */
import { tmpdir } from 'node:os';
import fc from 'fast-check';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitToBare } from '@perimeter/fake-github';
import {
  answerOf,
  call,
  fill,
  providerSamples,
  startHarness,
  textOf,
  type Harness,
} from '@perimeter/test-rigs';
import { TOOL_CATALOGUE, type ToolName } from '../../src/policy/index.js';
import { ALL_TOOLS } from '../../src/gateway/tools/all-tools.js';
import { createSecretFilter } from '../../src/safety/index.js';

const CONFIG = `
version: 1
perimeters:
  dev:
    read: ["src/**", "docs/**"]
    write: ["src/**"]
`;

/**
 * What a case is asked about: a file, its folder, a commit that changed it and nothing else, a word in it,
 * and a visible commit that changed it beside a readable file (the same commit on both sides).
 */
interface Target {
  file: string;
  dir: string;
  commit: string;
  word: string;
  mixed: string;
}
/** the calls a case makes about a target */
type Case = ((t: Target) => Array<Record<string, unknown>>) | null;

const CASES = {
  get_tree: (t) => [{ path: t.dir, recursive: true }, { recursive: true }],
  get_file: (t) => [{ path: t.file }],
  get_files: (t) => [{ paths: [t.file, 'src/a.ts'] }],
  list_commits: (t) => [{ path: t.dir }, {}],
  get_commit: (t) => [{ sha: t.commit }],
  search: (t) => [{ pattern: t.word, path: t.dir, context: 2 }, { pattern: t.word }],
  blame: (t) => [{ path: t.file }],
  diff: (t) => [
    { sha: t.commit, context: 2 },
    { sha: t.mixed, path: t.dir },
    { sha: t.mixed },
    { sha: t.mixed, base: t.commit },
    { sha: t.commit, base: t.mixed },
  ],
  push_files: (t) => [{ message: 'edit', files: [{ path: t.file, content: `${t.word}\n` }] }],
  // serve nothing of the repository: no hidden-equals-missing question to ask (the conversation tools'
  // own refusals and filters: test/action/conversation-tools.test.ts, test/safety/outgoing-text.test.ts)
  request_scope: null,
  open_pull_request: null,
  add_comment: null,
  read_thread: null,
} as const satisfies { readonly [N in ToolName]: Case };

/** Folders no call has asked about yet: each run of the property takes a fresh pair. */
const FOLDERS = 8;
const SECRETS = providerSamples();
const MAX_ANSWER_CHARS = 8 * 1_048_576;

function keysFile(): string {
  return SECRETS.map((s, i) => `export const key${i} = "${s.value}"; // ${s.kind}\n`).join('');
}

/** An argument that takes a commit: named so, or described as asking for a SHA. */
function takesCommit(name: string, schema: unknown): boolean {
  const description = (schema as { description?: string }).description ?? '';
  return /^(?:sha|commit)$/.test(name) || /\bSHA\b/.test(description);
}

/**
 * The gateway's routes to history: its copy over git (as the action starts it), or the API alone (no trusted
 * git, or the copy failed), with GraphQL or (its budget spent) REST alone. The secret property asks about
 * content, which no route changes but the first two: it runs there.
 */
const ROUTES = [
  { route: 'with the history copy', copy: true, graphql: true },
  { route: 'by the API alone', copy: false, graphql: true },
  { route: 'by REST alone', copy: false, graphql: false },
] as const;

describe.each(ROUTES)('every tool, hidden or missing, readable or secret, $route', ({ copy, graphql }) => {
  let h: Harness;
  let dev: Client;
  const hiddenCommits: string[] = [];
  const mixedCommits: string[] = [];
  let keysCommit: string;
  let readableCommit: string;

  beforeAll(async () => {
    h = await startHarness({
      config: CONFIG,
      filter: createSecretFilter(),
      files: { 'src/a.ts': 'export const a = 1;\n', 'docs/readme.md': '# docs\n' },
      ...(copy ? { upstream: { history: { dir: tmpdir(), branch: 'main' } } } : {}),
      ...(graphql ? {} : { graphqlRateLimit: 0 }),
    });
    for (let k = 0; k < FOLDERS; k++) {
      hiddenCommits.push(
        await commitToBare(
          h.repoDir,
          'main',
          { [`h${k}/deep/file.ts`]: `export function target${k}() {}\n`, [`h${k}/other.md`]: 'other\n' },
          `hidden ${k}`,
        ),
      );
      const files = {
        [`h${k}/deep/file.ts`]: `export function target${k}() { return 1; }\n`,
        [`src/visible${k}.ts`]: `${k}\n`,
      };
      mixedCommits.push(await commitToBare(h.repoDir, 'main', files, `mixed ${k}`));
    }
    keysCommit = await commitToBare(h.repoDir, 'main', { 'src/keys.ts': keysFile() }, 'keys');
    readableCommit = await commitToBare(
      h.repoDir,
      'main',
      { 'src/a.ts': 'export const a = 2;\n' },
      'visible',
    );
    dev = await h.connect('dev');
    // what both sides share, loaded once: the head's tree
    await call(dev, 'get_tree', {});
    // the route is the one named: the copy holds the head, or there is none
    expect(h.upstream.holdsHistory?.(await h.head()) ?? false).toBe(copy);
  });
  afterAll(async () => h.close());

  it('has a case for every registered tool, and skips only tools that serve nothing', () => {
    for (const tool of ALL_TOOLS) {
      expect(Object.keys(CASES), tool.name).toContain(tool.name);
      if (CASES[tool.name] === null) expect(TOOL_CATALOGUE[tool.name].serves, tool.name).toBe('nothing');
    }
  });

  it('asks every argument that takes a commit about one, and a readable commit answers there', async () => {
    const probe: Target = { file: 'F', dir: 'D', commit: 'C', word: 'W', mixed: 'X' };
    const readable: Target = {
      file: 'src/a.ts',
      dir: 'src',
      commit: readableCommit,
      word: 'export',
      mixed: mixedCommits[0]!,
    };
    for (const tool of ALL_TOOLS) {
      const cases = CASES[tool.name] as Case;
      const ask = (t: Target): Array<Record<string, unknown>> => cases?.(t) ?? [];
      for (const [name, schema] of Object.entries(tool.inputSchema)) {
        if (!takesCommit(name, schema)) continue;
        // hidden-equals-missing asks this argument about a hidden commit and an unknown SHA...
        const at = ask(probe).flatMap((args, i) => (args[name] === probe.commit ? [i] : []));
        expect(at, `${tool.name}.${name}: a case asks it about a commit`).not.toHaveLength(0);
        // ...and the same calls about a readable commit answer it: "not found" is not all they can say
        for (const i of at) {
          const args = ask(readable)[i]!;
          const result = await call(dev, tool.name, args);
          expect(result.isError, `${tool.name} ${JSON.stringify(args)}`).not.toBe(true);
        }
      }
    }
  });

  async function measure(name: string, args: Record<string, unknown>, names: string[]) {
    h.fake.resetStats();
    const result = await call(dev, name, args);
    const { total, graphqlPoints, byRoute } = h.fake.stats();
    let text = JSON.stringify({
      text: textOf(result),
      error: result.isError === true,
      answer: answerOf(result),
    });
    for (const [i, n] of names.entries()) text = text.replaceAll(n, `<name${i}>`);
    return { answer: text, requests: JSON.stringify({ total, graphqlPoints, byRoute }) };
  }

  it('answers a hidden file, folder or commit as a missing one, with the same requests', async () => {
    let run = 0;
    const asked = (Object.keys(CASES) as ToolName[]).filter((n) => CASES[n] !== null);
    await fc.assert(
      fc.asyncProperty(
        fc.shuffledSubarray(asked, { minLength: asked.length }),
        fc.boolean(),
        async (tools, hiddenFirst) => {
          const k = run++ % FOLDERS;
          const unknown = fill(`missing-${k}`, 40, '0123456789abcdef');
          const third = fill(`third-${k}`, 40, '0123456789abcdef');
          const hidden: Target = {
            file: `h${k}/deep/file.ts`,
            dir: `h${k}`,
            commit: hiddenCommits[k]!,
            word: `target${k}`,
            mixed: mixedCommits[k]!,
          };
          const missing: Target = {
            file: `m${k}/deep/file.ts`,
            dir: `m${k}`,
            commit: unknown,
            word: `target${k}`,
            mixed: mixedCommits[k]!,
          };
          for (const name of tools) {
            const calls = (CASES[name] as NonNullable<Case>)(hidden).map((args, i) => ({
              hidden: args,
              missing: (CASES[name] as NonNullable<Case>)(missing)[i]!,
            }));
            for (const pair of calls) {
              // what no side's answer depends on (a commit's changes, the head's tree) loaded first, by the
              // same call about a third name and SHA that are missing too: then whichever side goes first
              // pays nothing for it
              const warm = JSON.stringify(pair.missing)
                .replaceAll(`m${k}`, `n${k}`)
                .replaceAll(unknown, third);
              await call(dev, name, JSON.parse(warm));
              // and about a commit, every other run: the branch listed first, as an agent would, so whatever
              // a listing learns of the commits it passes over (a hidden one among them) is known before
              // either side asks (the other runs: nothing is)
              if (k % 2 === 1 && JSON.stringify(pair.missing).includes(unknown))
                await call(dev, 'list_commits', {});
              const measured = new Map<Target, { answer: string; requests: string }>();
              for (const target of hiddenFirst ? [hidden, missing] : [missing, hidden]) {
                const args = target === hidden ? pair.hidden : pair.missing;
                // the names asked about differ by design: each side's own become the same placeholders
                measured.set(target, await measure(name, args, [target.commit, target.dir]));
              }
              const [a, b] = [measured.get(hidden)!, measured.get(missing)!];
              const what = `${name} ${JSON.stringify(pair.missing)}`;
              expect(a.answer, `${what}: hidden vs missing`).toBe(b.answer);
              expect(a.requests, `${what}: requests, hidden vs missing`).toBe(b.requests);
            }
          }
        },
      ),
      { numRuns: FOLDERS },
    );
  });

  it.skipIf(!graphql)(
    'never answers a secret value, and a piece of one matches as a made-up piece does',
    async () => {
      const readable: Target = {
        file: 'src/keys.ts',
        dir: 'src',
        commit: keysCommit,
        word: 'export',
        mixed: keysCommit,
      };
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 0, max: SECRETS.length - 1 }),
          fc.integer({ min: 8, max: 16 }),
          fc.nat(),
          async (which, length, at) => {
            const value = SECRETS[which]!.value;
            const start = at % Math.max(1, value.length - length);
            const piece = value.slice(start, start + length);
            const madeUp = fill(`made-up-${which}-${start}`, piece.length);
            for (const tool of ALL_TOOLS) {
              const args = CASES[tool.name];
              if (args === null || tool.nature.writes) continue;
              for (const target of [readable, { ...readable, word: piece }])
                for (const asked of args(target)) {
                  const result = await call(dev, tool.name, asked);
                  const seen = `${textOf(result)}\n${JSON.stringify(answerOf(result) ?? {})}`;
                  expect(seen.length, `${tool.name}: bounded`).toBeLessThan(MAX_ANSWER_CHARS);
                  for (const s of SECRETS) {
                    expect(seen, `${tool.name} shows ${s.kind}`).not.toContain(s.value);
                    const middle = Math.floor(s.value.length / 2);
                    expect(seen, `${tool.name} shows a piece of ${s.kind}`).not.toContain(
                      s.value.slice(middle - 8, middle + 8),
                    );
                  }
                }
            }
            const real = await measure('search', { pattern: piece }, [piece]);
            const fake = await measure('search', { pattern: madeUp }, [madeUp]);
            expect(real.answer, `search for a piece of ${SECRETS[which]!.kind}`).toBe(fake.answer);
          },
        ),
        { numRuns: 12 },
      );
    },
  );
});
