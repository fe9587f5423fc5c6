/**
 * What content safety finds and what it costs (`npm run bench:safety`), this code beside a baseline commit's
 * (`PERIMETER_SAFETY_BASELINE`, by default main before issue 27's decoding) in the same run:
 * 1. detection: every held-in sample (test-rigs' secret samples) in every written form (secret-encodings:
 *    each layer, splits and joins, nested up to four layers), hidden or not;
 * 2. false positives and cost on real source: the installed MCP TypeScript SDK (which holds no real
 *    secrets), values hidden and files affected, and milliseconds per MB, the ratio to the baseline's;
 * 3. redact() alone on a 100 KB text (source-like lines with a few secrets), ms per call;
 * 4. the worst texts we know of, about 1 MB each (the scan must stay linear), both codes;
 * 5. a warm get_file of a 100 KB file through the running gateway, without and with the filter.
 * Medians; figures, not assertions.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AnswerFilter } from '../src/safety/answer-filter.js';
import { createSecretFilter, NO_FILTER } from '../src/safety/index.js';
import {
  call,
  pemBodies,
  providerSamples,
  sample,
  secretEncodings,
  startHarness,
} from '@perimeter/test-rigs';
import { loadBaseline } from './support/baseline.js';
import { median } from './support/measure.js';

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

/** Every text file of the installed MCP TypeScript SDK: real source with no real secrets in it. */
async function corpusFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && /\.(?:[cm]?js|ts|json|md)$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

const ms = (n: number): string => `${n.toFixed(2)} ms`;
/**
 * CPU milliseconds `run` takes in this process (the filter, secretlint included, runs here): unlike
 * elapsed time, not stretched by other processes on a shared machine, so the two codes compare fairly.
 */
async function cpu(run: () => Promise<unknown>): Promise<number> {
  const before = process.cpuUsage();
  await run();
  const { user, system } = process.cpuUsage(before);
  return (user + system) / 1000;
}
const ratio = (a: number, b: number): string => `${(a / b).toFixed(2)}x`;
type MakeFilter = (options?: { extraSecrets?: readonly string[] }) => AnswerFilter;

const baseline = await loadBaseline(process.env.PERIMETER_SAFETY_BASELINE ?? '17870f2');
const codes: Array<[string, MakeFilter]> = [
  ['this code', createSecretFilter],
  [`baseline ${baseline.commit}`, baseline.createSecretFilter],
];
console.log(`content safety, this code against ${baseline.commit} in the same run`);

// 1. detection: every held-in sample in every written form
const held: Array<{ kind: string; value: string }> = [
  ...providerSamples(),
  ...Object.entries(pemBodies().private).map(([kind, value]) => ({ kind: `${kind} body`, value })),
  { kind: 'AWS secret access key (alone)', value: sample.awsSecret() },
];
const encodings = secretEncodings();
const detected = new Map<string, number>(codes.map(([name]) => [name, 0]));
const missedByForm = new Map<string, number>();
for (const [name, make] of codes) {
  const detecting = make();
  for (const encoding of encodings) {
    for (const { value } of held) {
      const { text: written, pieces } = encoding.encode(value);
      const { text: answer } = await detecting.redact(`# settings\nvalue = ${written}\nnext: 1\n`);
      if (pieces.every((piece) => !answer.includes(piece))) detected.set(name, detected.get(name)! + 1);
      else if (name === 'this code')
        missedByForm.set(encoding.name, (missedByForm.get(encoding.name) ?? 0) + 1);
    }
  }
}
const cases = encodings.length * held.length;
console.log(
  `detection: ${held.length} held-in samples in ${encodings.length} written forms (${cases} cases): ${codes.map(([name]) => `${name} ${detected.get(name)}/${cases}`).join(', ')}${missedByForm.size > 0 ? `; missed by this code: ${JSON.stringify(Object.fromEntries(missedByForm))}` : ''}`,
);

