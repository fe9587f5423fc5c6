/**
 * What content safety adds to an answer (`npm run bench:safety`):
 * 1. redact() alone on a 100 KB text (source-like lines with a few secrets), ms per call;
 * 2. the worst texts we know of, about 1 MB each (the scan must stay linear);
 * 3. a warm get_file of a 100 KB file through the running gateway, without and with the filter;
 * 4. false positives on real source: the installed MCP TypeScript SDK (which holds no real secrets), the
 *    files and values hidden, per kind.
 * Medians after warm-up; figures, not assertions.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AnswerFilter } from '../src/safety/answer-filter.js';
import { createSecretFilter, NO_FILTER } from '../src/safety/index.js';
import { call, startHarness } from '@perimeter/test-rigs';

const SIZE = 100 * 1024;
const WARMUP = 5;
const RUNS = 30;

function sampleText(): string {
  const token = ['gh', 'p_', 'Z'.repeat(4), '0123456789abcdefghijklmnopqrstu', 'v'].join('');
  const lines = [
    'export function add(a: number, b: number): number {',
    '  const total = a + b; // plain code, nothing to hide',
    '  return total;',
    '}',
    'database:',
    '  host: db.internal',
    '  password: not-a-real-one-1234',
    `const client = new Client({ auth: process.env.TOKEN, url: "https://api.example.net/v1" });`,
    `# a stray token: ${token}`,
    'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt.',
  ];
  let text = '';
  for (let i = 0; text.length < SIZE; i++) text += `${lines[i % lines.length]}\n`;
  return text.slice(0, SIZE);
}

async function measure(run: () => Promise<unknown>): Promise<{ median: number; p90: number }> {
  for (let i = 0; i < WARMUP; i++) await run();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    await run();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return {
    median: times[Math.floor(times.length / 2)] ?? 0,
    p90: times[Math.floor(times.length * 0.9)] ?? 0,
  };
}

const ms = (n: number): string => `${n.toFixed(2)} ms`;
const text = sampleText();
const filter = createSecretFilter({ extraSecrets: ['bench-run-token-0123456789'] });
const hidden = (await filter.redact(text)).hidden;
const alone = await measure(() => filter.redact(text));
// a fresh filter per call: nothing cached, every detector runs (what the first read of new content costs)
const cold = await measure(() =>
  createSecretFilter({ extraSecrets: ['bench-run-token-0123456789'] }).redact(text),
);
console.log(
  `redact() of a ${SIZE / 1024} KB text not seen before (${hidden} values hidden): median ${ms(cold.median)}, p90 ${ms(cold.p90)}`,
);
console.log(
  `redact() of a ${SIZE / 1024} KB text (${hidden} values hidden): median ${ms(alone.median)}, p90 ${ms(alone.p90)}`,
);
const plain = text.replace(/# a stray token: .*/g, '# a plain comment').replace(/password/g, 'hostname');
const clean = await measure(() => filter.redact(plain));
const cleanCold = await measure(() =>
  createSecretFilter({ extraSecrets: ['bench-run-token-0123456789'] }).redact(plain),
);
console.log(
  `redact() of a ${SIZE / 1024} KB text with nothing to hide, not seen before: median ${ms(cleanCold.median)}, p90 ${ms(cleanCold.p90)}`,
);
console.log(
  `redact() of a ${SIZE / 1024} KB text with nothing to hide (${(await filter.redact(plain)).hidden} hidden): median ${ms(clean.median)}, p90 ${ms(clean.p90)}`,
);

async function warmGetFile(
  content: string,
  answerFilter: AnswerFilter,
): Promise<{ median: number; p90: number }> {
  const config = 'version: 1\nperimeters:\n  reader:\n    read: ["**"]\n    write: []\n';
  const harness = await startHarness({ files: { 'src/big.ts': content }, config, filter: answerFilter });
  try {
    const client = await harness.connect('reader');
    return await measure(() => call(client, 'get_file', { path: 'src/big.ts' }));
  } finally {
    await harness.close();
  }
}

