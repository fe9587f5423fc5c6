/** Whether this is `npm run test:long` (vitest.long.config.ts sets PERIMETER_LONG=1). */
export const LONG = process.env.PERIMETER_LONG === '1';

/** Runs of a property: `short` in `npm test`, `long` in `npm run test:long`. */
export function runs(short: number, long: number): number {
  return LONG ? long : short;
}
