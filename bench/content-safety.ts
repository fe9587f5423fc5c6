/**
 * What content safety costs a warm get_file of a 100 KB file through the gateway (in-process gateway, the
 * stand-in upstream): the same call with the identity filter and with the secret filter the action uses,
 * interleaved so machine load falls on both alike; and redact() alone on that text, warm (the same text again:
 * the filter caches redactions by content hash) and cold (a new line each time, so every call scans the whole
 * text, as the first read of new content does). The adversarial inputs
 * and the clean-text case are in `npm run bench:safety` (bench/safety.ts).
 */
import { createSecretFilter, NO_FILTER } from '../src/safety/index.js';
import type { AnswerFilter } from '../src/safety/answer-filter.js';
import { percentile, round, sample } from './support/measure.js';
import { callTool, startBenchGateway, startStandIn } from './support/stand-in.js';

export interface SafetyResult {
  file_bytes: number;
  hidden_values: number;
  /** the same text again: answered from the filter's cache */
  redact_ms: { p50: number; p90: number };
  /** a text never seen before: a full scan */
  redact_cold_ms: { p50: number; p90: number };
  get_file_no_filter_ms: { p50: number; p90: number };
  get_file_filter_ms: { p50: number; p90: number };
  filter_cost_p50_ms: number;
}

const SIZE = 100 * 1024;
const CONFIG =
  'version: 1\nperimeters:\n  reader:\n    read: ["**"]\n    write: []\n    branches: ["main"]\n';

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
    'const client = new Client({ auth: process.env.TOKEN, url: "https://api.example.net/v1" });',
    `# a stray token: ${token}`,
    'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt.',
  ];
  let text = '';
  for (let i = 0; text.length < SIZE; i++) text += `${lines[i % lines.length]}\n`;
  return text.slice(0, SIZE);
}

export async function runContentSafety(runs: number): Promise<SafetyResult> {
  const text = sampleText();
  const filter = createSecretFilter({ extraSecrets: ['bench-run-token-0123456789'] });
  const hidden = (await filter.redact(text)).hidden;
  const redact = await sample(() => filter.redact(text), runs, 3);
  let fresh = 0;
  const redactCold = await sample(() => filter.redact(`${text}// run ${fresh++}\n`), runs, 1);
  const standIn = await startStandIn({ files: { 'src/big.ts': text } });
  try {
    const open = async (f: AnswerFilter) => {
      const gateway = await startBenchGateway(standIn, CONFIG, f);
      const client = await gateway.connect('reader');
      return { gateway, read: () => callTool(client, 'get_file', { path: 'src/big.ts' }) };
    };
    const plain = await open(NO_FILTER);
    const filtered = await open(filter);
    const without: number[] = [];
    const withFilter: number[] = [];
    const rounds = 3;
    for (let r = 0; r < rounds; r++) {
      without.push(...(await sample(plain.read, Math.ceil(runs / rounds), r === 0 ? 5 : 1)));
      withFilter.push(...(await sample(filtered.read, Math.ceil(runs / rounds), r === 0 ? 5 : 1)));
    }
    await plain.gateway.close();
    await filtered.gateway.close();
    const stats = (t: number[]) => ({ p50: round(percentile(t, 50)), p90: round(percentile(t, 90)) });
    return {
      file_bytes: Buffer.byteLength(text),
      hidden_values: hidden,
      redact_ms: stats(redact),
      redact_cold_ms: stats(redactCold),
      get_file_no_filter_ms: stats(without),
      get_file_filter_ms: stats(withFilter),
      filter_cost_p50_ms: round(percentile(withFilter, 50) - percentile(without, 50)),
    };
  } finally {
    await standIn.close();
  }
}
