// The long run of the verifier's model-based check (test/verify/model-verifier.test.ts runs a short one):
// random histories played against the GitHub stand-in, each verdict compared with the ground truth.
// Usage: npm run model-check -- [--runs N] [--seed S] [--json]
// Exits 1 with the shrunk counterexample when a verdict says success over a violation (or not success when
// nothing broke and GitHub answered); prints the figures either way.
import fc from 'fast-check';
import { histories, modelStandIn, play } from '@perimeter/test-rigs';

const args = process.argv.slice(2);
const option = (name: string, fallback: number): number => {
  const at = args.indexOf(`--${name}`);
  const value = at >= 0 ? Number(args[at + 1]) : fallback;
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`--${name}: expected a whole number`);
  return value;
};
const runs = option('runs', 1_000);
const seed = option('seed', Date.now() % 2 ** 31);

const tally = { histories: 0, withViolation: 0, faulted: 0, unrecorded: 0, success: 0, failure: 0, error: 0 };
const started = Date.now();
const standIn = await modelStandIn();
const result = await fc.check(
  fc.asyncProperty(histories, async (history) => {
    const { verdict, truth, faulted } = await play(history, standIn);
    tally.histories += 1;
    tally[verdict.state] += 1;
    if (truth.violations.length > 0) tally.withViolation += 1;
    if (truth.unrecorded.length > 0) tally.unrecorded += 1;
    if (faulted) tally.faulted += 1;
    if (truth.violations.length > 0 && verdict.state === 'success')
      throw new Error(`false success; truth: ${truth.violations.join(', ')}`);
    if (truth.violations.length === 0 && !faulted && verdict.state !== 'success')
      throw new Error(
        `false ${verdict.state}: ${[...verdict.violations.map((v) => v.message), ...verdict.unchecked].join(' | ')}`,
      );
  }),
  { numRuns: runs, seed, endOnFailure: true },
);
await standIn.stop();
const figures = { seed, ...tally, seconds: Math.round((Date.now() - started) / 1000), failed: result.failed };
console.log(args.includes('--json') ? JSON.stringify(figures) : figures);
if (result.failed) {
  console.error(fc.defaultReportMessage(result));
  console.error(String(result.errorInstance));
  process.exit(1);
}
