/**
 * How much the listener takes in at once. Without bounds, 40 authenticated bodies held open just under
 * the size limit grew the gateway from 136 to 760 MiB: each body was buffered whole while its sender
 * took its time. Connections are capped, and request bodies share one byte budget, held from the first
 * byte until the answer is sent (the parsed call lives that long too).
 */
export const MAX_CONNECTIONS = 128;
/** No request may take longer to arrive; agents on the same machine send far faster. */
export const REQUEST_TIMEOUT_MS = 120_000;
export const HEADERS_TIMEOUT_MS = 30_000;

/**
 * Bodies up to this size (every call but a large push) do not draw on the budget, so held-open large
 * bodies cannot starve ordinary calls; the connection cap bounds them (128 x 256 KiB = 32 MiB).
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
