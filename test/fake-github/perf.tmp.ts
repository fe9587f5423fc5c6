import { rmSync } from 'node:fs';
import { seedRepo, startFakeGithub } from './index.js';
rmSync('/tmp/big', { recursive: true, force: true });
const files: Record<string, string> = {};
for (let i = 0; i < 100_000; i++) files[`d${i % 100}/s${Math.floor(i / 100) % 50}/f${i}.txt`] = `file ${i}\n`;
let t = Date.now();
const sha = await seedRepo('/tmp/big/r.git', files);
console.log('seed ms', Date.now() - t, sha);
const gh = await startFakeGithub({ repos: { 'o/r': '/tmp/big/r.git' } });
for (let k = 0; k < 3; k++) {
  t = Date.now();
  const r = await fetch(`${gh.url}/repos/o/r/git/trees/main?recursive=1`, {
    headers: { authorization: 'token test-token' },
  });
  const body = (await r.json()) as { tree: unknown[]; truncated: boolean };
  console.log('tree ms', Date.now() - t, body.tree.length, body.truncated);
}
await gh.stop();
