import { FakeRepo } from './repo.js';
const repo = await FakeRepo.open('o/r', '/tmp/big/r.git', false, 1);
for (let k = 0; k < 2; k++) {
  let t = Date.now();
  const tree = await repo.readObject('main^{tree}');
  const entries = await repo.lsTree(tree!.sha, true);
  console.log('ls', Date.now() - t, entries.length);
  t = Date.now();
  const api = 'http://127.0.0.1:1/repos/o/r';
  const json = entries.slice(0, 100000).map((e) => {
    const j: Record<string, unknown> = { path: e.path, mode: e.mode, type: e.type, sha: e.sha };
    if (e.size !== undefined) j.size = e.size;
    j.url = `${api}/git/${e.type}s/${e.sha}`;
    return j;
  });
  console.log('map', Date.now() - t);
  t = Date.now();
  const s = JSON.stringify({ tree: json });
  console.log('stringify', Date.now() - t, s.length);
  t = Date.now();
  const b = Buffer.from(s);
  const { createHash } = await import('node:crypto');
  createHash('sha256').update(b).digest('hex');
  console.log('hash', Date.now() - t);
}
repo.close();