// 2. false positives and cost per MB on real source, rounds alternating between the codes
const corpusRoot = 'node_modules/@modelcontextprotocol/sdk';
const corpus = await corpusFiles(corpusRoot);
const contents = await Promise.all(corpus.map((file) => readFile(file, 'utf8')));
const corpusMB = contents.reduce((sum, c) => sum + Buffer.byteLength(c), 0) / 1e6;
const ROUNDS = 5;
const perMB = new Map<string, number[]>(codes.map(([name]) => [name, []]));
const falsePositives = new Map<string, { values: number; files: number; kinds: Record<string, number> }>();
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, make] of round % 2 === 0 ? codes : [...codes].reverse()) {
    const counts = { values: 0, files: 0, kinds: {} as Record<string, number> };
    const spent = await cpu(async () => {
      for (const content of contents) {
        // a fresh filter per file: nothing cached, every detector runs
        const redaction = await make().redact(content);
        counts.values += redaction.hidden;
        if (redaction.hidden > 0) counts.files++;
        for (const [kind, n] of Object.entries(redaction.kinds))
          counts.kinds[kind] = (counts.kinds[kind] ?? 0) + n;
      }
    });
    perMB.get(name)!.push(spent / corpusMB);
    falsePositives.set(name, counts);
  }
}
const [thisName, baseName] = [codes[0]![0], codes[1]![0]];
for (const [name] of codes) {
  const { values, files, kinds } = falsePositives.get(name)!;
  console.log(
    `false positives, ${name}, on ${corpusRoot} (${corpus.length} files, ${corpusMB.toFixed(2)} MB): ${values} values hidden in ${files} files (${((100 * files) / corpus.length).toFixed(2)}% of files, ${(values / corpusMB).toFixed(2)} per MB); ${JSON.stringify(kinds)}`,
  );
}
const thisPerMB = median(perMB.get(thisName)!);
const basePerMB = median(perMB.get(baseName)!);
console.log(
  `hiding cost per MB of real source, CPU time (median of ${ROUNDS} rounds): ${ms(thisPerMB)} this code, ${ms(basePerMB)} ${baseName}: ${ratio(thisPerMB, basePerMB)}`,
);

// 3. redact() on a 100 KB text, not seen before (a fresh filter per call) and again (cached)
const text = sampleText();
const plain = text.replace(/# a stray token: .*/g, '# a plain comment').replace(/password/g, 'hostname');
const extraSecrets = ['bench-run-token-0123456789'];
for (const [label, content] of [
  ['with values to hide', text],
  ['with nothing to hide', plain],
] as const) {
  const cold = new Map<string, number>();
  for (const [name, make] of codes) {
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) times.push(await cpu(() => make({ extraSecrets }).redact(content)));
    cold.set(name, median(times));
  }
  const warmFilter = createSecretFilter({ extraSecrets });
  const hiddenHere = (await warmFilter.redact(content)).hidden;
  const warmRedact = await measure(() => warmFilter.redact(content));
  console.log(
    `redact() of a ${SIZE / 1024} KB text ${label} (${hiddenHere} hidden), not seen before: median CPU ${ms(cold.get(thisName)!)} this code, ${ms(cold.get(baseName)!)} ${baseName} (${ratio(cold.get(thisName)!, cold.get(baseName)!)}); seen before: ${ms(warmRedact.median)}`,
  );
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
const hostileMore: Record<string, string> = {
  'escapes of every kind in every run': `${'%41&#66;\\x43'.repeat(4)}abcdefgh `.repeat(17_500),
  'base64 of base64 of base64':
    `${Buffer.from(Buffer.from(Buffer.from('x'.repeat(60)).toString('base64')).toString('base64')).toString('base64')}\n`.repeat(
      6_900,
    ),
  'string literals joined in a chain': '"abcdefghijklmnopq" + '.repeat(45_000),
  'base64 wrapped over lines': `${'QUJD'.repeat(19)}\n`.repeat(13_000),
  'hex runs of text': `${Buffer.from('not a token, just text here').toString('hex')}\n`.repeat(18_000),
};
for (const [name, hostile] of Object.entries({ ...adversarial, ...hostileMore })) {
  const times = new Map<string, number>();
  for (const [code, make] of codes) times.set(code, await cpu(() => make().redact(hostile)));
  console.log(
    `adversarial ${(hostile.length / 1e6).toFixed(2)} MB, ${name}, CPU: ${ms(times.get(thisName)!)} this code, ${ms(times.get(baseName)!)} ${baseName}`,
  );
}

const filter = createSecretFilter({ extraSecrets });
const hidden = (await filter.redact(text)).hidden;
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