/** Texts built to make pattern matching slow; each about 1 MB, the largest file get_file shows. */
const BEGIN = ['-----BEGIN ', 'PRIVATE KEY-----'].join('');
const adversarial: Record<string, string> = {
  'BEGIN lines without END': `${BEGIN}\n`.repeat(35_000),
  'assignments chained on one line': 'password='.repeat(110_000),
  'one 1 MB name': 'password'.repeat(120_000),
  'URL schemes without hosts': 'https://'.repeat(120_000),
  'JWT-like fragments': `eyJ${'a'.repeat(20)}.`.repeat(40_000),
  'GitHub tokens, one a line': `${['gh', 'p_'].join('')}${'aB3d'.repeat(9)}\n`.repeat(25_000),
  'AWS key IDs among 40-character runs':
    `${['AK', 'IA'].join('')}ABCDEFGHIJKLMNOP ${'aB3'.repeat(13)}x\n`.repeat(16_000),
  'prose announcing secrets': 'the password is required and the token is '.repeat(23_000),
  'command lines without passwords': 'mysql -u root -h db -P 3306 '.repeat(35_000),
  'encoded PEM starts': `${'LS0tLS1CRUdJT'}${'A'.repeat(40)} `.repeat(18_000),
  'base64 of text, one a line': `${Buffer.from('token is ghp_ but not one, x').toString('base64')}\n`.repeat(
    25_000,
  ),
  'URL escapes between words': 'a%20b '.repeat(160_000),
  'zero-width characters between letters': 'g\u200bh\u200cp\u200d_'.repeat(130_000),
  'fullwidth text': '\uff47\uff48\uff50\uff3f\uff21'.repeat(200_000),
};
for (const [name, hostile] of Object.entries(adversarial)) {
  const start = performance.now();
  await filter.redact(hostile);
  console.log(
    `adversarial ${(hostile.length / 1e6).toFixed(2)} MB, ${name}: ${ms(performance.now() - start)}`,
  );
}

for (const [label, content] of [
  ['with nothing to hide', plain],
  [`with ${hidden} values to hide`, text],
] as const) {
  const without = await warmGetFile(content, NO_FILTER);
  const withFilter = await warmGetFile(content, filter);
  console.log(
    `warm get_file of a ${SIZE / 1024} KB file ${label}: median ${ms(without.median)} without the filter, ${ms(withFilter.median)} with it: +${ms(withFilter.median - without.median)} (p90 ${ms(without.p90)} -> ${ms(withFilter.p90)})`,
  );
}

/** Every text file of the installed MCP TypeScript SDK: real source with no real secrets in it. */
async function corpusFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && /\.(?:[cm]?js|ts|json|md)$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

const corpusRoot = 'node_modules/@modelcontextprotocol/sdk';
let corpusBytes = 0;
let flaggedFiles = 0;
let falsePositives = 0;
const corpusKinds: Record<string, number> = {};
const corpus = await corpusFiles(corpusRoot);
const corpusStart = performance.now();
for (const file of corpus) {
  const content = await readFile(file, 'utf8');
  corpusBytes += Buffer.byteLength(content);
  const redaction = await createSecretFilter().redact(content);
  if (redaction.hidden > 0) flaggedFiles++;
  falsePositives += redaction.hidden;
  for (const [kind, n] of Object.entries(redaction.kinds)) corpusKinds[kind] = (corpusKinds[kind] ?? 0) + n;
}
const corpusMs = performance.now() - corpusStart;
console.log(
  `false positives on ${corpusRoot} (${corpus.length} files, ${(corpusBytes / 1e6).toFixed(2)} MB): ${falsePositives} values hidden in ${flaggedFiles} files (${((100 * flaggedFiles) / corpus.length).toFixed(2)}% of files, ${(falsePositives / (corpusBytes / 1e6)).toFixed(2)} per MB), ${ms(corpusMs / (corpusBytes / 1e6))} per MB; ${JSON.stringify(corpusKinds)}`,
);
