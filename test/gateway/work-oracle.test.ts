/**
 * Hidden and missing cost the same: for every read tool, a path the perimeter cannot read (a directory
 * with a long history) and a path that does not exist make the same upstream requests, counted by the
 * GitHub stand-in. Both orders are measured on fresh gateways, so no cache favours either side.
 */
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

const PROBES: Array<[string, (path: string) => Record<string, unknown>, string, string]> = [
  ['list_commits', (path) => ({ path }), 'secret', 'nothing'],
  ['list_commits', (path) => ({ path }), 'secret/c/d', 'nothing/c/d'],
  ['get_tree', (path) => ({ path, recursive: true }), 'secret', 'nothing'],
  ['get_file', (path) => ({ path }), 'secret/c/d/n1.txt', 'nothing/c/d/n1.txt'],
  ['get_files', (path) => ({ paths: [path, 'src/a.ts'] }), 'secret/c/d/n1.txt', 'nothing/c/d/n1.txt'],
];

async function seeded(): Promise<Harness> {
  const h = await startHarness({
    files: { 'src/a.ts': 'a\n', 'secret/c/d/start.txt': '0\n' },
    config: CONFIG,
  });
  for (let i = 1; i <= 40; i++)
    await commitToBare(
      h.repoDir,
      'main',
      { [`secret/c/d/n${i}.txt`]: `${i}\n`, [`secret/e/n${i}.txt`]: `${i}\n` },
      `hidden ${i}`,
    );
  await commitToBare(h.repoDir, 'main', { 'src/b.ts': 'b\n' }, 'visible');
  return h;
}

describe('hidden and missing paths', () => {
  const harnesses: Harness[] = [];
  beforeAll(async () => {
    harnesses.push(await seeded(), await seeded());
  });
  afterAll(async () => Promise.all(harnesses.map((h) => h.close())));

  it('cost the same upstream requests, and answer alike, on every read tool', async () => {
    const lines: string[] = [];
    for (const [order, h] of harnesses.entries()) {
      const client = await h.connect('impl');
      // what both sides share, loaded once: the head's tree and the readable file get_files also asks for
      await call(client, 'get_tree', {});
      await call(client, 'get_file', { path: 'src/a.ts' });
      for (const [tool, args, hidden, missing] of PROBES) {
        const sides = order === 0 ? [hidden, missing] : [missing, hidden];
        const measured: Record<string, { requests: string; answer: string }> = {};
        for (const path of sides) {
          h.fake.resetStats();
          const answer = JSON.stringify(await call(client, tool, args(path))).replaceAll(path, '<path>');
          const stats = h.fake.stats();
          measured[path] = { requests: `${stats.total} ${JSON.stringify(stats.byRoute)}`, answer };
        }
        lines.push(
          `${tool} ${hidden} vs ${missing}: ${measured[hidden]!.requests.split(' ')[0]} / ${measured[missing]!.requests.split(' ')[0]} requests`,
        );
        expect(measured[hidden]!.requests, `${tool} ${hidden}`).toBe(measured[missing]!.requests);
        expect(measured[hidden]!.answer, `${tool} ${hidden}`).toBe(measured[missing]!.answer);
      }
    }
    console.log(lines.join('\n'));
  });
});
