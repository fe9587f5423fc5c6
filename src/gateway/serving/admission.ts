/**
 * How much the listener takes in at once. Without bounds, 40 authenticated bodies held open just under
 * the size limit grew the gateway from 136 to 760 MiB: each body was buffered whole while its sender
 * took its time. Connections are bounded per pool (see connection-pools.ts), and request bodies share one
 * byte budget, held from the first byte until the answer is sent (the parsed call lives that long too).
 */
/** Connections without a call of any perimeter in flight; the oldest is dropped past it. */
export const ANONYMOUS_CONNECTIONS = 128;
/** Connections with a call of one perimeter in flight (its body arriving or its answer being made); past it, 429. */
export const PERIMETER_CONNECTIONS = 64;
/** Calls of one perimeter being answered at once; more wait their turn (their bodies already read). */
export const CALLS_IN_FLIGHT = 16;
/** What a call refused for capacity is told to wait, in seconds (Retry-After). */
export const RETRY_AFTER_SECONDS = 1;
/** No request may take longer to arrive; agents on the same machine send far faster. */
export const REQUEST_TIMEOUT_MS = 120_000;
/** Headers arrive in one write from an agent; a connection dribbling them is closed after this. */
export const HEADERS_TIMEOUT_MS = 10_000;
/** How often those two are checked (Node's default, 30 s, would let a dribbler hold three times longer). */
export const TIMEOUT_CHECK_MS = 1_000;
/** A kept-alive connection with no request in flight is closed after this. */
export const IDLE_TIMEOUT_MS = 5_000;

/**
 * Bodies up to this size (every call but a large push) do not draw on the budget, so held-open large
 * bodies cannot starve ordinary calls; the connection caps bound them (64 per perimeter x 256 KiB = 16 MiB).
 */
export const SMALL_BODY_BYTES = 256 * 1024;

/** Room for two of the largest bodies at once, and never less than 32 MiB. */
export function bodyBudgetFor(maxBodyBytes: readonly number[]): number {
  return Math.max(32 * 1024 * 1024, 2 * Math.max(0, ...maxBodyBytes));
}

export class ByteBudget {
  private used = 0;

  constructor(readonly limit: number) {}

  /** Takes `bytes` if they fit; false (taking nothing) when they do not. */
  tryTake(bytes: number): boolean {
    if (bytes < 0 || this.used + bytes > this.limit) return false;
    this.used += bytes;
    return true;
  }

  give(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }

  inUse(): number {
    return this.used;
  }
}
