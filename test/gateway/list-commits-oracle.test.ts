/**
 * list_commits on a hidden folder is a list_commits on a missing one: whatever the page size, the page, the
 * depth of the path and the calls before, both answer alike and make the same upstream requests, counted
 * by the GitHub stand-in (per route, GraphQL points included). Before, a hidden folder with history made a
 * GraphQL call where a missing path made a REST ref check (per_page 13-15, repeated calls), and a cold
 * first call asked for the hidden folder's history.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitToBare } from '@perimeter/fake-github';
import { call, startHarness, type Harness } from '@perimeter/test-rigs';

const CONFIG = `
version: 1
perimeters:
  impl:
    read: ["src/**", "docs/**"]
    write: ["src/**"]
`;
/** hidden folders, each with the same 40 commits, so every run of the property starts on a fresh one */
const FOLDERS = 12;
const PAIRS: Array<[string, string]> = Array.from({ length: FOLDERS }, (_, k) =>
  k % 3 === 2 ? [`h${k}/deep/x3.txt`, `m${k}/deep/x3.txt`] : [`h${k}`, `m${k}`],
);

async function seeded(): Promise<Harness> {
  const h = await startHarness({
    files: { 'src/a.ts': 'a\n', 'secret/c/d/start.txt': '0\n' },
    config: CONFIG,
  });
  for (let i = 1; i <= 40; i++)
    await commitToBare(
      h.repoDir,
      'main',
      {
        [`secret/c/d/n${i}.txt`]: `${i}\n`,
        [`secret/e/n${i}.txt`]: `${i}\n`,
        ...Object.fromEntries(PAIRS.map((_, k) => [`h${k}/deep/x${i}.txt`, `${i}\n`])),
      },
      `hidden ${i}`,
    );
  await commitToBare(h.repoDir, 'main', { 'src/b.ts': 'b\n' }, 'visible');
  return h;
}

interface Measured {
  requests: string;
  answer: string;
}

async function measure(h: Harness, path: string, args: Record<string, unknown>): Promise<Measured> {
  const client = await h.connect('impl');
  h.fake.resetStats();
  const answer = JSON.stringify(await call(client, 'list_commits', { path, ...args })).replaceAll(
    path,
    '<path>',
  );
  const { total, graphqlPoints, byRoute } = h.fake.stats();
  return { requests: JSON.stringify({ total, graphqlPoints, byRoute }), answer };
}

describe('list_commits on a hidden path and a missing one', () => {
  const harnesses: Harness[] = [];
  beforeAll(async () => {
    harnesses.push(await seeded(), await seeded(), await seeded());
  });
  afterAll(async () => Promise.all(harnesses.map((h) => h.close())));

  it('costs the same on a cold first call, whichever comes first', async () => {
    const [first, second] = harnesses;
    const hiddenCold = await measure(first!, 'secret', { per_page: 13 });
    const missingCold = await measure(second!, 'nothing', { per_page: 13 });
    expect(hiddenCold).toEqual(missingCold);
    // and again, now each side warm from the other's call
    expect(await measure(first!, 'nothing', { per_page: 13 })).toEqual(
      await measure(second!, 'secret', { per_page: 13 }),
    );
  });

  it('answers alike and costs the same for any page size, page, depth and calls before', async () => {
    const h = harnesses[2]!;
    // what both sides share, loaded once: the head's tree
    await call(await h.connect('impl'), 'get_tree', {});
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            perPage: fc.oneof(fc.integer({ min: 1, max: 20 }), fc.integer({ min: 1, max: 100 })),
            page: fc.integer({ min: 1, max: 3 }),
            hiddenFirst: fc.boolean(),
          }),
          { minLength: 2, maxLength: 4 },
        ),
        async (calls) => {
          // a folder no call has asked for yet: no scan kept from an earlier run
          const [hidden, missing] = PAIRS[run++ % FOLDERS]!;
          // the same path asked again: a scan kept from the call before must not tell either
          for (const { perPage, page, hiddenFirst } of calls) {
            const args = { per_page: perPage, page };
            const order = hiddenFirst ? [hidden, missing] : [missing, hidden];
            const measured: Record<string, Measured> = {};
            for (const path of order) measured[path] = await measure(h, path, args);
            expect(measured[hidden], JSON.stringify(args)).toEqual(measured[missing]);
          }
        },
      ),
      { numRuns: FOLDERS },
    );
  });
});
