import { ZERO_SHA } from '../gathering/ref-accounting.js';

/** A commit as the receipt names it: seven hex digits, or "nothing" for an absent ref. */
export const short = (sha: string | null): string =>
  sha === null || sha === ZERO_SHA ? 'nothing' : sha.slice(0, 7);
