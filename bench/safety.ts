/**
 * What the content-safety filter adds to an answer: ms per redact() of a 100 KB text
 * (source-like lines with a few secrets in them), after warm-up. `npm run bench:safety`
 */
import { createSecretFilter } from '../src/safety/index.js';

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

const text = sampleText();
const filter = createSecretFilter({ extraSecrets: ['bench-run-token-0123456789'] });
for (let i = 0; i < WARMUP; i++) await filter.redact(text);
const times: number[] = [];
let hidden = 0;
for (let i = 0; i < RUNS; i++) {
  const start = performance.now();
  hidden = (await filter.redact(text)).hidden;
  times.push(performance.now() - start);
}
times.sort((a, b) => a - b);
const median = times[Math.floor(times.length / 2)] ?? 0;
const p90 = times[Math.floor(times.length * 0.9)] ?? 0;
console.log(
  `content safety: redact() of ${SIZE / 1024} KB text: median ${median.toFixed(2)} ms, p90 ${p90.toFixed(2)} ms per call (${RUNS} runs, ${hidden} values hidden per call)`,
);
